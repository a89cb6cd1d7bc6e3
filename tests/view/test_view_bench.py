"""The report of a labeler bench run (``conflicteval bench labeler``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.view import load_run, render_report


def test_bench_run_report(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench"
    data = shared_data / "ramdocs" / "RAMDocs_test_first30.jsonl"
    args = ["bench", "labeler", "--gold", "ramdocs", "--data", str(data)]
    assert main([*args, "--labeler", "lexical", "--out", str(out)]) == 0
    assert f"open the report: conflicteval view {out}" in capsys.readouterr().out
    saved = json.loads((out / "bench.json").read_text(encoding="utf-8"))
    run = load_run(out)
    assert run.kind == "bench"
    assert len(run.items) == 30  # the 30 single-answer questions, one item each
    assert sum(len(it["value"]) for it in run.items) == 119  # one label letter per document
    acc = next(h for h in run.headlines if h.name == "accuracy")
    assert acc.value == saved["accuracy"]
    assert [acc.low, acc.high] == saved["accuracy_ci"]
    chart = run.charts[0]
    assert "Labeler vs gold relations" in chart.svg and "n = 119 pairs" in chart.svg
    html = render_report(run)
    assert "labeler bench: lexical on ramdocs" in html
