"""One page of the FEVEROUS Wikipedia dump: element text and context.

A page is a JSON object with ``title``, ``order`` (its element keys in page
order) and one key per element: ``sentence_N`` (a string), ``section_N``
(``{value, level}``), ``table_N`` (``{table: [[cell, ...], ...], type, caption?}``
with cells ``{id, value, is_header, row_span, column_span}``) and ``list_N``
(``{list: [{id, value, level, type?}], type}``).

Text resolution follows the official utilities: a cell or header cell gives
its value stripped, prefixed with ``[H] `` when it is a header; a list item
its value stripped; a table caption the table's caption (``""`` when it has
none); a sentence its text stripped; a section its value; the title the page
title. Cells are found **by id**, never by row/column arithmetic.

Context (see :meth:`WikiPage.context`): the title, the enclosing sections
from outermost to innermost, and for a data cell the nearest row headers
(leftwards) and column headers (upwards) in the span-expanded grid.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from conflicteval.errors import ConflictEvalError


class _Link:
    """A ``[[`` seen by :func:`strip_wiki_links` and not yet closed."""

    __slots__ = ("anchor", "depth", "raw", "target")

    def __init__(self) -> None:
        self.target: list[str] = []
        self.anchor: list[str] | None = None  # None until the "|" is seen
        self.raw: list[str] = ["[["]  # what to emit if the link is never closed
        self.depth = 0  # single "[" opened inside the link and not yet closed

    def add(self, text: str) -> None:
        (self.target if self.anchor is None else self.anchor).append(text)
        self.raw.append(text)


def strip_wiki_links(text: str) -> str:
    """Replace wiki-link markup by its visible text.

    ``[[Target|anchor]]`` becomes ``anchor`` and ``[[Target]]`` becomes ``Target``.
    The visible text may itself hold brackets. The IPA links of the FEVEROUS
    data open their anchor with ``[`` and let the link's own ``]]`` close both
    (``[[Russian|[ˈzapədʲnʲɪk]])`` becomes ``[ˈzapədʲnʲɪk])``); the balanced
    form with three closing brackets (``[[Russian|[ˈzapədʲnʲɪk]]]``) gives the
    same text. Other single brackets opened inside a link are matched before a
    ``]]`` closes it, and links nest (``[[A|see [[B|c]]]]`` becomes ``see c``).
    A run of closing brackets exactly one longer than the number of single
    brackets still open in the link is read as the two-bracket form; a longer
    run closes the single brackets first, then the link. A ``[[`` that is never
    closed is kept as written. One left-to-right scan, linear in the text.

    Args:
        text: Text as stored in the dump.

    Returns:
        The text without link markup.
    """
    if "[[" not in text:
        return text
    out: list[str] = []
    stack: list[_Link] = []
    i, n = 0, len(text)
    run_end = 0  # end of the run of "]" around i (found once per run: linear)
    while i < n:
        ch = text[i]
        top = stack[-1] if stack else None
        if ch == "]" and i >= run_end:
            run_end = _run_end(text, i)
        if ch == "[" and text.startswith("[[", i):
            stack.append(_Link())
            i += 2
            continue
        if top is None:
            out.append(ch)
        elif ch == "[":
            top.depth += 1
            top.add(ch)
        elif ch == "]" and top.depth > 0 and run_end - i == top.depth + 1:
            # The dump's IPA form: the link's own "]]" also closes the single
            # brackets its anchor opened ("[[Russian|[ˈzapədʲnʲɪk]]"). Each of
            # those brackets is kept in the visible text.
            top.add("]" * top.depth)
            i += top.depth + 1
            _close(stack, out)
            continue
        elif ch == "]" and top.depth > 0:
            top.depth -= 1
            top.add(ch)
        elif ch == "]" and text.startswith("]]", i):
            _close(stack, out)
            i += 2
            continue
        elif ch == "|" and top.anchor is None:
            top.anchor = []
            top.raw.append(ch)
        else:
            top.add(ch)
        i += 1
    # Links never closed: their text as written (inner closed links stripped);
    # each one started inside the one before it, so their raw texts follow in order.
    return "".join(out) + "".join("".join(link.raw) for link in stack)


def _run_end(text: str, start: int) -> int:
    """The index after the run of ``]`` that starts at ``start``."""
    end = start
    while end < len(text) and text[end] == "]":
        end += 1
    return end


def _close(stack: list[_Link], out: list[str]) -> None:
    """Close the innermost open link: its visible text goes to its parent (or ``out``)."""
    link = stack.pop()
    visible = "".join(link.anchor if link.anchor is not None else link.target)
    if stack:
        stack[-1].add(visible)
    else:
        out.append(visible)


class ElementNotFoundError(ConflictEvalError, LookupError):
    """A page or element is not in the database."""


@dataclass
class _Cell:
    id: str
    value: str
    is_header: bool
    table: str
    row: int = 0  # top-left position in the span-expanded grid
    col: int = 0


@dataclass
class _Table:
    key: str
    caption: str
    grid: dict[tuple[int, int], str] = field(default_factory=dict)
    n_rows: int = 0


def _span(value: object) -> int:
    try:
        return max(1, int(value))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 1


class WikiPage:
    """A parsed page of the FEVEROUS Wikipedia dump.

    Args:
        data: The page JSON (as stored in the ``data`` column).
        title: The title to report when ``data`` has none.

    Element ids here are *local* (``"cell_0_1_2"``, ``"sentence_3"``,
    ``"title"``); :class:`~conflicteval.feverous.wikidb.WikiDB` adds the page.
    """

    def __init__(self, data: Mapping[str, Any], title: str | None = None) -> None:
        self.data = data
        self.title: str = str(data.get("title") or title or "")
        order = data.get("order")
        self.order: list[str] = (
            [str(k) for k in order]
            if isinstance(order, list)
            else [k for k in data if k not in ("title", "order")]
        )
        self._cells: dict[str, _Cell] | None = None
        self._tables: dict[str, _Table] = {}
        self._items: dict[str, tuple[str, str]] = {}  # item id -> (list key, value)

    # -- lookup -----------------------------------------------------------

    def text(self, local_id: str) -> str:
        """The text of one element by the official rules (wiki links kept).

        Args:
            local_id: ``"sentence_N"``, ``"cell_T_R_C"``, ``"header_cell_T_R_C"``,
                ``"table_caption_T"``, ``"item_L_K"``, ``"section_N"`` or ``"title"``.

        Raises:
            ElementNotFoundError: The element is not on this page.
        """
        if local_id == "title":
            return self.title
        if local_id.startswith(("cell_", "header_cell_")):
            cell = self._cell(local_id)
            value = cell.value.strip()
            return f"[H] {value}" if cell.is_header else value
        if local_id.startswith("item_"):
            return self._item(local_id)[1].strip()
        if local_id.startswith("table_caption_"):
            table = self.data.get("table_" + local_id[len("table_caption_") :])
            if not isinstance(table, Mapping):
                raise self._missing(local_id)
            return str(table.get("caption") or "")
        raw = self.data.get(local_id)
        if local_id.startswith("sentence_") and isinstance(raw, str):
            return raw.strip()
        if local_id.startswith("section_") and isinstance(raw, Mapping):
            return str(raw.get("value", ""))
        raise self._missing(local_id)

    def __contains__(self, local_id: object) -> bool:
        if not isinstance(local_id, str):
            return False
        try:
            self.text(local_id)
        except ElementNotFoundError:
            return False
        return True

    def element_ids(self) -> list[str]:
        """Every addressable element id of the page, in page order.

        Tables contribute their cells row by row and then their caption (when
        they have one); lists contribute their items.
        """
        out: list[str] = []
        for key in self.order:
            value = self.data.get(key)
            if key.startswith("table_") and isinstance(value, Mapping):
                for row in value.get("table") or []:
                    out.extend(str(c["id"]) for c in row if isinstance(c, Mapping) and "id" in c)
                if value.get("caption"):
                    out.append("table_caption_" + key[len("table_") :])
            elif key.startswith("list_") and isinstance(value, Mapping):
                out.extend(str(i["id"]) for i in value.get("list") or [] if isinstance(i, Mapping))
            elif key in self.data:
                out.append(key)
        return out

    # -- context ----------------------------------------------------------

    def context(self, local_id: str) -> list[str]:
        """Context ids of an element: title, sections, then row and column headers.

        * Every element except the title gets ``"title"`` first, then its
          enclosing sections from outermost to innermost (walking back in page
          order and keeping each section of a strictly higher rank).
        * A data cell then gets its nearest row headers (the contiguous run of
          header cells met first when walking left from it) and its nearest
          column headers (the same, walking up), in the span-expanded grid,
          starting from the cell's top-left position. Header cells get no
          header context.

        Raises:
            ElementNotFoundError: The element is not on this page.
        """
        if local_id == "title":
            return []
        if local_id.startswith(("cell_", "header_cell_")):
            cell = self._cell(local_id)
            out = ["title", *self._sections_before(cell.table)]
            if not cell.is_header:
                out += self._headers(cell, dr=0, dc=-1) + self._headers(cell, dr=-1, dc=0)
            return out
        if local_id.startswith("item_"):
            return ["title", *self._sections_before(self._item(local_id)[0])]
        if local_id.startswith("table_caption_"):
            key = "table_" + local_id[len("table_caption_") :]
            if key not in self.data:
                raise self._missing(local_id)
            return ["title", *self._sections_before(key)]
        if local_id not in self.data or not local_id.startswith(("sentence_", "section_")):
            raise self._missing(local_id)
        return ["title", *self._sections_before(local_id)]

    def _sections_before(self, key: str) -> list[str]:
        try:
            position = self.order.index(key)
        except ValueError:
            return []
        limit = self._level(key) if key.startswith("section_") else None
        found: list[str] = []
        for prev in reversed(self.order[:position]):
            if not prev.startswith("section_"):
                continue
            level = self._level(prev)
            if level is None:
                continue
            if limit is None or level < limit:
                found.append(prev)
                limit = level
        return list(reversed(found))

    def _level(self, key: str) -> float | None:
        value = self.data.get(key)
        if not isinstance(value, Mapping):
            return None
        try:
            return float(value.get("level", 0))
        except (TypeError, ValueError):
            return None

    def _headers(self, cell: _Cell, dr: int, dc: int) -> list[str]:
        table = self._tables[cell.table]
        found: list[str] = []
        r, c = cell.row + dr, cell.col + dc
        while r >= 0 and c >= 0:
            other_id = table.grid.get((r, c))
            r, c = r + dr, c + dc
            if other_id is None or other_id == cell.id:
                continue
            other = self._cells_index()[other_id]
            if other.is_header:
                if other_id not in found:
                    found.append(other_id)
            elif found:
                break
        return found

    # -- indexes ----------------------------------------------------------

    def _missing(self, local_id: str) -> ElementNotFoundError:
        return ElementNotFoundError(f"{local_id!r} not found on page {self.title!r}")

    def _cell(self, local_id: str) -> _Cell:
        cell = self._cells_index().get(local_id)
        if cell is None:
            raise self._missing(local_id)
        return cell

    def _cells_index(self) -> dict[str, _Cell]:
        if self._cells is None:
            self._cells = {}
            for key, value in self.data.items():
                if key.startswith("table_") and isinstance(value, Mapping):
                    self._index_table(key, value)
        return self._cells

    def _index_table(self, key: str, value: Mapping[str, Any]) -> None:
        assert self._cells is not None
        rows = [row for row in value.get("table") or [] if isinstance(row, list)]
        table = _Table(key=key, caption=str(value.get("caption") or ""), n_rows=len(rows))
        self._tables[key] = table
        for r, row in enumerate(rows):
            c = 0
            for raw in row:
                if not isinstance(raw, Mapping) or "id" not in raw:
                    continue
                while (r, c) in table.grid:
                    c += 1
                cell = _Cell(
                    id=str(raw["id"]),
                    value=str(raw.get("value") or ""),
                    is_header=bool(raw.get("is_header")),
                    table=key,
                    row=r,
                    col=c,
                )
                self._cells.setdefault(cell.id, cell)
                width = _span(raw.get("column_span"))
                for dr in range(min(_span(raw.get("row_span")), len(rows) - r)):
                    for dc in range(width):
                        table.grid.setdefault((r + dr, c + dc), cell.id)
                c += width

    def _item(self, local_id: str) -> tuple[str, str]:
        if not self._items:
            for key, value in self.data.items():
                if key.startswith("list_") and isinstance(value, Mapping):
                    for item in value.get("list") or []:
                        if isinstance(item, Mapping) and "id" in item:
                            self._items.setdefault(
                                str(item["id"]), (key, str(item.get("value") or ""))
                            )
        found = self._items.get(local_id)
        if found is None:
            raise self._missing(local_id)
        return found
