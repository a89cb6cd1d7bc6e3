"""The local executor: items run on this process's event loop (the default).

This is the runner as it always was: a pool of ``concurrency`` asyncio workers
takes items from a queue and hands each finished record to the runner, which
writes the checkpoint. Model calls are further bounded by each model's own
concurrency limit. The items' tasks inherit the caller's context, so the
active answerer (:mod:`conflicteval.models.answerers`) answers their calls.
The :class:`~conflicteval.runs.executor.Executor` protocol stays
importable from here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from conflicteval.runs.executor import Emit, Executor
from conflicteval.runs.itemrun import finish_record, run_item

T = TypeVar("T")

__all__ = ["Emit", "Executor", "LocalExecutor"]


class LocalExecutor:
    """Run items on the running event loop, at most ``concurrency`` at once."""

    name = "local"

    async def run(
        self,
        fn: Callable[[T], Awaitable[Any]],
        todo: Sequence[tuple[str, T]],
        *,
        concurrency: int,
        emit: Emit,
    ) -> None:
        """Run every pending item; emit each record as it finishes."""
        # one iterator shared by the workers, each taking the next item when it is free: the
        # items are taken as they are needed (a lazy ``todo`` is read as the run goes)
        pairs = iter(todo)

        async def worker() -> None:
            for item_id, item in pairs:
                emit(*finish_record(await run_item(fn, item_id, item)))

        workers = [asyncio.ensure_future(worker()) for _ in range(min(concurrency, len(todo)))]
        try:
            await asyncio.gather(*workers)
        finally:
            # gather does not stop the other workers when one fails: stop them before the
            # runner gives up the checkpoint's lock, so none goes on calling models and writing
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    def __repr__(self) -> str:
        return "LocalExecutor()"
