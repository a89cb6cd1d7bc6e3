"""The response cache: SQLite in WAL mode, keyed by what changes a model's answer.

Key = sha256 of the canonical JSON of provider, model, base URL, messages,
every sampling setting, the response schema and the prompt-template version.
The API key is never part of the key or the stored value. Only successful,
non-empty completions are stored.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

log = logging.getLogger("conflicteval.cache")

ENV_CACHE_DIR = "CONFLICTEVAL_CACHE_DIR"
DB_NAME = "responses.sqlite3"


def default_cache_dir() -> Path:
    """The cache directory: ``$CONFLICTEVAL_CACHE_DIR`` or the user cache dir."""
    env = os.environ.get(ENV_CACHE_DIR)
    if env:
        return Path(env).expanduser()
    return Path(user_cache_dir("conflicteval", appauthor=False))


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the same value gives the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(components: dict[str, Any]) -> str:
    """The sha256 hex digest of the canonical JSON of ``components``."""
    digest = hashlib.sha256(canonical_json(components).encode("utf-8")).hexdigest()
    if log.isEnabledFor(logging.DEBUG):
        log.debug("cache key %s from %s", digest[:16], canonical_json(components)[:2000])
    return digest


_INHERITED: list[sqlite3.Connection] = []  # connections a forked child must never use or close


class ResponseCache:
    """A persistent cache of model completions in one SQLite file.

    Safe to share between threads of one process (one connection per thread)
    and between processes (WAL mode). Counts hits and misses.

    Args:
        directory: Where ``responses.sqlite3`` lives; created when missing.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_NAME
        self.hits = 0
        self.misses = 0
        self._local = threading.local()
        with self._connect() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                "key TEXT PRIMARY KEY, model TEXT NOT NULL, value TEXT NOT NULL, "
                "created REAL NOT NULL)"
            )

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) != os.getpid():
            # Inherited through fork(): SQLite forbids using it in the child, and closing
            # it there could disturb the parent's locks; keep it, untouched, and reconnect.
            _INHERITED.append(conn)
            conn = None
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
            self._local.pid = os.getpid()
        return conn

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored value for ``key``, or None (counted as a hit or a miss)."""
        row = (
            self._connect().execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        )
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        value: dict[str, Any] = json.loads(row[0])
        return value

    def contains(self, key: str) -> bool:
        """Whether ``key`` is stored (not counted as a hit or miss)."""
        row = self._connect().execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone()
        return row is not None

    def put(self, key: str, model: str, value: dict[str, Any]) -> None:
        """Store ``value`` under ``key`` (replacing an older value)."""
        self._connect().execute(
            "INSERT OR REPLACE INTO responses (key, model, value, created) VALUES (?, ?, ?, ?)",
            (key, model, canonical_json(value), time.time()),
        )

    def put_many(self, rows: Iterable[tuple[str, str, dict[str, Any]]]) -> int:
        """Store many ``(key, model, value)`` rows in one transaction; returns the count."""
        now = time.time()
        data = [(k, m, canonical_json(v), now) for k, m, v in rows]
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO responses (key, model, value, created) VALUES (?, ?, ?, ?)",
                data,
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return len(data)

    def info(self) -> dict[str, Any]:
        """Path, number of entries, entries per model and size on disk."""
        conn = self._connect()
        entries = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        per_model = dict(
            conn.execute("SELECT model, COUNT(*) FROM responses GROUP BY model").fetchall()
        )
        size = sum(p.stat().st_size for p in self.directory.glob(DB_NAME + "*") if p.is_file())
        return {
            "path": str(self.path),
            "entries": entries,
            "per_model": per_model,
            "size_bytes": size,
        }

    def clear(self, model: str | None = None) -> int:
        """Delete all entries (or one model's); returns how many were deleted."""
        conn = self._connect()
        if model is None:
            deleted = conn.execute("DELETE FROM responses").rowcount
        else:
            deleted = conn.execute("DELETE FROM responses WHERE model = ?", (model,)).rowcount
        conn.execute("VACUUM")
        return int(deleted)

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            if getattr(self._local, "pid", None) == os.getpid():
                conn.close()
            else:
                _INHERITED.append(conn)
            self._local.conn = None


_OPEN: dict[str, ResponseCache] = {}
_OPEN_LOCK = threading.Lock()


def open_cache(directory: str | os.PathLike[str] | None = None) -> ResponseCache:
    """A shared ResponseCache object per directory (one per process)."""
    path = str(Path(directory) if directory is not None else default_cache_dir())
    with _OPEN_LOCK:
        cache = _OPEN.get(path)
        if cache is None:
            cache = ResponseCache(path)
            _OPEN[path] = cache
        return cache
