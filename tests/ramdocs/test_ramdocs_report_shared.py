"""What the RAMDocs and FaithEval reports share: the benchmark check and the ok/failed split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.errors import ConflictEvalError
from conflicteval.faitheval.report import faitheval_report
from conflicteval.ramdocs.report import answered, ramdocs_report
from conflicteval.runs import Record


def _run(tmp_path: Path, benchmark: str) -> Path:
    tmp_path.mkdir()
    (tmp_path / "run.json").write_text(json.dumps({"benchmark": benchmark, "method": "vanilla"}))
    return tmp_path


def test_each_report_refuses_the_other_benchmarks_run(tmp_path: Path) -> None:
    with pytest.raises(ConflictEvalError, match="a ramdocs run, not FaithEval"):
        faitheval_report(_run(tmp_path / "r", "ramdocs"))
    with pytest.raises(ConflictEvalError, match="a faitheval run, not RAMDocs or AmbigDocs"):
        ramdocs_report(_run(tmp_path / "f", "faitheval"))


def test_answered_yields_ok_results_and_counts_the_rest_in_order() -> None:
    # an ok record without a result object is counted under its status, as before
    records = [
        Record(id="1", status="model_error", error="timeout"),
        Record(id="2", status="ok", result={"output": "x"}),
        Record(id="3", status="ok", result="not a dict"),
        Record(id="4", status="parse_error", error="?"),
    ]
    failed: dict[str, int] = {}
    got = [(rec.id, result) for rec, result in answered(records, failed)]
    assert got == [("2", {"output": "x"})]
    assert list(failed.items()) == [("model_error", 1), ("ok", 1), ("parse_error", 1)]
