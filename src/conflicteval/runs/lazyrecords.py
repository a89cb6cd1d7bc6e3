"""The records of a finished run, read from its checkpoint when asked (constant memory).

:func:`conflicteval.runs.run_batch` with ``keep_records=False`` does not hold
the records of a run: each one is in the checkpoint the moment it finishes.
The run's :class:`~conflicteval.runs.BatchResult` then carries a
:class:`CheckpointRecords` as its ``records``: a read-only sequence in input
order that reads one record at a time from the checkpoint, so iterating over a
run of a million items needs the memory of one record. Where each record is (the
byte offset of its line, noted as the run wrote or resumed it, so the records read
later are the ones this run ended with even if the file is appended to afterwards)
is in the run's index on disk (:class:`~conflicteval.runs.runindex.RunIndex`),
and so are the records that are never checkpointed (``pending`` ones, waiting for
batch results).

The input side: :class:`TodoItems` feeds the items still to do to the executor,
checking each one's id against the index's, from
:class:`~conflicteval.jsonio.LazyItems` (a JSON-lines file read again), so the items
of a run are never all in memory either.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from conflicteval._diskindex import CHUNK
from conflicteval.errors import ConflictEvalError
from conflicteval.runs.checkpoint import Record, record_at
from conflicteval.runs.runindex import FINISHED, RESUMED, RunIndex

__all__ = ["CheckpointRecords", "TodoItems"]


class CheckpointRecords(Sequence[Record]):
    """A run's records in input order, read one at a time from its checkpoint.

    Where each record is comes from the run's :class:`~conflicteval.runs.runindex.RunIndex`
    (on disk): the offset of its line in the checkpoint, or the record itself for one
    never checkpointed (``pending``).

    Args:
        path: The checkpoint file.
        index: The run's index (closed when this sequence is let go of).

    Raises:
        ConflictEvalError: A finished item has no line in the checkpoint.
    """

    def __init__(self, path: str | os.PathLike[str], index: RunIndex):
        self.path = Path(path)
        self.run_index = index
        self._finalizer = weakref.finalize(self, index.close)
        missing = index.count - index.in_state(FINISHED) - index.in_state(RESUMED)
        if missing:
            first = next(index.unfinished())
            raise ConflictEvalError(
                f"{self.path}: {missing} finished items are not in the checkpoint (e.g. {first!r})"
            )

    @property
    def held(self) -> int:
        """How many records are kept in the index itself (never checkpointed)."""
        return self.run_index.held()

    def __len__(self) -> int:
        return self.run_index.count

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...

    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        if isinstance(index, slice):
            positions = range(len(self))[index]
            return [self._one(p) for p in positions]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("record index out of range")
        return self._one(index)

    def _one(self, pos: int) -> Record:
        with self.path.open("rb") as fh:
            return _read(fh, self.run_index.places(pos, pos + 1)[0])

    def __iter__(self) -> Iterator[Record]:
        fh: Any = None
        try:
            for start in range(0, len(self), CHUNK):
                for place in self.run_index.places(start, start + CHUNK):
                    if fh is None and place[2] is None:
                        fh = self.path.open("rb")
                    yield _read(fh, place)
        finally:
            if fh is not None:
                fh.close()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CheckpointRecords({str(self.path)!r}, {len(self)} records)"


def _read(fh: Any, place: tuple[str, int | None, str | None]) -> Record:
    """The record at one place: held in the index, or at an offset of the checkpoint."""
    _, off, pending = place
    if pending is not None:
        return Record.model_validate_json(pending)
    assert off is not None  # a record not held in the index is in the checkpoint
    return record_at(fh, off)


# --------------------------------------------------------------------------- the items of a run


class TodoItems(Sequence[tuple[str, Any]]):
    """``(id, item)`` of the items a run still has to do, read from ``items`` when iterated.

    The ids and states come from the run's index (on disk); each item's id is checked
    against the index's, in order, so an input that changed during the run is refused.

    Args:
        items: The items (iterated once per pass over this sequence).
        index: The run's index.
        todo: How many items are still to do.
        key: Item → id.
    """

    def __init__(
        self, items: Iterable[Any], index: RunIndex, todo: int, key: Callable[[Any], Any]
    ) -> None:
        self.items = items
        self.run_index = index
        self.todo_count = todo
        self.key = key

    def __len__(self) -> int:
        return self.todo_count

    @overload
    def __getitem__(self, index: int) -> tuple[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> tuple[str, Any] | list[tuple[str, Any]]:
        pairs = list(self)  # not used by the executors, which iterate once
        return pairs[index]

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        if self.todo_count:
            yield from _todo_pairs(self.items, self.run_index.states(), self.key)

    def __repr__(self) -> str:
        return f"TodoItems({len(self)} of {self.run_index.count} items)"


def _todo_pairs(
    items: Iterable[Any], states: Iterable[tuple[str, int]], key: Callable[[Any], Any]
) -> Iterator[tuple[str, Any]]:
    """``(id, item)`` of the items not resumed, each id checked against the expected one."""
    for (expected, state), item in zip(states, items, strict=True):
        item_id = str(key(item))
        if item_id != expected:
            raise ConflictEvalError(
                f"item {item_id!r} is where {expected!r} was when the items were counted: "
                "the input changed during the run"
            )
        if state != RESUMED:
            yield item_id, item
