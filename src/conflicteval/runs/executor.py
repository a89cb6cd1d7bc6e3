"""Item executors: how a batch's pending items get their records, and which one runs them.

One module for the three parts of that seam: the :class:`Executor` protocol, the
:class:`LocalExecutor` (this process's event loop, the default) and
:func:`resolve_executor` (an executor chosen by name; ``--executor`` itself is a shared
option of the command line, ``conflicteval.cli.executor_options``). The other executor,
:mod:`~conflicteval.runs.ray` (Ray actors), is imported only when asked for by name.

Executors decide *where* items run; the active answerer (:mod:`conflicteval.models.answerers`)
decides how their model calls are answered. The two are independent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from conflicteval.runs.itemrun import Emit, finish_record, run_item

__all__ = ["EXECUTORS", "Emit", "Executor", "LocalExecutor", "resolve_executor"]

T = TypeVar("T")

EXECUTORS = ("local", "ray")
"""The executors :func:`resolve_executor` knows by name."""


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


class LocalExecutor:
    """Run items on the running event loop, at most ``concurrency`` at once (the default).

    A pool of ``concurrency`` asyncio workers takes items as they are needed and hands each
    finished record to the runner, which writes the checkpoint. Model calls are further
    bounded by each model's own concurrency limit. The items' tasks inherit the caller's
    context, so the active answerer (:mod:`conflicteval.models.answerers`) answers their calls.
    """

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


def resolve_executor(executor: Any = None) -> Any:
    """The executor object for ``None``, ``"local"``, ``"ray"`` or an executor object.

    Raises:
        ValueError: An unknown name, or an object without ``name`` and ``run``.
        MissingDependency: ``"ray"`` without the ``ray`` extra installed.
    """
    if executor is None or executor == "local":
        return LocalExecutor()
    if executor == "ray":
        from conflicteval.runs.ray import RayExecutor

        return RayExecutor()
    if isinstance(executor, str):
        raise ValueError(f"unknown executor {executor!r} (known: {', '.join(EXECUTORS)})")
    if not (isinstance(getattr(executor, "name", None), str) and callable(executor.run)):
        raise ValueError(
            "an executor needs a 'name' and an async 'run(fn, todo, *, concurrency, emit)'"
        )
    return executor
