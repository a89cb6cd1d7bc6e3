"""What a run looks like to the viewer: one :class:`RunView` per run directory.

A kind's reader (:mod:`conflicteval.view.kinds`) fills a :class:`RunView`; the page
(:mod:`conflicteval.view.page`) draws it. Items are plain JSON dicts (they go into the page
as one JSON blob and are drawn by its script), with these keys, all optional but ``id`` and
``status``:

* ``id``, ``status`` (``ok`` / ``parse_error`` / ``model_error`` / ``pending``), ``error``
* ``facets``: ``{name: value}`` to filter on (template, source, verdict, model, ...)
* ``conflicted``: True / False / None (the "conflicted only" filter)
* ``value``: a short text compared across runs (a verdict, a score)
* ``key``: what matches the item across runs (default: ``id``; WikiContradict: template and
  instance, so runs of different models compare)
* ``title``, ``question``, ``response``, ``gold`` (list of answers), ``prompt``
* ``documents``: ``[{"id", "title", "text"}]``
* ``judge``: ``{"verdict", "comment"}`` (WikiContradict's judge)
* ``grid``: ``{"claims": [...], "docs": [ids], "cells": [[[label, snippet, reasoning,
  error], ...], ...]}`` with label ``S`` / ``C`` / ``I`` or None for a failed pair, and
  optionally ``"gold"``: the gold labels in the same shape (a cell that differs is marked)
* ``fields``: ``[[name, value], ...]`` further numbers and facts shown with the item
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from itertools import islice
from typing import Any, overload

__all__ = ["Chart", "Headline", "ItemStream", "RunView"]


class ItemStream(Sequence[dict[str, Any]]):
    """A run's items, made anew one at a time each time they are iterated (from the run's
    files, one record at a time): what lets the page be written with the memory of one item
    however many the run holds. A read-only sequence; ``len`` is known or counted once by
    one pass, and indexing walks the items up to the one asked for (for tests and a
    glance, not for loops).

    Args:
        make: Returns a fresh iterator over the items, in order.
        count: How many items ``make`` gives, when known.
    """

    def __init__(self, make: Callable[[], Iterator[dict[str, Any]]], count: int | None = None):
        self._make = make
        self._count = count

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._make())

    def __len__(self) -> int:
        if self._count is None:
            self._count = sum(1 for _ in self._make())
        return self._count

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        n = len(self)
        position = index + n if index < 0 else index
        if not 0 <= position < n:
            raise IndexError("item index out of range")
        return next(islice(self._make(), position, None))

    def __repr__(self) -> str:
        return f"ItemStream({len(self)} items)"


@dataclass
class Headline:
    """One headline number, with its interval when the run has one (else its n).

    Attributes:
        name: What it is ("mean CS-C", "macro-F1 (conflictingqa)").
        value: The number (None: undefined, said so).
        low: Lower end of its interval (e.g. a bootstrap ``*_ci``), when recorded.
        high: Upper end of its interval.
        n: The number of items it is computed over.
        percent: The value is a percentage (drawn with ``%``).
        note: A short remark (what the interval is, why undefined).
        unit: What ``n`` counts, the unit the interval resampled ("gold items"); "" when
            unnamed.
    """

    name: str
    value: float | None
    low: float | None = None
    high: float | None = None
    n: int | None = None
    percent: bool = False
    note: str = ""
    unit: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON (for the compare table): every field but the note."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "note"}


@dataclass
class Chart:
    """A drawn chart: its title (for the page's index) and its SVG text."""

    title: str
    svg: str


@dataclass
class RunView:
    """Everything the report shows about one run directory.

    Attributes:
        kind: The reader that read it (``conflictscore``, ``wikicontradict``, ...).
        kind_title: What the run is, for people ("ConflictScore run").
        path: The run directory.
        provenance: What produced it: ``[(what, value)]`` (models, labeler, prompt
            fingerprints, data files and sha256, settings).
        counts: Items per status plus ``total`` (and ``truncated`` replies).
        failures: The most common failure reasons: ``[(reason, count, example id)]``.
        usage: Tokens and calls (``prompt_tokens``, ``completion_tokens``, ``calls``,
            ``cached_calls``, ``truncated``) and ``cost`` (text) when priced.
        headlines: The run's headline numbers.
        charts: Drawn charts.
        items: Item dicts (see the module docstring): a list, or an :class:`ItemStream`
            that makes them from the run's files each time it is iterated.
        facets: The facet names the item filters offer, in order.
        dataset: The dataset's name, for chart subtitles.
        notes: Further sentences shown under the summary.
    """

    kind: str
    kind_title: str
    path: str
    provenance: list[tuple[str, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    failures: list[tuple[str, int, str]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    headlines: list[Headline] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    items: Sequence[dict[str, Any]] = field(default_factory=list)
    facets: list[str] = field(default_factory=list)
    dataset: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """A short name: the directory's last part."""
        from pathlib import Path

        return Path(self.path).name or self.path
