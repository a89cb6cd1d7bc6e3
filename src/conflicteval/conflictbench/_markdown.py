"""Markdown tables in the layout of the paper's result tables (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from conflicteval.tables import markdown_table

__all__ = ["figures_table"]


def figures_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table: the first column left-aligned, the figures right-aligned.

    Args:
        header: The column titles.
        rows: The cells of each row. A row shorter than the header (a paper row
            without the counts) is padded with empty cells; an empty cell is written
            ``| |`` either way.
    """
    return markdown_table(header, rows)
