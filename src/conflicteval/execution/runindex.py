"""The index of a run's items on disk: ids in input order, fingerprints, where each record is.

:func:`~conflicteval.execution.runner.run_batch` keeps per item only what a run needs
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

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from conflicteval._diskindex import scratch_db
from conflicteval.errors import ConflictEvalError
from conflicteval.execution.checkpoint import Record

log = logging.getLogger("conflicteval.runner")

__all__ = ["FINISHED", "RESUMED", "TODO", "RunIndex"]

TODO, RESUMED, FINISHED = 0, 1, 2

_CHUNK = 256
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
            from conflicteval.identity import input_fingerprint

            self.fingerprinted = True
            fingerprint = input_fingerprint
        insert = "INSERT INTO items (pos, id, fp) VALUES (?, ?, ?)"
        execute = self.db.execute
        pos = self.count
        for item in items:
            item_id = str(key(item))
            fp = fingerprint(inputs(item)) if fingerprint is not None else None  # type: ignore[misc]
            try:
                execute(insert, (pos, item_id, fp))
            except sqlite3.IntegrityError:
                raise ValueError(f"duplicate item id {item_id!r} in batch") from None
            pos += 1
        self.count = pos

    def ids(self) -> Iterator[str]:
        """Every item's id, in input order."""
        for rows in self._chunks("SELECT pos, id FROM items WHERE pos > ? ORDER BY pos LIMIT ?"):
            yield from (r[1] for r in rows)

    def states(self) -> Iterator[tuple[str, int]]:
        """``(id, state)`` of every item, in input order."""
        sql = "SELECT pos, id, state FROM items WHERE pos > ? ORDER BY pos LIMIT ?"
        for rows in self._chunks(sql):
            yield from ((r[1], r[2]) for r in rows)

    def _chunks(self, sql: str, *args: Any) -> Iterator[list[Any]]:
        """Rows of ``sql`` (its first column ``pos``, its last parameters ``pos > ?, LIMIT ?``)."""
        last = -1
        while True:
            with self.lock:
                rows = self.db.execute(sql, (*args, last, _CHUNK)).fetchall()
            if not rows:
                return
            yield rows
            last = rows[-1][0]

    def fingerprint(self, item_id: str) -> str | None:
        """The input fingerprint of item ``item_id`` (None: none, or not an item)."""
        if not self.fingerprinted:
            return None
        with self.lock:
            row = self.db.execute("SELECT fp FROM items WHERE id = ?", (item_id,)).fetchone()
        return None if row is None else row[0]

    def in_state(self, state: int) -> int:
        """How many items are in ``state``."""
        with self.lock:
            sql = "SELECT COUNT(*) FROM items WHERE state = ?"
            return int(self.db.execute(sql, (state,)).fetchone()[0])

    # ----------------------------------------------------------------- the checkpoint
    def scan_checkpoint(self, path: Path) -> int:
        """Note where the last line of every id of the checkpoint is; how many ids it holds.

        The file is read line by line (never whole). A last line cut short by a kill
        is ignored (with a warning); any other unreadable line is an error naming the
        file and line, as :func:`~conflicteval.execution.checkpoint.read_checkpoint`.
        """
        if not path.exists():
            return 0
        upsert = (
            "INSERT INTO ck (id, off, status, inputs) VALUES (?, ?, ?, ?) ON CONFLICT (id) "
            "DO UPDATE SET off = excluded.off, status = excluded.status, inputs = excluded.inputs"
        )
        execute = self.db.execute
        validate = Record.model_validate_json
        with path.open("rb") as fh:
            pos = 0
            lineno = 0
            for raw in fh:
                lineno += 1
                off, pos = pos, pos + len(raw)
                line = raw.decode("utf-8", "surrogateescape")
                if not line.strip():
                    continue
                try:
                    rec = validate(line)
                except ValueError as exc:
                    if not line.endswith("\n"):  # only the last line can lack its newline
                        log.warning("%s: ignoring a partial last line (interrupted write)", path)
                        continue
                    raise ConflictEvalError(
                        f"{path}: line {lineno}: not a checkpoint record: {exc}"
                    ) from exc
                execute(upsert, (rec.id, off, rec.status, rec.inputs))
        with self.lock:
            return int(self.db.execute("SELECT COUNT(*) FROM ck").fetchone()[0])

    def unmarked(self) -> tuple[int, str | None]:
        """Finished items of this run's that record no input fingerprint: how many, the first."""
        sql = (
            "SELECT i.id FROM items i JOIN ck c ON c.id = i.id "
            "WHERE i.fp IS NOT NULL AND c.inputs IS NULL ORDER BY i.pos"
        )
        with self.lock:
            rows = self.db.execute(sql).fetchmany(1)
            n = self.db.execute(f"SELECT COUNT(*) FROM ({sql})").fetchone()[0]
        return int(n), (rows[0][0] if rows else None)

    def stamp(self, path: Path, write: Callable[[str], int]) -> None:
        """Write again, with this run's fingerprint, each checkpointed record that has none.

        In the checkpoint's order (of each id's first line); ``write`` appends a line and
        returns its offset. Used for an adopted checkpoint made before fingerprints.
        """
        sql = (
            "SELECT c.id, c.off, i.fp FROM ck c JOIN items i ON i.id = c.id "
            "WHERE c.inputs IS NULL AND i.fp IS NOT NULL ORDER BY c.rowid"
        )
        with self.lock:
            rows = self.db.execute(sql).fetchall()  # only adopted records (made before fps)
        with path.open("rb") as fh:
            for item_id, off, fp in rows:
                fh.seek(off)
                rec = Record.model_validate_json(fh.readline())
                line = rec.model_copy(update={"inputs": fp}).model_dump_json()
                new = write(line)
                with self.lock:
                    sql = "UPDATE ck SET off = ?, inputs = ? WHERE id = ?"
                    self.db.execute(sql, (new, fp, item_id))

    def changed(self) -> int:
        """Checkpointed items of this run made from other inputs than this run's."""
        sql = (
            "SELECT COUNT(*) FROM items i JOIN ck c ON c.id = i.id "
            "WHERE i.fp IS NOT NULL AND c.inputs IS NOT NULL AND c.inputs != i.fp"
        )
        with self.lock:
            return int(self.db.execute(sql).fetchone()[0])

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
        with self.lock:
            return self.db.execute(sql).rowcount

    def resumed_records(self, path: Path) -> Iterator[Record]:
        """The records of the resumed items, in input order (read from the checkpoint)."""
        sql = "SELECT pos, off FROM items WHERE state = 1 AND pos > ? ORDER BY pos LIMIT ?"
        with path.open("rb") as fh:
            for rows in self._chunks(sql):
                for _, off in rows:
                    fh.seek(off)
                    yield Record.model_validate_json(fh.readline())

    # ----------------------------------------------------------------- finishing
    def finish(self, item_id: str, off: int | None, pending: str | None) -> bool:
        """Note where item ``item_id``'s record is; True the first time it finishes.

        A later record of the same item replaces the place (as a later checkpoint line
        does), but only the first counts as finishing it.
        """
        with self.lock:
            first = self.db.execute(
                "UPDATE items SET state = 2, off = ?, pend = ? WHERE id = ? AND state = 0",
                (off, pending, item_id),
            ).rowcount
            if not first:
                sql = "UPDATE items SET off = ?, pend = ? WHERE id = ? AND state = 2"
                self.db.execute(sql, (off, pending, item_id))
        return bool(first)

    def unfinished(self) -> Iterator[str]:
        """Ids still to do, in input order (read in chunks: finishing them as they come is fine)."""
        sql = "SELECT pos, id FROM items WHERE state = 0 AND pos > ? ORDER BY pos LIMIT ?"
        for rows in self._chunks(sql):
            yield from (r[1] for r in rows)

    def places(self, start: int, stop: int) -> list[tuple[str, int | None, str | None]]:
        """``(id, offset, pending record)`` of the items at positions ``start <= pos < stop``."""
        with self.lock:
            rows = self.db.execute(
                "SELECT id, off, pend FROM items WHERE pos >= ? AND pos < ? ORDER BY pos",
                (start, stop),
            ).fetchall()
        return rows

    def note_places(self, path: Path) -> None:
        """Mark every item finished at the offset of its id's last line in checkpoint ``path``."""
        if self.scan_checkpoint(path):
            with self.lock:
                self.db.execute(
                    "UPDATE items SET state = 2, off = (SELECT c.off FROM ck c WHERE c.id = "
                    "items.id) WHERE EXISTS (SELECT 1 FROM ck c WHERE c.id = items.id)"
                )

    def hold(self, item_id: str, record: str) -> None:
        """Keep ``record`` (a JSON line) as item ``item_id``'s, in place of any checkpoint line."""
        with self.lock:
            sql = "UPDATE items SET state = 2, off = NULL, pend = ? WHERE id = ?"
            self.db.execute(sql, (record, item_id))

    def held(self) -> int:
        """How many records the index holds itself (never checkpointed: ``pending`` ones)."""
        with self.lock:
            sql = "SELECT COUNT(*) FROM items WHERE pend IS NOT NULL"
            return int(self.db.execute(sql).fetchone()[0])

    def close(self) -> None:
        """Let go of the index (its file is removed)."""
        self.db.close()
