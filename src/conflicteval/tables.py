"""The one table writer: rows as a Markdown table, or as a plain text table fitted to a width.

Every table the library and the command line print goes through here. :func:`markdown_table`
writes the layout of the report files (``| a | b |`` rows under a ``|---|---:|`` rule; a ``|``
inside a cell is escaped as ``\\|``); :func:`text_table` writes the same rows for a terminal,
fitted to :data:`DEFAULT_WIDTH` columns; :func:`fit_text` turns a text holding Markdown tables
(a report as the library returns it) into its terminal form, table by table.

How a text table is fitted (a choice of this project; no paper prints to terminals):

* a column starts at its widest cell; while the table is wider than the width, the widest
  column that can still shrink gives up one character, and its cells wrap inside it (at spaces,
  a word longer than the column is broken);
* a figure is never cut: a cell without letters (``0.8123``, ``[0.44, 1.00]``, ``12,345``,
  ``–``), or with short words only (``EM 50.0 [9.5, 90.5]``, ``n/a``), keeps its whole width,
  and a column of figures never gets narrower than its widest;
* when even the narrowest columns do not fit, the columns are split into blocks printed one
  under the other, each repeating the first (label) column.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Sequence
from typing import Literal

__all__ = [
    "DEFAULT_WIDTH",
    "Align",
    "fit_text",
    "markdown_table",
    "parse_markdown_table",
    "render_table",
    "text_table",
]

DEFAULT_WIDTH = 100
"""The width a terminal table is fitted to unless told otherwise."""

Align = Literal["left", "right"]

_GAP = "  "  # between two columns of a text table
_FIGURE = re.compile(r"^[^A-Za-z]*$")  # no letters: a figure, an interval, a dash
_WORD_CAP = 16  # a text column may be narrowed to its longest word, but not below this


def _aligns(header: Sequence[str], align: Sequence[str] | None) -> list[Align]:
    if align is None:
        right: list[Align] = ["right"] * (len(header) - 1)
        return ["left", *right]
    if len(align) != len(header):
        raise ValueError(f"align has {len(align)} entries for {len(header)} columns")
    wrong = [a for a in align if a not in ("left", "right")]
    if wrong:
        raise ValueError(f"align must be 'left' or 'right', got {wrong[0]!r}")
    return ["right" if a == "right" else "left" for a in align]


def _rows(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[list[str]]:
    out = []
    for cells in rows:
        if len(cells) > len(header):
            raise ValueError(f"a row has {len(cells)} cells for {len(header)} columns")
        out.append([*(str(c) for c in cells), *([""] * (len(header) - len(cells)))])
    return out


def _escape(cell: str) -> str:
    return cell.replace("\\|", "|").replace("|", "\\|").replace("\n", " ")


def markdown_table(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    align: Sequence[str] | None = None,
) -> str:
    """A Markdown table (no trailing newline).

    Args:
        header: The column titles.
        rows: The cells of each row (``str()`` of each); a row shorter than the header is
            padded with empty cells, written ``| |``.
        align: Each column's alignment; by default the first column left and the others
            right (the layout of the papers' result tables).
    """
    aligns = _aligns(header, align)
    rule = "|" + "".join("---:|" if a == "right" else "---|" for a in aligns)
    lines = ["| " + " | ".join(_escape(h) for h in header) + " |", rule]
    for texts in _rows(header, rows):
        lines.append("|" + "".join(f" {_escape(t)} |" if t else " |" for t in texts))
    return "\n".join(lines)


def _is_figure(cell: str) -> bool:
    """A figure: no word with letters but short ones (``EM 0.0 [0.0, 56.1]``, ``n/a``)."""
    words = cell.split()
    return bool(words) and all(_FIGURE.match(w) or len(w) <= 3 for w in words)


def _min_width(title: str, cells: list[str], natural: int) -> int:
    figures = [len(c) for c in cells if _is_figure(c)]
    words = [len(w) for c in cells if not _is_figure(c) for w in c.split()]
    title_words = [len(w) for w in title.split()] or [0]
    floor = max(figures, default=0)
    text = min(max(words, default=0), _WORD_CAP)
    title_min = min(max(title_words), 12)
    return min(natural, max(floor, text, title_min, 1))


def _wrap(cell: str, width: int) -> list[str]:
    if len(cell) <= width:
        return [cell]
    return textwrap.wrap(cell, width, break_on_hyphens=False) or [""]


def _block(header: list[str], rows: list[list[str]], aligns: list[Align], widths: list[int]) -> str:
    def line(cells: list[str]) -> list[str]:
        wrapped = [_wrap(c, w) for c, w in zip(cells, widths, strict=True)]
        height = max(len(w) for w in wrapped)
        out = []
        for i in range(height):
            parts = []
            for lines, w, a in zip(wrapped, widths, aligns, strict=True):
                text = lines[i] if i < len(lines) else ""
                parts.append(text.rjust(w) if a == "right" else text.ljust(w))
            out.append(_GAP.join(parts).rstrip())
        return out

    out = line(header)
    out.append(_GAP.join("-" * w for w in widths))
    for row in rows:
        out += line(row)
    return "\n".join(out)


def text_table(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    align: Sequence[str] | None = None,
    width: int = DEFAULT_WIDTH,
) -> str:
    """The rows as a plain text table no wider than ``width`` columns (see the module's notes
    on how it is fitted: long cells wrap inside their column, figures are never cut, columns
    that cannot fit go to a further block repeating the first column)."""
    aligns = _aligns(header, align)
    head = [str(h) for h in header]
    body = _rows(head, rows)
    n = len(head)
    natural = [max([len(head[j]), *(len(r[j]) for r in body)]) for j in range(n)]
    least = [_min_width(head[j], [r[j] for r in body], natural[j]) for j in range(n)]

    def span(cols: list[int], ws: list[int]) -> int:
        return sum(ws[j] for j in cols) + len(_GAP) * (len(cols) - 1)

    # split into blocks of columns whose narrowest form fits, each repeating column 0
    blocks: list[list[int]] = [[0]]
    for j in range(1, n):
        if len(blocks[-1]) > 1 and span([*blocks[-1], j], least) > width:
            blocks.append([0])
        blocks[-1].append(j)
    out = []
    for cols in blocks:
        ws = {j: natural[j] for j in cols}
        while sum(ws.values()) + len(_GAP) * (len(cols) - 1) > width:
            shrinkable = [j for j in cols if ws[j] > least[j]]
            if not shrinkable:
                break
            widest = max(shrinkable, key=lambda j: (ws[j], -j))
            ws[widest] -= 1
        out.append(
            _block(
                [head[j] for j in cols],
                [[r[j] for j in cols] for r in body],
                [aligns[j] for j in cols],
                [ws[j] for j in cols],
            )
        )
    return "\n\n".join(out)


def render_table(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    align: Sequence[str] | None = None,
    *,
    markdown: bool = True,
    width: int = DEFAULT_WIDTH,
) -> str:
    """:func:`markdown_table` when ``markdown``, else :func:`text_table` fitted to ``width``."""
    if markdown:
        return markdown_table(header, rows, align)
    return text_table(header, rows, align, width)


_COMMAND = re.compile(r"(^|: )conflicteval [a-z]")  # a command to copy: never wrapped
_SPLIT = re.compile(r"(?<!\\)\|")
_RULE = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+$")


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:]
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return [c.strip().replace("\\|", "|") for c in _SPLIT.split(inner)]


def parse_markdown_table(
    lines: Sequence[str],
) -> tuple[list[str], list[list[str]], list[Align]] | None:
    """Header, rows and alignments of a Markdown table given as its lines (None when the lines
    are not one: a header row and a ``|---|`` rule first)."""
    if len(lines) < 2 or not _RULE.match(lines[1].strip()):
        return None
    header = _cells(lines[0])
    rule = _cells(lines[1])
    aligns: list[Align] = ["right" if r.endswith(":") else "left" for r in rule]
    if len(aligns) != len(header):
        return None
    rows = []
    for line in lines[2:]:
        cells = _cells(line)
        rows.append((cells + [""] * len(header))[: len(header)])
    return header, rows, aligns


def fit_text(text: str, width: int = DEFAULT_WIDTH) -> str:
    """``text`` for a terminal: each Markdown table in it becomes a :func:`text_table` fitted to
    ``width``, and each other line longer than ``width`` wraps at spaces (its indent kept, the
    continuation indented two more), except a line holding a command to copy
    (``...: conflicteval view RUN``) and a word longer than the width (a path), kept whole."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|"):
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            parsed = parse_markdown_table(lines[i:j])
            if parsed is not None:
                header, rows, aligns = parsed
                out += text_table(header, rows, aligns, width).split("\n")
                i = j
                continue
        line = lines[i]
        if len(line) > width and not _COMMAND.search(line):
            indent = line[: len(line) - len(line.lstrip())]
            out += textwrap.wrap(
                line.strip(),
                width,
                initial_indent=indent,
                subsequent_indent=indent + "  ",
                break_on_hyphens=False,
                break_long_words=False,  # a path or address stays whole, to copy
            ) or [line]
        else:
            out.append(line)
        i += 1
    return "\n".join(out)
