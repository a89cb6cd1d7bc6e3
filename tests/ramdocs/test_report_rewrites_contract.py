"""``ramdocs report`` leaves the run's contract saying what it printed (issue: one result contract).

A report scores the run's answers again with today's rules; the contract (summary.json,
items.jsonl) must then agree with it, while keeping the money and time the run recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.results import load_run
from conflicteval.testing import OpenAICompatServer

from .test_ramdocs_run import RECORDS


def test_report_rewrites_a_stale_contract_and_keeps_the_runs_money(
    tmp_path: Path, reply_fn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    run = tmp_path / "run"
    with OpenAICompatServer(reply_fn) as srv:
        argv = ["ramdocs", "run", "--method", "rag", "--data", str(data), "--out", str(run)]
        argv += ["--model", "openai/test-model", "--base-url", srv.base_url, "--quiet"]
        assert main(argv) == 0
    summary_path = run / "summary.json"
    made = json.loads(summary_path.read_text(encoding="utf-8"))
    em = next(m for m in made["metrics"] if m["id"] == "exact_match")
    # an older library's rule scored the run otherwise: the stored figure is stale
    stale = json.loads(json.dumps(made))
    stale_em = next(m for m in stale["metrics"] if m["id"] == "exact_match")
    stale_em["value"] = 12.345
    summary_path.write_text(json.dumps(stale), encoding="utf-8")
    items_path = run / "items.jsonl"
    items_path.write_text("", encoding="utf-8")
    capsys.readouterr()

    assert main(["ramdocs", "report", "--run", str(run), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)

    again = load_run(run)
    metric = again.summary.metric("exact_match")
    assert metric is not None
    assert metric.value == pytest.approx(printed["exact_match"]["value"])
    assert metric.value == pytest.approx(em["value"])
    assert metric.n == printed["exact_match"]["n"]
    assert len(items_path.read_text(encoding="utf-8").splitlines()) == len(RECORDS)
    rewritten = json.loads(summary_path.read_text(encoding="utf-8"))
    # the report made no answering call: the money and times are the run's own
    for key in ("cost", "started_at", "elapsed_s"):
        assert rewritten[key] == made[key]
