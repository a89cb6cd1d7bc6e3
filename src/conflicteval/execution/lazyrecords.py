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

The input side: :func:`item_ids` makes the one pass over the items that the
runner needs before it runs anything (ids, checked unique, and input
fingerprints), and :class:`PendingItems` feeds the items still to do to the
executor from :class:`~conflicteval.jsonio.LazyItems` (a JSON-lines file read
again), so the items of a run are never all in memory either.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
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


# --------------------------------------------------------------------------- the items of a run


def item_ids(
    items: Iterable[Any], key: Callable[[Any], Any], inputs: Callable[[Any], Any] | None
) -> tuple[list[str], dict[str, str] | None]:
    """One pass over ``items``: their ids (checked unique) and input fingerprints.

    Raises:
        ValueError: An id is given twice.
    """
    ids: list[str] = []
    seen: set[str] = set()
    fingerprints: dict[str, str] | None = None
    if inputs is not None:
        from conflicteval.identity import input_fingerprint

        fingerprints = {}
    for item in items:
        item_id = str(key(item))
        if item_id in seen:
            raise ValueError(f"duplicate item id {item_id!r} in batch")
        seen.add(item_id)
        ids.append(item_id)
        if fingerprints is not None:
            fingerprints[item_id] = input_fingerprint(inputs(item))  # type: ignore[misc]
    return ids, fingerprints


class PendingItems(Sequence[tuple[str, Any]]):
    """``(id, item)`` of the items a run still has to do, read from lazy items when iterated.

    Used by :func:`conflicteval.runner.run_batch` for
    :class:`~conflicteval.jsonio.LazyItems`: the items are read from their file
    as the executor takes them, so they are never all in memory. Each item's id
    is checked against the first pass's in order.

    Args:
        items: The lazy items (iterated once per pass over this sequence).
        ids: Every item's id, in input order (from :func:`item_ids`).
        todo: The ids still to do, in input order.
        key: Item → id.
    """

    def __init__(
        self, items: Iterable[Any], ids: list[str], todo: list[str], key: Callable[[Any], Any]
    ) -> None:
        self.items = items
        self.ids = ids
        self.todo = todo
        self.key = key

    def __len__(self) -> int:
        return len(self.todo)

    @overload
    def __getitem__(self, index: int) -> tuple[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> tuple[str, Any] | list[tuple[str, Any]]:
        pairs = list(self)  # not used by the executors, which iterate once
        return pairs[index]

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        if not self.todo:
            return
        wanted = set(self.todo)
        for expected, item in zip(self.ids, self.items, strict=True):
            item_id = str(self.key(item))
            if item_id != expected:
                raise ConflictEvalError(
                    f"item {item_id!r} is where {expected!r} was when the items were counted: "
                    "the input changed during the run"
                )
            if item_id in wanted:
                yield item_id, item

    def __repr__(self) -> str:
        return f"PendingItems({len(self)} of {len(self.ids)} items)"
