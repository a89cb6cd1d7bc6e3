"""One checkpointed step of a workflow: :class:`Stage`.

Every workflow that runs a batch (generation, judging, scoring, detection, ...)
names the same things once: its checkpoint, the identity of what produces its
results, what each item's result is made from, and a progress label. A
``Stage`` holds them; :meth:`Stage.run` runs the items through
:func:`~conflicteval.runs.runner.run_batch` with the caller's
:class:`~conflicteval.runs.options.RunOptions` and returns its result.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from conflicteval.runs.options import RunOptions
from conflicteval.runs.results import BatchResult
from conflicteval.runs.runner import run_batch

T = TypeVar("T")

__all__ = ["Stage"]


@dataclass(frozen=True)
class Stage:
    """A step of a workflow: what it is called, where it keeps its records, what made them.

    Attributes:
        desc: The progress bar's label.
        checkpoint: The JSONL checkpoint (None: not resumable).
        identity: What produces the results (recorded beside the checkpoint and
            compared on resume; see ``identity`` of
            :func:`~conflicteval.runs.runner.run_batch`).
        inputs: Item → the inputs its result is made from (fingerprinted per record).
        key: Item → id (default: the item's ``id`` attribute or ``"id"`` key).
        keep_records: False (with a checkpoint): records are read back from the
            checkpoint when asked instead of held in memory.
    """

    desc: str
    checkpoint: str | os.PathLike[str] | None = None
    identity: dict[str, Any] | None = None
    inputs: Callable[[Any], Any] | None = None
    key: Callable[[Any], Any] | None = None
    keep_records: bool = True

    async def run(
        self,
        fn: Callable[[T], Awaitable[Any]],
        items: Iterable[T],
        options: RunOptions | None = None,
        **settings: Any,
    ) -> BatchResult:
        """Run ``fn`` over ``items``; one record per item, in input order.

        Args:
            fn: The async function of one item (see
                :func:`~conflicteval.runs.runner.run_batch`).
            items: The items (ids unique).
            options: The run settings (a workflow makes them of its ``**run``
                keywords with :meth:`RunOptions.of`).
            **settings: Run keywords on top of ``options`` (``concurrency``,
                ``progress``, ``restart``, ``retry_failed``, ``executor``); one
                that is set wins over ``options`` (see :meth:`RunOptions.combine`).
        """
        return await run_batch(
            fn,
            items,
            key=self.key,
            checkpoint=self.checkpoint,
            desc=self.desc,
            identity=self.identity,
            inputs=self.inputs,
            keep_records=self.keep_records,
            options=RunOptions.combine(options, **settings) if settings else options,
        )
