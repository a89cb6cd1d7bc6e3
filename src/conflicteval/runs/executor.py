"""The item executor protocol: how a batch's pending items get their records.

Item executors decide *where* items run (:mod:`~conflicteval.runs.local`:
this process's event loop; :mod:`~conflicteval.runs.ray`: Ray actors);
the active answerer (:mod:`conflicteval.models.answerers`) decides how their
model calls are answered. The two are independent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from conflicteval.runs.checkpoint import Record

__all__ = ["Emit", "Executor"]

Emit = Callable[[Record, str], None]
"""Called by an executor with each finished record and its checkpoint line."""


@runtime_checkable
class Executor(Protocol):
    """How a batch's pending items get their records.

    An executor runs ``fn`` on every ``(id, item)`` of ``todo`` and calls
    ``emit(record, line)`` once per item, as soon as it is finished (records from
    :func:`conflicteval.runs.itemrun.run_item` and
    :func:`~conflicteval.runs.itemrun.finish_record`, so failures are recorded
    exactly as locally). The runner owns everything else: the checkpoint, resume,
    progress and the result.

    Attributes:
        name: Recorded in the batch's result and summary.
    """

    name: str

    async def run(
        self,
        fn: Callable[[Any], Awaitable[Any]],
        todo: Sequence[tuple[str, Any]],
        *,
        concurrency: int,
        emit: Emit,
    ) -> None:
        """Compute the record of every pending item and emit it."""
        ...
