"""Scratch indexes on disk: per-item bookkeeping whose memory does not grow with the items.

A run or a batch export keeps a little per item (its id, where its record is, whether
it was seen). Held in Python sets and dicts that costs a few hundred bytes an item;
here it lives in a private temporary SQLite database instead (:func:`scratch_db`):
SQLite creates the file in the system's temporary folder and removes it when the
connection closes (or the process dies), and keeps at most :data:`CACHE_KIB` of its
pages in memory, spilling the rest to that file. Nothing here is durable: a scratch
index is rebuilt by every run.

:class:`IdSet` is a set of strings kept that way (a :class:`collections.abc.MutableSet`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, MutableSet
from typing import Any

__all__ = ["CACHE_KIB", "CHUNK", "IdSet", "pages", "scratch_db"]

CACHE_KIB = 4096
"""Memory each scratch index may use for its page cache (KiB)."""

CHUNK = 256
"""Rows read or written at a time."""


def scratch_db(cache_kib: int = CACHE_KIB) -> sqlite3.Connection:
    """A private temporary on-disk SQLite database (removed on close), in one open transaction.

    Autocommit is off at the Python level and one transaction stays open for the
    connection's life: nothing is ever rolled back or needs to survive, so no journal
    is kept and nothing is synced.
    """
    db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
    db.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
    db.execute("PRAGMA temp_store=FILE")
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    return db


def pages(query: Callable[[str, tuple[Any, ...]], list[Any]], sql: str) -> Iterator[list[Any]]:
    """The rows of ``sql``, :data:`CHUNK` at a time, by key (a table may change in between).

    ``sql``'s parameters are ``(after, limit)`` and its first column is the key it is
    ordered by; ``query(sql, args)`` runs it. The first page starts after -1: below every
    key used here (positions and sequence numbers from 0 up, and any text, which SQLite
    orders after every number).
    """
    last: Any = -1
    while True:
        rows = query(sql, (last, CHUNK))
        if not rows:
            return
        yield rows
        last = rows[-1][0]


class IdSet(MutableSet[str]):
    """A set of strings on disk (a scratch index): memory flat in its size.

    Args:
        values: Strings to start with.
        cache_kib: Memory for its page cache (KiB); a set that is mostly asked about
            ids it has not seen (a duplicate check) gains little from a large one.
    """

    def __init__(self, values: Iterable[str] = (), *, cache_kib: int = CACHE_KIB) -> None:
        self._db = scratch_db(cache_kib)
        self._db.execute("CREATE TABLE ids (id TEXT PRIMARY KEY) WITHOUT ROWID")
        self._lock = threading.Lock()
        self._len = 0
        self.update(values)

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        with self._lock:
            row = self._db.execute("SELECT 1 FROM ids WHERE id = ?", (value,)).fetchone()
        return row is not None

    def add(self, value: str) -> None:
        """Add ``value`` (nothing happens when it is there)."""
        self.insert(value)

    def insert(self, value: str) -> bool:
        """Add ``value``; True when it was not there before."""
        with self._lock:
            cur = self._db.execute("INSERT OR IGNORE INTO ids (id) VALUES (?)", (value,))
            added = cur.rowcount == 1
            self._len += added
        return added

    def update(self, values: Iterable[str]) -> None:
        """Add every string of ``values``."""
        chunk: list[tuple[str]] = []
        for value in values:
            chunk.append((value,))
            if len(chunk) >= CHUNK:
                self._insert_many(chunk)
                chunk = []
        if chunk:
            self._insert_many(chunk)

    def _insert_many(self, rows: list[tuple[str]]) -> None:
        with self._lock:
            cur = self._db.executemany("INSERT OR IGNORE INTO ids (id) VALUES (?)", rows)
            self._len += max(cur.rowcount, 0)

    def discard(self, value: str) -> None:
        """Remove ``value`` if it is there."""
        with self._lock:
            cur = self._db.execute("DELETE FROM ids WHERE id = ?", (value,))
            self._len -= cur.rowcount

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[str]:
        sql = "SELECT id FROM ids WHERE id > ? ORDER BY id LIMIT ?"
        for rows in pages(self._query, sql):
            yield from (r[0] for r in rows)

    def _query(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def __ior__(self, other: Any) -> IdSet:  # type: ignore[misc]
        self.update(other)
        return self

    def __repr__(self) -> str:
        return f"IdSet({len(self)} ids)"

    def close(self) -> None:
        """Let go of the index (its file is removed)."""
        self._db.close()
