"""The index of a run's items on disk: ids in input order, fingerprints, where each record is.

:func:`~conflicteval.runs.runner.run_batch` keeps per item only what a run needs
to find it again: its id (checked unique), its input fingerprint, whether it was
resumed or finished in this run, and where its record is (the byte offset of its line
in the checkpoint, or, for a ``pending`` record that is never checkpointed, the record
itself). :class:`RunIndex` keeps all that in a scratch SQLite index
(:func:`conflicteval._diskindex.scratch_db`), so a run's memory does not grow with its
items; resuming reads the checkpoint once, line by line, into the index
(:meth:`RunIndex.scan_checkpoint`) instead of into memory.

States of an item: :data:`TODO` (still to run), :data:`RESUMED` (its checkpointed
record stands), :data:`FINISHED` (finished by this run).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from conflicteval._diskindex import CHUNK, pages, scratch_db
from conflicteval.runs.checkpoint import Record, iter_checkpoint, record_at

__all__ = ["FINISHED", "RESUMED", "TODO", "RunIndex"]

TODO, RESUMED, FINISHED = 0, 1, 2

_SCHEMA = (
    "CREATE TABLE items (pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, fp TEXT,"
    " state INTEGER NOT NULL DEFAULT 0, off INTEGER, pend TEXT)",
    "CREATE TABLE ck (id TEXT PRIMARY KEY, off INTEGER NOT NULL, status TEXT NOT NULL,"
    " inputs TEXT)",
)


class RunIndex:
    """A run's items on disk (see the module). Not durable: made again by every run."""

    def __init__(self) -> None:
        self.db = scratch_db()
        for sql in _SCHEMA:
            self.db.execute(sql)
        self.lock = threading.Lock()
        self.count = 0
        """Items added."""
        self.fingerprinted = False
        """Whether the items carry input fingerprints."""
        self._running: dict[str, tuple[int, str | None]] = {}  # handed out, not finished
        self._finished: list[tuple[int | None, str | None, int]] = []  # to write, in a batch

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        """The rows of a query, once the finishes noted so far are written."""
        with self.lock:
            self._flush()
            return self.db.execute(sql, args).fetchall()

    def _change(self, sql: str, args: tuple[Any, ...] = ()) -> int:
        """Run a change; how many rows it changed."""
        with self.lock:
            self._flush()
            return int(self.db.execute(sql, args).rowcount)

    def _flush(self) -> None:
        """Write the finishes noted so far (the caller holds the lock)."""
        if self._finished:
            sql = "UPDATE items SET state = 2, off = ?, pend = ? WHERE pos = ?"
            self.db.executemany(sql, self._finished)
            self._finished = []

    # ----------------------------------------------------------------- the items
    def add_items(
        self,
        items: Iterable[Any],
        key: Callable[[Any], Any],
        inputs: Callable[[Any], Any] | None,
    ) -> None:
        """One pass over ``items``: their ids (checked unique) and input fingerprints.

        Raises:
            ValueError: An id is given twice.
        """
        fingerprint: Callable[[Any], str] | None = None
        if inputs is not None:
            from conflicteval.fingerprint import input_fingerprint

            self.fingerprinted = True
            fingerprint = input_fingerprint
        last: list[str] = []

        def rows() -> Iterator[tuple[int, str, str | None]]:
            for pos, item in enumerate(items, start=self.count):
                item_id = str(key(item))
                last[:] = [item_id]
                yield pos, item_id, fingerprint(inputs(item)) if fingerprint else None  # type: ignore[misc]

        try:
            cur = self.db.executemany("INSERT INTO items (pos, id, fp) VALUES (?, ?, ?)", rows())
        except sqlite3.IntegrityError:  # the row that failed is the last one made
            raise ValueError(f"duplicate item id {last[0]!r} in batch") from None
        self.count += max(cur.rowcount, 0)

    def ids(self) -> Iterator[str]:
        """Every item's id, in input order."""
        for rows in self._chunks("SELECT pos, id FROM items WHERE pos > ? ORDER BY pos LIMIT ?"):
            yield from (r[1] for r in rows)

    def states(self) -> Iterator[tuple[str, int]]:
        """``(id, state)`` of every item, in input order; an item not resumed is handed out.

        An item handed out is one an executor runs: until it finishes, its position
        and fingerprint are kept at hand (a few: as many as are in flight).
        """
        sql = "SELECT pos, id, state, fp FROM items WHERE pos > ? ORDER BY pos LIMIT ?"
        running = self._running
        for rows in self._chunks(sql):
            for pos, item_id, state, fp in rows:
                if state == TODO:
                    running[item_id] = (pos, fp)
                yield item_id, state

    def _chunks(self, sql: str) -> Iterator[list[Any]]:
        """Rows of ``sql`` (its first column ``pos``, its parameters ``pos > ?, LIMIT ?``)."""
        return pages(self._rows, sql)

    def fingerprint(self, item_id: str) -> str | None:
        """The input fingerprint of item ``item_id`` (None: none, or not an item)."""
        if not self.fingerprinted:
            return None
        running = self._running.get(item_id)
        if running is not None:
            return running[1]
        rows = self._rows("SELECT fp FROM items WHERE id = ?", (item_id,))
        return rows[0][0] if rows else None

    def in_state(self, state: int) -> int:
        """How many items are in ``state``."""
        return int(self._rows("SELECT COUNT(*) FROM items WHERE state = ?", (state,))[0][0])

    # ----------------------------------------------------------------- the checkpoint
    def scan_checkpoint(self, path: Path) -> int:
        """Note where the last line of every id of the checkpoint is; how many ids it holds.

        The file is read line by line (never whole). A last line cut short by a kill
        is ignored (with a warning); any other unreadable line is an error naming the
        file and line, as :func:`~conflicteval.runs.checkpoint.read_checkpoint`.
        """
        if not path.exists():
            return 0
        upsert = (
            "INSERT INTO ck (id, off, status, inputs) VALUES (?, ?, ?, ?) ON CONFLICT (id) "
            "DO UPDATE SET off = excluded.off, status = excluded.status, inputs = excluded.inputs"
        )
        execute = self.db.execute
        for off, rec in iter_checkpoint(path):
            execute(upsert, (rec.id, off, rec.status, rec.inputs))
        return int(self._rows("SELECT COUNT(*) FROM ck")[0][0])

    def unmarked(self) -> tuple[int, str | None]:
        """Finished items of this run's that record no input fingerprint: how many, the first."""
        sql = (
            "SELECT i.id FROM items i JOIN ck c ON c.id = i.id "
            "WHERE i.fp IS NOT NULL AND c.inputs IS NULL ORDER BY i.pos"
        )
        first = self._rows(sql + " LIMIT 1")
        n = self._rows(f"SELECT COUNT(*) FROM ({sql})")[0][0]
        return int(n), (first[0][0] if first else None)

    def stamp(self, path: Path, write: Callable[[str], int]) -> None:
        """Write again, with this run's fingerprint, each checkpointed record that has none.

        In the checkpoint's order (of each id's first line); ``write`` appends a line and
        returns its offset. Used for an adopted checkpoint made before fingerprints.
        """
        sql = (
            "SELECT c.id, c.off, i.fp FROM ck c JOIN items i ON i.id = c.id "
            "WHERE c.inputs IS NULL AND i.fp IS NOT NULL ORDER BY c.rowid"
        )
        rows = self._rows(sql)  # only adopted records made before fingerprints
        with path.open("rb") as fh:
            for item_id, off, fp in rows:
                rec = record_at(fh, off)
                line = rec.model_copy(update={"inputs": fp}).model_dump_json()
                new = write(line)
                self._change("UPDATE ck SET off = ?, inputs = ? WHERE id = ?", (new, fp, item_id))

    def changed(self) -> int:
        """Checkpointed items of this run made from other inputs than this run's."""
        sql = (
            "SELECT COUNT(*) FROM items i JOIN ck c ON c.id = i.id "
            "WHERE i.fp IS NOT NULL AND c.inputs IS NOT NULL AND c.inputs != i.fp"
        )
        return int(self._rows(sql)[0][0])

    def resume(self, retry_failed: bool) -> int:
        """Mark the items whose checkpointed record stands as resumed; how many.

        A record stands when it was made from this run's inputs (or the run has no
        fingerprints), and, with ``retry_failed``, did not end ``model_error``.
        """
        stands = "c.id = items.id AND (items.fp IS NULL OR c.inputs = items.fp)"
        if retry_failed:
            stands += " AND c.status != 'model_error'"
        sql = (
            "UPDATE items SET state = 1, off = (SELECT c.off FROM ck c WHERE c.id = items.id) "
            f"WHERE EXISTS (SELECT 1 FROM ck c WHERE {stands})"
        )
        return self._change(sql)

    def resumed_records(self, path: Path) -> Iterator[Record]:
        """The records of the resumed items, in input order (read from the checkpoint)."""
        sql = "SELECT pos, off FROM items WHERE state = 1 AND pos > ? ORDER BY pos LIMIT ?"
        with path.open("rb") as fh:
            for rows in self._chunks(sql):
                for _, off in rows:
                    yield record_at(fh, off)

    # ----------------------------------------------------------------- finishing
    def finish(self, item_id: str, off: int | None, pending: str | None) -> bool:
        """Note where item ``item_id``'s record is; True the first time it finishes.

        A later record of the same item replaces the place (as a later checkpoint line
        does), but only the first counts as finishing it. Finishes are written in batches.
        """
        with self.lock:
            running = self._running.pop(item_id, None)
            if running is not None:
                self._finished.append((off, pending, running[0]))
                if len(self._finished) >= CHUNK:
                    self._flush()
                return True
        first = self._change(  # not handed out by states(): finished before, or not an item
            "UPDATE items SET state = 2, off = ?, pend = ? WHERE id = ? AND state = 0",
            (off, pending, item_id),
        )
        if not first:
            sql = "UPDATE items SET off = ?, pend = ? WHERE id = ? AND state = 2"
            self._change(sql, (off, pending, item_id))
        return bool(first)

    def unfinished(self) -> Iterator[str]:
        """Ids still to do, in input order (read in chunks: finishing them as they come is fine)."""
        sql = "SELECT pos, id FROM items WHERE state = 0 AND pos > ? ORDER BY pos LIMIT ?"
        for rows in self._chunks(sql):
            yield from (r[1] for r in rows)

    def places(self, start: int, stop: int) -> list[tuple[str, int | None, str | None]]:
        """``(id, offset, pending record)`` of the items at positions ``start <= pos < stop``."""
        sql = "SELECT id, off, pend FROM items WHERE pos >= ? AND pos < ? ORDER BY pos"
        return self._rows(sql, (start, stop))

    def held(self) -> int:
        """How many records the index holds itself (never checkpointed: ``pending`` ones)."""
        return int(self._rows("SELECT COUNT(*) FROM items WHERE pend IS NOT NULL")[0][0])

    def close(self) -> None:
        """Let go of the index (its file is removed)."""
        self.db.close()
