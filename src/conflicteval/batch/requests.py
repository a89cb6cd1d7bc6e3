"""The requests a batch import may answer, and what its result lines said of each.

``batch import`` (:func:`~conflicteval.batch.importer.import_results`) trusts a
reply only for a request the manifests list, and counts every result line once: it
needs, per exported request, its model and whether a line already answered it or
failed it. :class:`ExportedRequests` keeps that in a scratch index on disk
(:func:`conflicteval._diskindex.scratch_db`), so an import's memory does not grow with
its requests.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from conflicteval._diskindex import pages, scratch_db
from conflicteval.batch.manifest import iter_manifest, manifest_path
from conflicteval.errors import ConflictEvalError

__all__ = ["ExportedRequests"]


class ExportedRequests:
    """Every exported request (from the manifests) and what the result lines said of it.

    Kept in a scratch index on disk (:func:`conflicteval._diskindex.scratch_db`), so an
    import's memory does not grow with its requests: per ``custom_id`` its model and
    the model name its request sent (a round has a few such pairs, held here once),
    whether a good reply was chosen, and the first failure of those that failed.
    """

    CHOSEN, FAILED = 1, 2

    def __init__(self, manifests: Iterable[str | os.PathLike[str]]) -> None:
        self.db = scratch_db()
        self.db.execute(
            "CREATE TABLE req (id TEXT PRIMARY KEY, pair INTEGER NOT NULL, "
            "state INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID"
        )
        self.db.execute(
            "CREATE TABLE failure (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, reason TEXT)"
        )
        self.pairs: list[tuple[str, str]] = []
        self._load(manifests)

    def _load(self, manifests: Iterable[str | os.PathLike[str]]) -> None:
        """Read the manifests entry by entry (a later entry for an id wins)."""
        numbers: dict[tuple[str, str], int] = {}
        read: list[str] = []

        def rows() -> Iterator[tuple[str, int]]:
            for m in manifests:
                mp = Path(m)
                if not mp.name.endswith(".manifest.jsonl"):
                    mp = manifest_path(mp)
                if not mp.exists():
                    raise ConflictEvalError(f"{mp}: no such manifest (the export writes it)")
                if not mp.is_file():
                    raise ConflictEvalError(f"{mp}: not a manifest file (a directory?)")
                read.append(str(mp))
                for e in iter_manifest(mp):
                    pair = (e.model, e.sent_model)
                    number = numbers.get(pair)
                    if number is None:
                        number = numbers[pair] = len(self.pairs)
                        self.pairs.append(pair)
                    yield e.custom_id, number

        self.db.executemany("INSERT OR REPLACE INTO req (id, pair) VALUES (?, ?)", rows())
        if self.db.execute("SELECT 1 FROM req LIMIT 1").fetchone() is None:
            raise ConflictEvalError(
                f"{', '.join(read) or 'the manifests'}: no exported request listed (an empty "
                "or hand-edited manifest?)"
            )

    def get(self, custom_id: str) -> tuple[str, str, int] | None:
        """``(model, the model name sent, state)`` of an exported request; None: not one."""
        row = self.db.execute("SELECT pair, state FROM req WHERE id = ?", (custom_id,)).fetchone()
        if row is None:
            return None
        model, sent = self.pairs[row[0]]
        return model, sent, row[1]

    def mark(self, custom_id: str, state: int) -> None:
        """Note that the request was answered (:attr:`CHOSEN`) or failed (:attr:`FAILED`)."""
        sql = "UPDATE req SET state = state | ? WHERE id = ?"
        self.db.execute(sql, (state, custom_id))

    def fail(self, custom_id: str, reason: str) -> None:
        """The request's first failure (its reason), in the order failures come."""
        self.mark(custom_id, self.FAILED)
        self.db.execute("INSERT INTO failure (id, reason) VALUES (?, ?)", (custom_id, reason))

    def failures(self) -> Iterator[tuple[str, str, bool]]:
        """``(custom_id, reason, answered by another line)`` of each failed request, in order."""
        sql = (
            "SELECT f.seq, f.id, f.reason, r.state FROM failure f JOIN req r ON r.id = f.id "
            "WHERE f.seq > ? ORDER BY f.seq LIMIT ?"
        )
        for rows in pages(lambda q, args: self.db.execute(q, args).fetchall(), sql):
            for _, custom_id, reason, state in rows:
                yield custom_id, reason, bool(state & self.CHOSEN)

    def close(self) -> None:
        """Let go of the index (its file is removed)."""
        self.db.close()
