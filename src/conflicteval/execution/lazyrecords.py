"""The records of a finished run, read from its checkpoint when asked (constant memory).

:func:`conflicteval.runner.run_batch` with ``keep_records=False`` does not hold
the records of a run: each one is in the checkpoint the moment it finishes.
The run's :class:`~conflicteval.runner.BatchResult` then carries a
:class:`CheckpointRecords` as its ``records``: a read-only sequence in input
order that reads one record at a time from the checkpoint, so iterating over a
run of a million items needs the memory of one record. Records that are never
checkpointed (``pending`` ones, waiting for batch results) are held in memory.

The byte offset of every item's line is noted once, right after the run (a
pass over the file that decodes only each line's id), so the records read later
are the ones this run ended with even if the file is appended to afterwards.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from conflicteval.errors import ConflictEvalError
from conflicteval.execution.checkpoint import Record

_ID_PREFIX = b'{"id":'
_decoder = json.JSONDecoder()


def _line_id(line: bytes) -> str:
    """The id of one checkpoint line (a record's JSON starts with its id)."""
    if line.startswith(_ID_PREFIX):
        text = line[len(_ID_PREFIX) : len(_ID_PREFIX) + 4096].decode("utf-8", "surrogateescape")
        try:
            value, _ = _decoder.raw_decode(text)
            return str(value)
        except ValueError:
            pass
    return str(json.loads(line)["id"])  # any other layout: the whole line


def line_offsets(path: str | os.PathLike[str], wanted: set[str]) -> dict[str, int]:
    """Byte offset of the last line of each id in ``wanted`` (the line that counts)."""
    offsets: dict[str, int] = {}
    with Path(path).open("rb") as fh:
        pos = 0
        for line in fh:
            if line.strip() and line.endswith(b"\n"):
                item_id = _line_id(line)
                if item_id in wanted:
                    offsets[item_id] = pos
            pos += len(line)
    return offsets


class CheckpointRecords(Sequence[Record]):
    """A run's records in input order, read one at a time from its checkpoint.

    Args:
        path: The checkpoint file.
        ids: The item ids in input order.
        held: Records kept in memory (those never written to the checkpoint).
    """

    def __init__(self, path: str | os.PathLike[str], ids: list[str], held: dict[str, Record]):
        self.path = Path(path)
        self.ids = ids
        self.held = held
        self.offsets = line_offsets(self.path, set(ids) - set(held)) if self.path.exists() else {}
        missing = [i for i in ids if i not in held and i not in self.offsets]
        if missing:
            raise ConflictEvalError(
                f"{self.path}: {len(missing)} finished items are not in the checkpoint "
                f"(e.g. {missing[0]!r})"
            )

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[Record]: ...

    def __getitem__(self, index: int | slice) -> Record | list[Record]:
        if isinstance(index, slice):
            wanted = self.ids[index]
        else:
            wanted = [self.ids[index]]
        with self.path.open("rb") as fh:
            found = [self._read(fh, i) for i in wanted]
        return found if isinstance(index, slice) else found[0]

    def __iter__(self) -> Iterator[Record]:
        if not self.offsets:
            yield from (self.held[i] for i in self.ids)
            return
        with self.path.open("rb") as fh:
            for item_id in self.ids:
                yield self._read(fh, item_id)

    def _read(self, fh: Any, item_id: str) -> Record:
        rec = self.held.get(item_id)
        if rec is not None:
            return rec
        fh.seek(self.offsets[item_id])
        return Record.model_validate_json(fh.readline())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CheckpointRecords({str(self.path)!r}, {len(self)} records)"
