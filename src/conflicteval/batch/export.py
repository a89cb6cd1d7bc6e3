"""Batch export: run a block under the :class:`~conflicteval.models.answerers.Export` answerer
and write the calls it recorded to a batch request file.

Inside ``with batch_export("requests.jsonl") as exp:`` every model call the
cache cannot answer is recorded (once per ``custom_id``, its cache key) and
raises :class:`~conflicteval.errors.PendingCall`; the runner counts the item as
pending. Each request line is written as it is made (an
:class:`~conflicteval.batch.writer.ExportWriter`: split by the Batch
API's limits, one model per file); on leaving the block the files take their
names, the manifest is written beside them, and :attr:`BatchExport.result`
says what was written. Import the results with
:func:`conflicteval.batch.files.import_results` and run again: the
cache answers what the batch answered.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from conflicteval.batch import files as batchfile
from conflicteval.errors import ConflictEvalError, PendingCall
from conflicteval.models.answerers import Export, answer_with
from conflicteval.models.ledger import CallLedger

if TYPE_CHECKING:
    from conflicteval.batch.files import ExportResult

__all__ = ["BatchExport", "batch_export", "export_calls"]

T = TypeVar("T")


class BatchExport(CallLedger):
    """Batch export mode: cache misses become batch requests instead of calls.

    A :class:`~conflicteval.models.ledger.CallLedger` (cost lines; hits on
    ids an earlier round exported count as served by batch) with the
    :class:`~conflicteval.models.answerers.Export` answerer active.

    Args:
        path: The request file (JSONL). Larger exports are written as numbered
            files beside it (``requests.001.jsonl``, ...).
        max_requests: Requests per file (the Batch API's limit: 50,000).
        max_bytes: Bytes per file (the Batch API's limit: 200 MB).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_requests: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        self.path = Path(path)
        super().__init__(batchfile.known_ids(self.path))
        self.max_requests = max_requests or batchfile.MAX_REQUESTS
        self.max_bytes = max_bytes or batchfile.MAX_BYTES
        # each request line goes to disk as it is made (memory flat in the requests)
        self.writer = batchfile.ExportWriter(
            self.path, max_requests=self.max_requests, max_bytes=self.max_bytes
        )
        self.answerer = Export(str(self.path))
        self.answerer.sink = self.writer
        self.result: ExportResult | None = None
        self._answering = contextlib.ExitStack()  # the Export answerer while inside

    @property
    def problem(self) -> str | None:
        """Why a call could not be exported (None: every call could)."""
        return self.answerer.problem

    def __enter__(self) -> BatchExport:
        super().__enter__()
        self._answering.enter_context(answer_with(self.answerer))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._answering.__exit__(exc_type, exc, tb)
        super().__exit__(exc_type, exc, tb)
        if exc_type is None or (isinstance(exc_type, type) and issubclass(exc_type, PendingCall)):
            self.write()
        else:
            self.writer.abort()

    def write(self) -> ExportResult:
        """Name the written request files and write the manifest; done on leaving the block.

        Raises:
            ConflictEvalError: A call could not be exported (no cache, a provider
                that cannot write its requests as data); the round is thrown away.
        """
        self.note_exported(self.answerer.exported())
        if self.answerer.problem is not None:
            self.writer.abort()
            raise ConflictEvalError(self.answerer.problem)
        self.result = self.writer.close()
        return self.result


def batch_export(
    path: str | os.PathLike[str],
    *,
    max_requests: int | None = None,
    max_bytes: int | None = None,
) -> BatchExport:
    """Run workflows inside ``with batch_export("requests.jsonl") as exp:`` to export their calls.

    Calls the cache answers are replayed as usual; every other call is written
    to the request file and its item left pending. Import the results with
    :func:`conflicteval.batch.files.import_results` and run again.
    """
    return BatchExport(path, max_requests=max_requests, max_bytes=max_bytes)


def export_calls(
    fn: Callable[[], T], path: str | os.PathLike[str]
) -> tuple[T | None, ExportResult]:
    """Run ``fn()`` under batch export to ``path``: its result and what was exported.

    ``result.requests`` is how many requests wait for batch results (0: the
    cache answered every call and ``fn``'s result is complete). A
    :class:`~conflicteval.errors.PendingCall` that escapes ``fn`` (a call made
    outside the runner) gives None as the result.
    """
    exp = BatchExport(path)
    value: T | None = None
    with exp:
        try:
            value = fn()
        except PendingCall:
            value = None
    assert exp.result is not None
    return value, exp.result
