"""What a run keeps of its finished records as they come: counts, usage, and where they are.

:class:`Tally` counts every record once (the first one of an item counts), sums its
usage (all of the run's, and the calls made by this run), and notes where the record
is in the run's :class:`~conflicteval.runs.runindex.RunIndex`: its offset in the
checkpoint, or the record itself when it is never checkpointed (``pending``). With
``keep`` the records are also held in memory (the result is then a list); without,
the result reads them back from the checkpoint one at a time, and nothing the tally
holds grows with the items.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflicteval.runs.checkpoint import Record
from conflicteval.runs.results import BatchResult
from conflicteval.runs.runindex import RESUMED, RunIndex
from conflicteval.types import Usage

__all__ = ["Tally"]


class Tally:
    """A run's counts and usage, tallied record by record (see the module).

    Args:
        index: The run's index (where each record is goes there).
        keep: Hold every record in memory too.
    """

    def __init__(self, index: RunIndex, keep: bool) -> None:
        self.index = index
        self.keep = keep
        self.records: dict[str, Record] = {}  # only when kept
        self.counts: dict[str, int] = {}
        self.total = Usage()
        self.now = Usage()  # this run's calls (resumed records excluded)
        self.fresh = 0  # items finished by this run
        self.resumed_failed = 0  # failed items kept from the checkpoint (not run again)

    def _count(self, rec: Record) -> None:
        self.counts[rec.status] = self.counts.get(rec.status, 0) + 1
        self.total.add(rec.usage)

    def resume(self, path: Path | None) -> int:
        """Count the records resumed from the checkpoint, in input order; how many."""
        if path is None or not self.index.in_state(RESUMED):
            return 0
        n = 0
        for rec in self.index.resumed_records(path):
            if self.keep:
                self.records[rec.id] = rec
            self._count(rec)
            self.resumed_failed += rec.status in ("parse_error", "model_error")
            n += 1
        return n

    def add(self, rec: Record, off: int | None, line: str | None) -> None:
        """A record finished by this run: at ``off`` in the checkpoint, or held as ``line``.

        An item finished twice counts once (the first time); the later record is the
        one the result gives, as a later checkpoint line is the one a resume reads.
        """
        if self.keep:
            self.records[rec.id] = rec
            off = line = None  # the result is the list
        if not self.index.finish(rec.id, off, line):
            return
        self.fresh += 1
        self._count(rec)
        self.now.add(rec.usage)

    def result(self, path: Path | None, **fields: Any) -> BatchResult:
        """The run's result: its records (a list, or read from the checkpoint) and tallies."""
        if self.keep:
            records = [self.records[i] for i in self.index.ids()]
            return BatchResult(records=records, usage=self.now, **fields)
        from conflicteval.runs.lazyrecords import CheckpointRecords

        assert path is not None
        return BatchResult(
            records=CheckpointRecords(path, self.index),  # type: ignore[arg-type]
            usage=self.now,
            status_counts=self.counts,
            all_usage=self.total,
            **fields,
        )
