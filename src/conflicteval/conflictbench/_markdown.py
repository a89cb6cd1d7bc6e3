"""Markdown tables in the layout of the paper's result tables (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["figures_table", "interval_cell"]


def figures_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table: the first column left-aligned, the figures right-aligned.

    Args:
        header: The column titles.
        rows: The cells of each row. A row shorter than the header (a paper row
            without the counts) is padded with empty cells; an empty cell is written
            ``| |`` either way.
    """
    width = len(header)
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (width - 1)]
    for cells in rows:
        texts = [*(str(c) for c in cells), *([""] * (width - len(cells)))]
        lines.append("|" + "".join(f" {t} |" if t else " |" for t in texts))
    return "\n".join(lines)


def interval_cell(interval: Sequence[float] | None, digits: int, unit: str = "") -> str:
    """An interval as a table cell, ``[low, high]`` with ``unit`` after each end (``–`` when
    there is none)."""
    if interval is None:
        return "–"
    return f"[{interval[0]:.{digits}f}{unit}, {interval[1]:.{digits}f}{unit}]"
