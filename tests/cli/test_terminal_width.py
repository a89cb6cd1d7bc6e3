"""What the report commands print fits 100 columns; ``--wide`` gives the Markdown layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.tables import DEFAULT_WIDTH

from .test_limit_and_next_step import _bench_items

# a long model name, as real ones are: it must wrap inside its column, not widen the table
MODEL = "openai/meta-llama/Llama-3.3-70B-Instruct-Turbo-with-a-long-suffix"


def _widest(text: str, *, besides: Path | None = None) -> int:
    """The widest line, leaving out those naming ``besides`` (a path the user chose) and the
    run's cost line (kept whole: it is the line the viewer shows, read back by tools)."""
    lines = [
        ln
        for ln in text.splitlines()
        if (besides is None or str(besides) not in ln) and not ln.startswith("cost: ")
    ]
    return max((len(line) for line in lines), default=0)


def _printed(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    capsys.readouterr()
    assert main(argv) in (0, 1)
    captured = capsys.readouterr()
    return captured.out + captured.err


@pytest.fixture()
def data(shared_data: Path) -> Path:
    """The RAMDocs sample both RAMDocs commands below read (skipped when it is absent)."""
    path = shared_data / "ramdocs" / "RAMDocs_test_first30.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


def test_detection_table_fits_and_wide_keeps_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _bench_items(tmp_path / "b.jsonl", 4)
    out = tmp_path / "d"
    detect = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    printed = _printed(capsys, [*detect, "--paper"])
    assert _widest(printed, besides=tmp_path) <= DEFAULT_WIDTH, printed
    assert "Failed pairs" in printed and "Acc_noConf" in printed  # every column, in blocks
    assert "|---" not in printed
    report = ["conflictbench", "report", "--run", str(out), "--paper"]
    fitted = _printed(capsys, report)
    assert _widest(fitted, besides=tmp_path) <= DEFAULT_WIDTH, fitted
    wide = _printed(capsys, [*report, "--wide"])
    assert _widest(wide) > DEFAULT_WIDTH  # the Markdown table at its full width
    assert "| Category | Prec | Rec | F1 |" in wide and "|---|---:|" in wide
    assert _printed(capsys, [*report, "--markdown"]) == wide


def test_ramdocs_report_of_two_runs_fits(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: Path,
    openai_server: Any,
) -> None:
    openai_server.set_replies(["All Correct Answers: [Paris]. Explanation: the documents."])
    runs = []
    for method in ("rag", "no-rag"):
        run = tmp_path / method
        argv = ["ramdocs", "run", "--method", method, "--data", str(data), "--out", str(run)]
        argv += ["--model", MODEL, "--base-url", openai_server.base_url, "--limit", "3"]
        assert main([*argv, "--quiet"]) == 0
        runs += ["--run", str(run)]
    report = ["ramdocs", "report", *runs, "--conflictscore", "--quiet"]
    printed = _printed(capsys, report)
    assert _widest(printed, besides=tmp_path) <= DEFAULT_WIDTH, printed
    assert "measured % [95% CI]" in printed and "no-rag" in printed
    wide = _printed(capsys, [*report, "--wide"])
    assert "| benchmark | method | model | n |" in wide
    assert f"| ramdocs | rag | {MODEL} | 3 |" in wide  # the whole name, one line


def test_profile_dry_run_fits(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: Path,
    openai_server: Any,
) -> None:
    argv = ["profile", "--model", MODEL, "--base-url", openai_server.base_url, "--quiet"]
    argv += ["--benchmark", "ramdocs.rag", "--benchmark", "ramdocs.madam"]
    argv += ["--data", f"ramdocs={data}", "--out", str(tmp_path / "dry"), "--dry-run"]
    printed = _printed(capsys, argv)
    assert _widest(printed, besides=tmp_path) <= DEFAULT_WIDTH, printed
    assert "ramdocs.rag" in printed and "nothing was sent" in printed
    wide = _printed(capsys, [*argv, "--wide"])
    assert "| model | benchmark | calls |" in wide


def test_bench_compare_fits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = []
    for k in range(2):
        d = tmp_path / f"b{k}"
        d.mkdir()
        row = {
            "labeler": "llm-per-document",
            "model": MODEL,
            "gold": "conflictbench",
            "n": 1234,
            "failed": 5,
            "accuracy": 0.8123,
            "accuracy_ci": [0.7912, 0.8321],
            "macro_f1": 0.7712,
            "macro_f1_ci": [0.7501, 0.7923],
            "cost_usd": 1.2345,
        }
        (d / "bench.json").write_text(json.dumps(row), encoding="utf-8")
        rows.append(str(d))
    capsys.readouterr()
    rc = main(["bench", "compare", *rows])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    assert _widest(printed.out, besides=tmp_path) <= DEFAULT_WIDTH, printed.out
    assert "0.8123 [0.7912, 0.8321]" in printed.out  # a figure is never cut
