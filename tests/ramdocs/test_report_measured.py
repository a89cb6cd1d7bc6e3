"""``ramdocs report --conflictscore`` shows its labeler's measured accuracy, as ``score`` does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

from .test_ramdocs_run import RECORDS


def test_a_conflictscore_beside_exact_match_names_its_labelers_measurement(
    tmp_path: Path, reply_fn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "ramdocs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    run = tmp_path / "r"
    with OpenAICompatServer(reply_fn) as srv:
        args = ["ramdocs", "run", "--method", "rag", "--data", str(data), "--out", str(run)]
        assert main([*args, "--model", "openai/t", "--base-url", srv.base_url, "--quiet"]) == 0
    capsys.readouterr()
    report = ["ramdocs", "report", "--run", str(run), "--conflictscore", "--quiet"]
    assert main(report) == 0
    assert "labeler lexical: unmeasured" in capsys.readouterr().out
    bench = ["bench", "labeler", "--gold", "ramdocs", "--data", str(data), "--labeler", "lexical"]
    assert main([*bench, "--out", str(tmp_path / "b"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(report) == 0
    out = capsys.readouterr().out
    assert "labeler lexical: measured macro-F1" in out and "too small to rely on" in out
    assert main([*report, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    (saved,) = rep["conflictscore"]["labeler_measured"]
    assert saved["gold"] == "ramdocs" and saved["n"] == 2 and saved["too_small"]
