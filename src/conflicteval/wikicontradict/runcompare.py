"""Comparing two WikiContradict runs cell by cell, item by item, each difference with its
interval and its paired test.

For every model × template × subset both reports hold, and every label (C, PC, IC,
failed), the rows give each run's percentage of the cell, and on the items both runs hold
(the same instance ids) the paired difference (second run minus first) with the paired
bootstrap 95 % interval, the exact McNemar p and Holm's adjustment across all rows
(:func:`conflicteval.results.compare.compare_values`, the function ``conflicteval compare``
uses). The difference is called *larger than its interval* when that interval does not
contain 0 — otherwise the two runs cannot be told apart on this cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conflicteval.tables import markdown_table
from conflicteval.wikicontradict.judge_template import VERDICTS
from conflicteval.wikicontradict.report import _SHORT, LabelledRow, WikiContradictReport

__all__ = ["compare_runs", "run_comparison_markdown"]


def _label(row: LabelledRow) -> str:
    return row.label if row.label is not None else "failed"


def _values(report: WikiContradictReport) -> dict[str, dict[str, float | None]]:
    """``{instance id: {cell-label key: 0/1}}`` of a report's rows (each row in its cells)."""
    out: dict[str, dict[str, float | None]] = {}
    for row in report.labelled:
        subsets = ["all"]
        if row.contradiction_type in ("explicit", "implicit"):
            subsets.append(row.contradiction_type)
        values = out.setdefault(row.instance_id, {})
        for subset in subsets:
            for value in (*VERDICTS, "failed"):
                key = f"{row.model}\t{row.template}\t{subset}\t{value}"
                values[key] = float(_label(row) == value)
    return out


def _count(cell: Any, value: str) -> int:
    return int(cell.failed if value == "failed" else cell.count(value))


def compare_runs(first: WikiContradictReport, second: WikiContradictReport) -> list[dict[str, Any]]:
    """One row per shared cell and label: both percentages, and on the shared items the
    paired difference, its interval, p (exact McNemar), p after Holm and the verdict."""
    from conflicteval.results.compare import compare_values
    from conflicteval.results.contract import Metric

    other = {(c.model, c.template, c.subset): c for c in second.cells}
    pairs = []
    for a in first.cells:
        b = other.get((a.model, a.template, a.subset))
        if b is None or not a.n or not b.n:
            continue
        for value in (*VERDICTS, "failed"):
            key = f"{a.model}\t{a.template}\t{a.subset}\t{value}"
            metric = Metric(
                id=key, name=key, value=None, n=0, n_counts="items",
                unit="percent", scale=100.0, items="binary",
            )  # fmt: skip
            pairs.append((a, b, value, metric))
    compared = compare_values([m for *_, m in pairs], _values(first), _values(second))
    rows = []
    for (a, b, value, _), c in zip(pairs, compared, strict=True):
        ci = c.ci
        rows.append(
            {
                "model": a.model,
                "template": a.template,
                "subset": a.subset,
                "label": value,
                "first_pct": 100.0 * _count(a, value) / a.n,
                "second_pct": 100.0 * _count(b, value) / b.n,
                "paired_n": c.n,
                "difference_pct": c.diff,
                "difference_ci": ci,
                "larger_than_interval": bool(ci is not None and (ci[0] > 0.0 or ci[1] < 0.0)),
                "p": c.p,
                "p_holm": c.p_holm,
                "test": c.test,
                "verdict": {"A higher": "first higher", "B higher": "second higher"}.get(
                    c.verdict, c.verdict
                ),
            }
        )
    return rows


def run_comparison_markdown(rows: list[dict[str, Any]]) -> str:
    """The comparison as Markdown: one line per row, marked when the difference is real."""
    lines = [
        "### Comparison with the second run (second minus first, percentage points)",
        "",
        "The difference is paired on the items both runs hold (n); it is marked 'larger' when "
        "its 95% paired bootstrap interval excludes 0. p: exact McNemar; p (Holm): adjusted "
        "across the rows.",
        "",
    ]
    table: list[Sequence[object]] = []
    for r in rows:
        if r["difference_pct"] is None:
            diff, mark, p, ph = "no shared item", "", "–", "–"
        else:
            low, high = r["difference_ci"]
            diff = f"{r['difference_pct']:+.1f} [{low:+.1f}, {high:+.1f}]"
            mark = "larger" if r["larger_than_interval"] else "within noise"
            p, ph = f"{r['p']:.4f}", f"{r['p_holm']:.4f}"
        table.append(
            [
                r["template"],
                r["model"],
                r["subset"],
                _SHORT.get(r["label"], "failed"),
                f"{r['first_pct']:.1f}",
                f"{r['second_pct']:.1f}",
                r["paired_n"],
                diff,
                p,
                ph,
                mark,
            ]
        )
    if not rows:
        table.append(["–"] * 7 + ["no cell in both runs", "–", "–", ""])
    head = ["template", "model", "subset", "label", "first %", "second %", "n"]
    head += ["difference [95% CI]", "p", "p (Holm)", ""]
    align = ["left"] * 4 + ["right"] * 3 + ["left", "right", "right", "left"]
    lines.append(markdown_table(head, table, align))
    return "\n".join(lines) + "\n"
