"""The response cache: SQLite in WAL mode, keyed by what changes a model's answer.

Key = sha256 of the canonical JSON of provider, model, base URL, messages,
every sampling setting, the response schema and the prompt-template version.
The API key is never part of the key or the stored value. Only successful,
non-empty completions that were not cut off by the token limit are stored.
A damaged, read-only or full cache never fails a model call (see
:class:`ResponseCache`).
"""

from __future__ import annotations

import errno
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

from conflicteval.cache_values import value_problem
from conflicteval.errors import ConflictEvalError
from conflicteval.fingerprint import canonical_json, text_fingerprint

log = logging.getLogger("conflicteval.cache")

ENV_CACHE_DIR = "CONFLICTEVAL_CACHE_DIR"
DB_NAME = "responses.sqlite3"


def default_cache_dir() -> Path:
    """The cache directory: ``$CONFLICTEVAL_CACHE_DIR`` or the user cache dir."""
    env = os.environ.get(ENV_CACHE_DIR)
    if env:
        return Path(env).expanduser()
    return Path(user_cache_dir("conflicteval", appauthor=False))


def cache_key(components: dict[str, Any]) -> str:
    """The sha256 hex digest of the canonical JSON of ``components``."""
    text = canonical_json(components)
    digest = text_fingerprint(text)
    if log.isEnabledFor(logging.DEBUG):
        log.debug("cache key %s from %s", digest[:16], text[:2000])
    return digest


_INHERITED: list[sqlite3.Connection] = []  # connections a forked child must never use or close

_CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS responses ("
    "key TEXT PRIMARY KEY, model TEXT NOT NULL, value TEXT NOT NULL, created REAL NOT NULL)"
)


def _is_corrupt(exc: BaseException) -> bool:
    """Whether an SQLite error says the file is damaged or no database at all."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return (code & 0xFF) in _CORRUPT_CODES
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def _is_readonly(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


def _is_disk_full(exc: BaseException) -> bool:
    return "disk is full" in str(exc).lower() or getattr(exc, "errno", None) == errno.ENOSPC


_BUSY_TIMEOUT = 30.0  # seconds SQLite waits for another writer's lock
_BUSY_RETRIES = 5  # further tries when SQLite still answers "locked" / "busy"


def _retry_busy(action: Any) -> Any:
    """Run ``action()``; retry a few times, with a growing pause, while the database is busy.

    SQLite's busy timeout covers most waits, but some steps (switching to WAL,
    a checkpoint racing a new connection) answer SQLITE_BUSY at once; many
    processes writing one cache (a Ray run) meet that now and then.
    """
    for attempt in range(_BUSY_RETRIES + 1):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            message = str(exc).lower()
            if attempt == _BUSY_RETRIES or ("locked" not in message and "busy" not in message):
                raise
            time.sleep(0.05 * 2**attempt)
    raise AssertionError("unreachable")  # pragma: no cover


class ResponseCache:
    """A persistent cache of model completions in one SQLite file.

    Safe to share between threads of one process (one connection per thread)
    and between processes (WAL mode; writers wait for each other's locks and
    retry when SQLite still reports the database busy). Counts hits and
    misses. Pickled, it is its directory: unpickled in another process (a Ray
    worker) it opens the same file with a connection of its own.

    A cache is only an optimisation, so its own troubles never fail a call:

    * a damaged file (random bytes, cut short) is reported once with its path,
      moved aside as ``responses.sqlite3.corrupt-<time>`` and replaced by a
      fresh cache; if even that fails, the cache is switched off (``mode ==
      "off"``) with a warning;
    * a cache that cannot be written (a read-only directory) is read without
      writing (``mode == "read-only"``), with one warning;
    * a full disk skips the store with a warning; the reply is kept.

    Only a directory that cannot be a cache (the path is a file) is an error.

    Args:
        directory: Where ``responses.sqlite3`` lives; created when missing.

    Raises:
        ConflictEvalError: ``directory`` (or the file in it) is not usable as a
            cache directory, e.g. it is a file.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.path = self.directory / DB_NAME
        self.hits = 0
        self.misses = 0
        self.mode = "read-write"
        self._local = threading.local()
        self._lock = threading.Lock()
        self._generation = 0
        self._immutable = False
        self._warned: set[str] = set()
        self._prepare_directory()
        if self.mode != "off":
            self._open()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # by path: connections, counters and modes stay with their process
        return open_cache, (str(self.directory),)

    # -- opening -------------------------------------------------------------
    def _prepare_directory(self) -> None:
        if self.directory.exists() and not self.directory.is_dir():
            raise ConflictEvalError(
                f"{self.directory}: the cache directory is a file; "
                f"give a directory (cache=, --cache-dir or ${ENV_CACHE_DIR})"
            )
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError) as exc:
            raise ConflictEvalError(
                f"{self.directory}: cannot be a cache directory (a part of the path is a file)"
            ) from exc
        except OSError as exc:
            self._off(f"cannot create the cache directory ({exc.strerror or exc})")
            return
        if self.path.is_dir():
            raise ConflictEvalError(f"{self.path}: is a directory, not the cache's database file")

    def _open(self) -> None:
        """Open (and create) the database; fall back to reading only, or to a fresh file."""
        try:
            _retry_busy(lambda: self._connect().execute(_SCHEMA))
            return
        except sqlite3.DatabaseError as exc:
            error: sqlite3.DatabaseError = exc
        self._drop_connection()
        if _is_corrupt(error):
            self._recover(error)
        elif _is_readonly(error) and self.path.exists():
            self._read_only(error)
        else:
            self._off(f"cannot open it ({error})")

    def _read_only(self, reason: object) -> None:
        self._drop_connection()
        self.mode = "read-only"
        # A WAL database needs its shared-memory file beside it; where that cannot be
        # made, SQLite can still read the file as immutable (nothing else writing it).
        for immutable in (False, True):
            self._immutable = immutable
            self._generation += 1
            try:
                self._connect().execute("SELECT COUNT(*) FROM responses").fetchone()
                break
            except sqlite3.DatabaseError as exc:
                self._drop_connection()
                if _is_corrupt(exc):
                    self._off(f"it is damaged ({exc}) and cannot be moved aside (read-only)")
                    return
                if immutable:
                    self._off(f"cannot read it ({exc})")
                    return
        self._warn_once(
            "read-only",
            "%s: the cache cannot be written (%s); reading it without storing new replies",
            self.path,
            reason,
        )

    def _off(self, why: str) -> None:
        self.mode = "off"
        self._warn_once("off", "%s: %s; continuing without a cache", self.path, why)

    def _recover(self, error: BaseException) -> None:
        """Move a damaged file aside and start a fresh one (or switch the cache off)."""
        with self._lock:
            stale = getattr(self._local, "generation", self._generation) != self._generation
            self._drop_connection()
            if stale or self.mode == "off":
                return  # another thread has moved the damaged file aside already
            if self.mode == "read-only":
                self._off(f"it is damaged ({error}) and cannot be moved aside (read-only)")
                return
            stamp = time.strftime("%Y%m%d-%H%M%S")
            aside = self.path.with_name(f"{DB_NAME}.corrupt-{stamp}")
            try:
                for suffix in ("", "-wal", "-shm"):
                    part = self.path.with_name(DB_NAME + suffix)
                    if part.exists():
                        os.replace(part, aside.with_name(aside.name + suffix))
            except OSError as exc:
                self._off(f"it is damaged ({error}) and could not be moved aside ({exc})")
                return
            self._generation += 1
            log.warning(
                "%s: the cache file is damaged (%s); moved it to %s and starting a fresh cache",
                self.path,
                error,
                aside,
            )
            try:
                with self._connect() as conn:
                    conn.execute(_SCHEMA)
            except sqlite3.DatabaseError as exc:
                self._drop_connection()
                self._off(f"a fresh cache could not be created either ({exc})")

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) != os.getpid():
            # Inherited through fork(): SQLite forbids using it in the child, and closing
            # it there could disturb the parent's locks; keep it, untouched, and reconnect.
            _INHERITED.append(conn)
            conn = None
        if conn is not None and getattr(self._local, "generation", None) != self._generation:
            conn.close()  # opened on a file that was since moved aside, or in another mode
            conn = None
        if conn is None:
            if self.mode == "read-only":
                uri = self.path.resolve().as_uri() + (
                    "?immutable=1" if self._immutable else "?mode=ro"
                )
                conn = sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT, isolation_level=None)
            else:
                conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT, isolation_level=None)
            # kept before the PRAGMAs, so that one failing still lets the connection be closed
            self._local.conn = conn
            self._local.pid = os.getpid()
            self._local.generation = self._generation
            if self.mode != "read-only":
                fresh = conn
                _retry_busy(lambda: fresh.execute("PRAGMA journal_mode=WAL"))
                conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "pid", None) == os.getpid():
            conn.close()
        self._local.conn = None

    def _warn_once(self, kind: str, message: str, *args: object) -> None:
        if kind not in self._warned:
            self._warned.add(kind)
            log.warning(message, *args)

    def _trouble(self, exc: sqlite3.DatabaseError, doing: str) -> None:
        """Handle an error of a read or write: never raised to the caller."""
        if _is_corrupt(exc):
            self._recover(exc)
        elif doing == "store" and _is_readonly(exc) and self.mode == "read-write":
            self._read_only(exc)
        elif doing == "store" and _is_disk_full(exc):
            self._warn_once(
                "full",
                "%s: could not store a reply in the cache: no space left on the device; "
                "the reply is kept and finished items are safe, only the cache misses it",
                self.path,
            )
        else:
            self._warn_once(doing, "%s: could not %s the cache: %s", self.path, doing, exc)

    # -- use -----------------------------------------------------------------
    def get(self, key: str) -> dict[str, Any] | None:
        """The stored value for ``key``, or None (counted as a hit or a miss)."""
        row = None
        if self.mode != "off":
            try:
                row = _retry_busy(
                    lambda: (
                        self._connect()
                        .execute("SELECT value FROM responses WHERE key = ?", (key,))
                        .fetchone()
                    )
                )
            except sqlite3.DatabaseError as exc:
                self._trouble(exc, "read")
        value: Any = None
        if row is not None:
            try:
                value = json.loads(row[0])
            except (TypeError, ValueError, RecursionError):
                value = None  # a damaged entry is a miss; a good reply will replace it
        if value_problem(value) is not None:
            self.misses += 1  # a poisoned value (tokens not a count, ...) is a miss too
            return None
        self.hits += 1
        return value

    def peek(self, key: str) -> dict[str, Any] | None:
        """The stored value for ``key`` when it is a valid reply (not counted; None: none)."""
        hits, misses = self.hits, self.misses
        try:
            return self.get(key)
        finally:
            self.hits, self.misses = hits, misses

    def contains(self, key: str) -> bool:
        """Whether ``key`` is stored (not counted as a hit or miss)."""
        if self.mode == "off":
            return False
        try:
            row = (
                self._connect().execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone()
            )
        except sqlite3.DatabaseError as exc:
            self._trouble(exc, "read")
            return False
        return row is not None

    def put(self, key: str, model: str, value: dict[str, Any]) -> None:
        """Store ``value`` under ``key`` (replacing an older value); never raises.

        A value that is not a valid reply (see :func:`value_problem`) is not stored.
        """
        if self.mode != "read-write":
            return
        problem = value_problem(value)
        if problem is not None:
            self._warn_once("invalid", "%s: not storing an invalid reply: %s", self.path, problem)
            return
        for _ in range(2):  # once more on a fresh file after a damaged one was moved aside
            row = (key, model, canonical_json(value), time.time())
            try:
                _retry_busy(
                    lambda: self._connect().execute(
                        "INSERT OR REPLACE INTO responses (key, model, value, created) "
                        "VALUES (?, ?, ?, ?)",
                        row,  # noqa: B023 - called at once, inside this iteration
                    )
                )
                return
            except sqlite3.DatabaseError as exc:
                self._trouble(exc, "store")
                if not _is_corrupt(exc) or self.mode != "read-write":
                    return

    def put_many(self, rows: Iterable[tuple[str, str, dict[str, Any]]]) -> int:
        """Store many ``(key, model, value)`` rows in one transaction; returns how many.

        Rows whose value is not a valid reply (see :func:`value_problem`) are
        skipped. Like :meth:`put` it never raises for the cache's own troubles: a
        damaged file is moved aside and the rows go to a fresh one; a read-only or
        switched-off cache stores nothing (``mode`` says so) and 0 is returned.
        """
        now = time.time()
        data = [(k, m, canonical_json(v), now) for k, m, v in rows if value_problem(v) is None]
        for _ in range(2):  # once more on a fresh file after a damaged one was moved aside
            if self.mode != "read-write" or not data:
                return 0
            try:
                _retry_busy(lambda: self._store_rows(data))
                return len(data)
            except sqlite3.DatabaseError as exc:
                self._trouble(exc, "store")
                if not _is_corrupt(exc):
                    return 0
        return 0

    def _store_rows(self, data: list[tuple[str, str, str, float]]) -> None:
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

    def info(self) -> dict[str, Any]:
        """Path, mode, number of entries, entries per model and size on disk."""
        entries = 0
        per_model: dict[str, int] = {}
        for _ in range(2):  # once more on a fresh file after a damaged one was moved aside
            if self.mode == "off":
                break
            try:
                conn = self._connect()
                entries = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
                per_model = dict(
                    conn.execute("SELECT model, COUNT(*) FROM responses GROUP BY model").fetchall()
                )
                break
            except sqlite3.DatabaseError as exc:
                self._trouble(exc, "read")
                if not _is_corrupt(exc):
                    break
        parts = [self.path.with_name(DB_NAME + suffix) for suffix in ("", "-wal", "-shm")]
        size = sum(p.stat().st_size for p in parts if p.is_file())
        return {
            "path": str(self.path),
            "mode": self.mode,
            "entries": entries,
            "per_model": per_model,
            "size_bytes": size,
        }

    def clear(self, model: str | None = None) -> int:
        """Delete all entries (or one model's); returns how many were deleted.

        Raises:
            ConflictEvalError: The cache is read-only or off.
        """
        if self.mode != "read-write":
            raise ConflictEvalError(f"{self.path}: the cache is {self.mode}; nothing was deleted")
        conn = self._connect()
        try:
            if model is None:
                deleted = conn.execute("DELETE FROM responses").rowcount
            else:
                deleted = conn.execute("DELETE FROM responses WHERE model = ?", (model,)).rowcount
            conn.execute("VACUUM")
        except sqlite3.DatabaseError as exc:
            raise ConflictEvalError(f"{self.path}: could not clear the cache: {exc}") from exc
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
