"""A ConflictQA run's contract (``summary.json``, kind ``conflictqa``), from its report.

Per experiment ``e`` (``counter``, ``memory-counter``, ``counter-memory``, ...), the report's
own figures carried as they are (:func:`conflicteval.conflictqa.report.conflictqa_report`):

* ``memorization_ratio.<e>``: among the replies choosing the memory or the counter answer,
  the share choosing memory; per item 1 (memory), 0 (counter) or null (neither);
* ``share.<outcome>.<e>`` for ``memory``, ``counter``, ``uncertain``, ``unreadable``: the
  share of replies with that outcome; per item 1 or 0.

Questions left out before the experiments (a StrategyQA memory whose True/False cannot be read,
an elicited memory that cannot be read) are counted as not scored, by reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from conflicteval.conflictqa.metrics import OUTCOMES
from conflicteval.results.build import build_summary, counts_of, data_of, item_record, write_run
from conflicteval.results.contract import ItemRecord, Metric, ModelUse, RunSummary
from conflicteval.results.kinds import protocol_metric
from conflicteval.types import Usage

__all__ = ["write_conflictqa_run"]

_LEFT_OUT = {
    "polarity_unknown": "memory answer's True/False unreadable",
    "elicitation_unreadable": "elicited memory unreadable",
}


def _item_values(row: Mapping[str, Any], experiments: list[str]) -> dict[str, float | None]:
    values: dict[str, float | None] = {}
    for e in experiments:
        got = row.get(e)
        values[f"memorization_ratio.{e}"] = (
            1.0 if got == "memory" else 0.0 if got == "counter" else None
        )
        for o in OUTCOMES:
            values[f"share.{o}.{e}"] = None if got is None else float(got == o)
    return values


def write_conflictqa_run(
    out: str | os.PathLike[str],
    report: Mapping[str, Any],
    usage: Usage | None = None,
    **timing: Any,
) -> RunSummary:
    """Write the contract of the ConflictQA run in ``out`` from its ``report``."""
    experiments = list(report.get("experiments_scored", {}))
    items: list[ItemRecord] = [
        item_record(row["id"], "ok", values=_item_values(row, experiments))
        for row in report.get("items", [])
    ]
    left_out = {_LEFT_OUT.get(k, k): int(v) for k, v in report.get("left_out", {}).items() if v}
    status_counts = {"ok": len(items) + sum(left_out.values()), **report.get("failed", {})}
    metrics: list[Metric] = []
    for e, fig in report.get("experiments_scored", {}).items():
        mr = fig["memorization_ratio"]
        metrics.append(
            protocol_metric(
                f"memorization_ratio.{e}",
                f"memorization ratio ({e})",
                mr["value"],
                mr["ci"],
                mr["n"],
                "replies choosing the memory or the counter answer",
                items="binary",
            )
        )
        for o in OUTCOMES:
            share = fig["shares"][o]
            metrics.append(
                protocol_metric(
                    f"share.{o}.{e}",
                    f"share {o} ({e})",
                    share["value"],
                    share["ci"],
                    share["n"],
                    "replies",
                    items="binary",
                    lower_is_better=o == "unreadable",
                )
            )
    model = report.get("model")
    summary = build_summary(
        "conflictqa",
        counts=counts_of(status_counts, left_out),
        metrics=metrics,
        models=[ModelUse(role="answering", spec=str(model))] if model else [],
        usages=[("answering", usage)] if usage is not None else [],
        data=data_of(out, report.get("questions")),
        **timing,
    )
    write_run(out, summary, items)
    return summary
