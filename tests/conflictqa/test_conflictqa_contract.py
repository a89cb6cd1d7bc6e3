"""A ConflictQA run writes the result contract: its metrics are the report's figures, its
items' values give them back, and two runs compare item by item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import conflicteval as ce
from conflicteval.cli.app import main
from conflicteval.conflictqa.report import conflictqa_report
from conflicteval.testing import OpenAICompatServer

DATA = "conflictqa/conflictQA-strategyQA-chatgpt_first30.json"


def _reply(choice: str) -> Any:
    def reply(request: dict[str, Any]) -> str:
        text = request["messages"][-1]["content"]
        if text.rstrip().endswith("A:"):  # the elicited memory
            return "True\n\nScripted evidence."
        return choice

    return reply


def _run(shared: Path, out: Path, choice: str) -> None:
    with OpenAICompatServer(_reply(choice)) as server:
        argv = ["conflictqa", "run", "--data", str(shared / DATA), "--memory", "elicit"]
        argv += ["--out", str(out), "--model", "openai/m", "--base-url", server.base_url]
        assert main([*argv, "--quiet", "--limit", "12"]) == 0


def test_conflictqa_contract_is_the_report(shared_data: Path, tmp_path: Path) -> None:
    _run(shared_data, tmp_path / "a", "A")
    run = ce.load_run(tmp_path / "a")
    s = run.summary
    assert s.kind == "conflictqa" and s.status == "finished"
    rep = conflictqa_report(tmp_path / "a")
    left = sum(rep["left_out"].values())
    assert s.counts.total == 12 and s.counts.scored == 12 - left
    values = run.item_values()
    for e, fig in rep["experiments_scored"].items():
        mr = s.metric(f"memorization_ratio.{e}")
        assert mr is not None and mr.value == fig["memorization_ratio"]["value"]
        assert mr.n == fig["memorization_ratio"]["n"]
        share = s.metric(f"share.memory.{e}")
        assert share is not None and share.ci == list(fig["shares"]["memory"]["ci"])
        known = [v[f"memorization_ratio.{e}"] for v in values.values()]
        known = [x for x in known if x is not None]
        assert sum(known) / len(known) == mr.value  # the items give the metric back


def test_two_conflictqa_runs_compare(shared_data: Path, tmp_path: Path) -> None:
    _run(shared_data, tmp_path / "a", "A")  # always "True.": the memory
    _run(shared_data, tmp_path / "b", "C")  # always "Uncertain."
    comp = ce.compare(tmp_path / "a", tmp_path / "b")
    row = next(m for m in comp.metrics if m.id == "share.uncertain.counter")
    assert row.a == 0.0 and row.b == 1.0 and row.discordant == [0, row.n]
