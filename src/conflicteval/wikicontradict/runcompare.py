"""Comparing two WikiContradict runs cell by cell, each difference with its interval.

For every model × template × subset both reports hold, and every label (C, PC, IC,
failed), the difference of the two percentages (second run minus first) comes with a
percentile bootstrap 95 % interval: each run's items of the cell are resampled
independently (1,000 resamples, seed 0; :func:`conflicteval.stats.compare_means`).
The difference is called *larger than its interval* when that interval does not
contain 0 — otherwise the two runs cannot be told apart on this cell.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from conflicteval.wikicontradict.judge_template import VERDICTS
from conflicteval.wikicontradict.report import _SHORT, ReportCell, WikiContradictReport

__all__ = ["compare_runs", "run_comparison_markdown"]


def _indicator(count: int, n: int) -> np.ndarray:
    values = np.zeros(n)
    values[:count] = 1.0
    return values


def _count(cell: ReportCell, value: str) -> int:
    return cell.failed if value == "failed" else cell.count(value)  # type: ignore[arg-type]


def compare_runs(first: WikiContradictReport, second: WikiContradictReport) -> list[dict[str, Any]]:
    """One row per shared cell and label: both percentages, the difference and its interval."""
    from conflicteval.stats import compare_means

    other = {(c.model, c.template, c.subset): c for c in second.cells}
    rows = []
    for a in first.cells:
        b = other.get((a.model, a.template, a.subset))
        if b is None or not a.n or not b.n:
            continue
        for value in (*VERDICTS, "failed"):
            diff = compare_means(
                _indicator(_count(a, value), a.n), _indicator(_count(b, value), b.n)
            )
            rows.append(
                {
                    "model": a.model,
                    "template": a.template,
                    "subset": a.subset,
                    "label": value,
                    "first_pct": 100.0 * _count(a, value) / a.n,
                    "second_pct": 100.0 * _count(b, value) / b.n,
                    "difference_pct": 100.0 * diff["difference"],
                    "difference_ci": [100.0 * x for x in diff["difference_ci"]],
                    "larger_than_interval": diff["larger_than_interval"],
                }
            )
    return rows


def run_comparison_markdown(rows: list[dict[str, Any]]) -> str:
    """The comparison as Markdown: one line per row, marked when the difference is real."""
    lines = [
        "### Comparison with the second run (second minus first, percentage points)",
        "",
        "A difference is marked 'larger' when its 95% bootstrap interval excludes 0.",
        "",
        "| template | model | subset | label | first % | second % | difference [95% CI] | |",
        "| --- | --- | --- | --- | ---: | ---: | --- | --- |",
    ]
    for r in rows:
        low, high = r["difference_ci"]
        mark = "larger" if r["larger_than_interval"] else "within noise"
        lines.append(
            f"| {r['template']} | {r['model']} | {r['subset']} | "
            f"{_SHORT.get(r['label'], 'failed')} | {r['first_pct']:.1f} | {r['second_pct']:.1f} "
            f"| {r['difference_pct']:+.1f} [{low:+.1f}, {high:+.1f}] | {mark} |"
        )
    if not rows:
        lines.append("| – | – | – | – | – | – | no cell in both runs | |")
    return "\n".join(lines) + "\n"
