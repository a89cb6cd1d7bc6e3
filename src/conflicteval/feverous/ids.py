"""FEVEROUS element ids: ``<Page title>_<type>_<numbers>``.

An element id names one piece of a Wikipedia page: ``Page_sentence_N``,
``Page_cell_T_R_C``, ``Page_header_cell_T_R_C``, ``Page_table_caption_T``,
``Page_item_L_K``, and, in context lists, ``Page_section_N`` and ``Page_title``.

Page titles use spaces, yet a few contain ``_`` themselves, so an id is split
on its **type token, searched from the right**, never on the first ``_``.
The official scorer works on ``[page, type, position]`` triples where
``position`` is the numbers joined with ``_`` (``""`` for a title);
:func:`to_triple` and :func:`from_triple` convert.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from conflicteval.errors import ConflictEvalError

ELEMENT_TYPES: dict[str, int] = {
    "sentence": 1,
    "cell": 3,
    "header_cell": 3,
    "table_caption": 1,
    "item": 2,
    "section": 1,
    "title": 0,
}
"""Every element type and how many numbers its position has."""

CELL_TYPES: frozenset[str] = frozenset({"cell", "header_cell", "table_caption", "item"})
"""Types that share the scorer's table budget (25); every other type shares the sentence budget."""

# One pattern per type: the type token followed by exactly as many numbers as
# the type has, anchored at the end. Two-word types are tried first so that
# "X_header_cell_0_1_2" is a header cell of page "X", not a cell of "X_header".
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (
        etype,
        re.compile(rf"(?P<page>.+)_{etype}(?P<pos>{'(?:_[0-9]+)' * arity})", re.DOTALL),
    )
    for etype, arity in sorted(ELEMENT_TYPES.items(), key=lambda kv: -len(kv[0]))
)


class ElementIdError(ConflictEvalError, ValueError):
    """A string is not a FEVEROUS element id (or a triple is malformed)."""


class ElementId(NamedTuple):
    """One parsed element id.

    Being a tuple of three strings, an ``ElementId`` *is* an official
    ``(page, type, position)`` triple (it equals the tuple, not a list).

    Attributes:
        page: The page title, exactly as in the id (no normalisation).
        type: One of :data:`ELEMENT_TYPES`.
        position: The numbers joined with ``_`` (``"1_19_0"``), ``""`` for a title.
    """

    page: str
    type: str
    position: str

    @property
    def numbers(self) -> tuple[int, ...]:
        """The position as integers: ``(table, row, column)`` for a cell, ``()`` for a title."""
        return tuple(int(part) for part in self.position.split("_")) if self.position else ()

    @property
    def local_id(self) -> str:
        """The id inside its page, as used as a key of the page JSON (``"cell_0_1_2"``)."""
        return f"{self.type}_{self.position}" if self.position else self.type

    @property
    def is_cell_budget(self) -> bool:
        """True when the scorer counts this element against the table budget."""
        return self.type in CELL_TYPES

    def __str__(self) -> str:
        return format_element_id(self)


def parse_element_id(element_id: str) -> ElementId:
    """Split an element id into page, type and position.

    The type token is searched from the right, so a page title that contains
    ``_`` (even one that looks like a type token) is kept whole::

        >>> parse_element_id("Korean Air_cell_1_19_0")
        ElementId(page='Korean Air', type='cell', position='1_19_0')
        >>> parse_element_id("A_sentence_2_sentence_0").page
        'A_sentence_2'

    Args:
        element_id: An id such as ``"Page_sentence_3"``.

    Returns:
        The parsed :class:`ElementId`.

    Raises:
        ElementIdError: When no known type token with the right count of
            numbers ends the string, or the page part is empty.
    """
    if not isinstance(element_id, str):
        raise ElementIdError(f"element id must be a string, got {type(element_id).__name__}")
    for etype, pattern in _PATTERNS:
        match = pattern.fullmatch(element_id)
        if match is not None:
            return ElementId(match["page"], etype, match["pos"][1:])
    raise ElementIdError(f"not a FEVEROUS element id: {element_id!r}")


def format_element_id(element: ElementId | Sequence[str]) -> str:
    """Write an element (or a ``[page, type, position]`` triple) back as an id string.

    Args:
        element: An :class:`ElementId` or a triple of strings.

    Returns:
        ``"Page_type_position"`` (``"Page_title"`` for a title).

    Raises:
        ElementIdError: When the triple is malformed.
    """
    page, etype, pos = _check_triple(element)
    return f"{page}_{etype}_{pos}" if pos else f"{page}_{etype}"


def to_triple(element_id: str | ElementId | Sequence[str]) -> list[str]:
    """Convert an id string (or triple) to the official scorer's ``[page, type, position]``.

    Args:
        element_id: An id string, an :class:`ElementId` or a triple.

    Returns:
        A new list of three strings.
    """
    if isinstance(element_id, str):
        return list(parse_element_id(element_id))
    return list(_check_triple(element_id))


def from_triple(triple: Sequence[str]) -> ElementId:
    """Convert an official ``[page, type, position]`` triple to an :class:`ElementId`.

    The triple is taken as given (no re-parsing), so ids of unknown types
    still round-trip through :func:`format_element_id`.

    Raises:
        ElementIdError: When ``triple`` is not three strings.
    """
    return ElementId(*_check_triple(triple))


def as_element(value: str | ElementId | Sequence[str]) -> ElementId:
    """Accept an id string, an :class:`ElementId` or a triple and return an :class:`ElementId`."""
    if isinstance(value, ElementId):
        return value
    if isinstance(value, str):
        return parse_element_id(value)
    return from_triple(value)


def _check_triple(value: object) -> tuple[str, str, str]:
    if isinstance(value, ElementId):
        return (value.page, value.type, value.position)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ElementIdError(f"expected a [page, type, position] triple, got {value!r}")
    if len(value) != 3 or not all(isinstance(part, str) for part in value):
        raise ElementIdError(
            f"expected a [page, type, position] triple of strings, got {list(value)!r}"
        )
    return (value[0], value[1], value[2])
