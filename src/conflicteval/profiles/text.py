"""The profile for people: one line per cell (the command's closing lines), the dry run's
table, and the comparison's lines. Every figure is read from the card or the runs' contracts.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from conflicteval.formatting import number
from conflicteval.results.contract import Metric, RunSummary
from conflicteval.tables import DEFAULT_WIDTH, render_table

from .runner import Cell

__all__ = ["card_lines", "compare_lines", "dry_run_lines", "metric_text"]


def metric_text(m: Metric) -> str:
    """``value [low, high] (n = N)``, or ``– (note)`` for a metric with no value."""
    if m.value is None:
        return f"– ({m.note or 'nothing measured'})"
    digits = 1 if m.scale != 1.0 else 3
    ci = "" if m.ci is None else f" [{m.ci[0]:.{digits}f}, {m.ci[1]:.{digits}f}]"
    unit = "%" if m.scale == 100 else ""
    return f"{m.value:.{digits}f}{unit}{ci} (n = {m.n})"


def _money(usd: float | None) -> str:
    from conflicteval.pricing import format_usd

    return "not priced" if usd is None else format_usd(usd)


def card_lines(card: RunSummary) -> list[str]:
    """The card: each cell with its metrics, money and time; the cells not run with their
    reason and what provides their data."""
    profile: dict[str, Any] = getattr(card, "profile", None) or {}
    lines = [f"profile ({profile.get('suite')}, size {profile.get('size')})"]
    for cell in profile.get("cells", []):
        head = f"{cell['model']}  {cell['benchmark']}"
        if not cell.get("metrics"):
            # the reason in a word where there is one (the whole reason is on the card)
            why = cell.get("category") or cell.get("reason") or cell["status"]
            lines.append(f"  {head}: {why}")
            if cell.get("provide"):
                lines.append(f"      provide the data: {cell['provide']}")
            continue
        took = cell.get("wall_s")
        lines.append(
            f"  {head}: {cell.get('contract_status')}, {_money(cell.get('cost_usd'))}"
            + (f", {took:g} s" if took is not None else "")
            + f"  ({cell['run']})"
        )
        for mid in cell["metrics"]:
            m = card.metric(mid)
            if m is not None:
                lines.append(f"      {mid:<44} {metric_text(m)}")
    c = card.cost
    priced = "" if c.usd is None else f"; list prices of {c.prices_as_of}"
    lines.append(
        f"cost: {_money(c.usd)} ({c.sent.calls} calls sent over the profile's runs, "
        f"{c.replayed.calls} replayed from the cache and never priced{priced})"
    )
    return lines


def dry_run_lines(cells: Sequence[Cell], *, wide: bool = False) -> list[str]:
    """A dry run, per cell: calls, calls to send, prompt tokens and the estimated money; a
    table fitted to :data:`~conflicteval.tables.DEFAULT_WIDTH` columns (``wide``: Markdown at
    its full width)."""
    head = ["model", "benchmark", "calls", "to send", "prompt tok", "est. USD", "note"]
    rows: list[list[object]] = []
    total: float | None = 0.0
    for cell in cells:
        d = cell.dry_run
        if d is None:
            rows.append([cell.model, cell.benchmark, "", "", "", "", f"not counted: {cell.reason}"])
            continue
        usd = d["usd"]
        total = None if total is None or usd is None else total + usd
        money = number(usd, 4, missing="no price")
        rows.append(
            [
                cell.model,
                cell.benchmark,
                d["calls"],
                d["to_send"],
                d["prompt_tokens"],
                money,
                cell.reason or "",
            ]
        )
    align = ["left", "left", "right", "right", "right", "right", "left"]
    lines = render_table(head, rows, align, markdown=wide).split("\n")
    total_line = (
        "total estimated: "
        + ("not priced (a model has no price)" if total is None else f"${total:.4f}")
        + " (prompts counted, completions at their max_tokens; calls that wait on earlier "
        "replies, as MADAM-RAG's later rounds, are not reached: a lower bound there); "
        "nothing was sent"
    )
    return [*lines, *([total_line] if wide else textwrap.wrap(total_line, DEFAULT_WIDTH))]


def compare_lines(comparison: dict[str, Any]) -> list[str]:
    """The paired comparison: one line per metric, p and Holm-adjusted p, the verdict."""
    lines = []
    for pair in comparison.get("pairs", []):
        lines.append(f"A = {pair['a']}, B = {pair['b']} (Holm across all cells)")
        for m in pair["metrics"]:
            if m["diff"] is None:
                lines.append(f"  {m['id']:<44} nothing to compare ({m['test']})")
                continue
            lines.append(
                f"  {m['id']:<44} n {m['n']:>4}  B - A {m['diff']:+.4g}  p {_p(m['p'])}  "
                f"p_holm {_p(m['p_holm'])}  {m['test']}: {m['verdict']}"
            )
        if pair.get("not_compared"):
            lines.append("  not compared (a run missing): " + ", ".join(pair["not_compared"]))
    return lines


def _p(p: float | None) -> str:
    return "–" if p is None else ("<1e-4" if p < 1e-4 else f"{p:.4f}")
