"""``conflicteval view DIR`` of a profile: one page with every cell, its link to the run's
report, the comparison said plainly, and what was not run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conflicteval.cli.app import main
from conflicteval.view import detect_kind, load_run, render_report

from .scripted import data_args


def test_profile_page(shared_data: Path, scripted_server: Any, tmp_path: Path) -> None:
    server, _ = scripted_server("gold")
    out = tmp_path / "card"
    argv = ["profile", "--model", "openai/gold", "--model", "openai/first", "--quiet"]
    argv += ["--base-url", server.base_url, "--out", str(out)]
    for b in ("ramdocs.rag", "ambigdocs.rag", "ramdocs.madam", "conflictscore.ramdocs.madam"):
        argv += ["--benchmark", b]
    for name, path in data_args(shared_data).items():
        argv += ["--data", f"{name}={path}"]
    assert main(argv) == 0
    assert detect_kind(out).name == "profile"
    view = load_run(out)
    assert [c.title for c in view.charts] == [
        "Conflict profile: openai/gold",
        "Conflict profile: openai/first",
        "Paired comparison",
    ]
    item = next(i for i in view.items if i["id"] == "ramdocs.rag.exact_match@openai/first")
    fields = dict(item["fields"])
    assert fields["value"] == "96.7%" and fields["n"].startswith("30 ")
    assert "Table 1, GPT-4o-mini" in fields["papers' values"]
    assert fields["report"] == "openai--first/ramdocs.rag/report.html"
    assert (out / fields["report"]).is_file()  # the link's target is written by the command
    assert any("ambigdocs.rag: not run" in n and "data fetch ambigdocs" in n for n in view.notes)
    page = render_report(view)
    assert "href='openai--first/ramdocs.rag/report.html'" in page
    assert ">tied<" in page  # 30 vs 29 right: one discordant pair, p = 1
    assert (out / "report.html").is_file()
    # a ConflictScore cell scores each model's own answers (different inputs): paired by id
    comparison = json.loads((out / "compare.json").read_text())
    cs = next(m for m in comparison["pairs"][0]["metrics"] if m["id"].endswith("cs_c_mean"))
    assert cs["n"] == 30 and any("different data" in w for w in cs["warnings"])
