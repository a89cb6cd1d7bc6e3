"""A checkpoint file's records read one at a time: only each id's byte offset is held.

What the viewer and the protocols' reports read a finished run with, so a run of any size
is shown or scored with the memory of a few records (:class:`LazyRecords`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from conflicteval.runs.checkpoint import Record, iter_checkpoint, record_at

__all__ = ["LazyRecords"]


class LazyRecords(Sequence[Record]):
    """A checkpoint's records in file order (the later line of an id wins, in the place of
    its first), read one at a time from the file: only each id's byte offset is held.

    Args:
        path: The checkpoint (an absent file: no records).
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        offsets: dict[str, int] = {}
        for off, rec in iter_checkpoint(self.path):
            offsets[rec.id] = off
        self._offsets = array("q", offsets.values())

    def reorder(self, key: Callable[[str], Any]) -> None:
        """Put the records in the order of ``key(id)`` (stable), reading each id once."""
        keys = [key(rec.id) for rec in self]
        order = sorted(range(len(keys)), key=keys.__getitem__)
        self._offsets = array("q", (self._offsets[i] for i in order))

    def offsets_by_id(self) -> dict[str, int]:
        """Each record's byte offset by its id (one pass), for :meth:`at`: what joins another
        file's rows to these records without holding the records."""
        out: dict[str, int] = {}
        if not self._offsets:
            return out
        with self.path.open("rb") as fh:
            for off in self._offsets:
                out[record_at(fh, off).id] = off
        return out

    def at(self, offset: int) -> Record:
        """The record whose line starts at ``offset`` (from :meth:`offsets_by_id`)."""
        with self.path.open("rb") as fh:
            return record_at(fh, offset)

    def __len__(self) -> int:
        return len(self._offsets)

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...

    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        return self.at(self._offsets[index])

    def __iter__(self) -> Iterator[Record]:
        if not self._offsets:  # an absent (or empty) checkpoint: no records
            return
        with self.path.open("rb") as fh:
            for off in self._offsets:
                yield record_at(fh, off)

    def __repr__(self) -> str:
        return f"LazyRecords({str(self.path)!r}, {len(self)} records)"
