"""A ``clasheval run``'s contract (``summary.json``, kind ``clasheval``), from its report.

The metrics are the report's own baseline figures (:func:`conflicteval.clasheval.reproduce.
clasheval_report`), carried as they are with their intervals: ``accuracy``, ``context_bias``
and ``prior_bias`` over the kept (balanced) rows, the paper's released models' values beside
them (the notebook's Table 3, baseline). They are ratios of the balanced 2×2 table, not means of
one value per question, so their items hold no per-item value and ``compare`` lists them as not
compared; every question's record still gives its status.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from conflicteval.clasheval.data import MODELS
from conflicteval.clasheval.metrics import FIGURES
from conflicteval.clasheval.published import TABLE3
from conflicteval.results.build import build_summary, counts_of, data_of, item_record, write_run
from conflicteval.results.contract import Metric, ModelUse, RunSummary
from conflicteval.results.kinds import protocol_metric
from conflicteval.types import Usage

__all__ = ["write_clasheval_run"]

_NAMES = {"accuracy": "accuracy", "context_bias": "context bias", "prior_bias": "prior bias"}


def write_clasheval_run(
    out: str | os.PathLike[str],
    report: Mapping[str, Any],
    usage: Usage | None = None,
    **timing: Any,
) -> RunSummary:
    """Write the contract of the ClashEval run in ``out`` from its ``report``."""
    from conflicteval.ramdocs.report import run_records

    records = run_records(out)
    items = [item_record(r.id, r.status, error=r.error, calls=r.calls) for r in records]
    status_counts: dict[str, int] = {}
    for r in records:
        status_counts[r.status] = status_counts.get(r.status, 0) + 1
    base = (report.get("methods") or {}).get("baseline") or {}
    kept = int(report.get("kept_rows") or 0)
    metrics: list[Metric] = []
    for figure in FIGURES:
        fig = base.get(figure) or {}
        published = {
            f"Table 3 (baseline), {MODELS.get(m, m)}": methods["baseline"][figure]
            for m, methods in TABLE3.items()
        }
        metrics.append(
            protocol_metric(
                figure,
                _NAMES[figure],
                fig.get("value"),
                fig.get("ci"),
                kept,
                "kept (balanced) rows",
                lower_is_better=figure != "accuracy",
                published=published,
            )
        )
    model = report.get("model")
    summary = build_summary(
        "clasheval",
        counts=counts_of(status_counts),
        metrics=metrics,
        models=[ModelUse(role="answering", spec=str(model))] if model else [],
        usages=[("answering", usage)] if usage is not None else [],
        data=data_of(out, len(records)),
        **timing,
    )
    write_run(out, summary, items)
    return summary
