"""A run's input file read one question at a time beside its records: what of each input the
page shows, kept only for the records made from exactly that input."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from conflicteval.runs import Record

from .common import input_file, stale_note
from .model import RunView

__all__ = ["shown_inputs"]

T = TypeVar("T")
S = TypeVar("S")


def shown_inputs(
    run: RunView,
    run_dir: Path,
    records: Iterable[Record],
    read: Callable[[Path], Iterable[T]],
    source_id: Callable[[T], str],
    inputs: Callable[[T], Any],
    keep: Callable[[T], S],
    *,
    what: str,
    without: str,
    shown: str,
) -> dict[str, S]:
    """``keep(source)`` by id of each source ``read`` gives from the run's input file
    (:func:`~conflicteval.view.common.input_file`) that a record was made from.

    As :func:`~conflicteval.view.common.current_sources`, but the sources are read one at a
    time and only the small part ``keep`` takes of each is held: the records' fingerprints
    by id are read in one pass first. A source whose ``inputs`` do not have its record's
    fingerprint (the ``what`` file edited since the run) is left out, with a note saying what
    is ``shown`` instead; a file ``read`` fails on gives none and a note saying what the page
    does ``without`` it.
    """
    from conflicteval.fingerprint import input_fingerprint

    source = input_file(run_dir)
    if source is None:
        return {}
    made = {rec.id: rec.inputs for rec in records}  # each record's fingerprint (a short text)
    out: dict[str, S] = {}
    edited = 0
    try:
        for item in read(source):
            sid = source_id(item)
            if sid not in made:
                continue
            try:
                current = made[sid] is not None and made[sid] == input_fingerprint(inputs(item))
            except (TypeError, ValueError):
                current = False
            if current:
                out[sid] = keep(item)
            else:
                edited += 1
    except Exception as exc:  # the run is still shown, without the input's texts
        run.notes.append(f"{what} {source} unreadable ({exc}): {without}")
        return {}
    stale_note(run, edited, what=what, shown=shown)
    return out
