"""The bound on one item as a whole (``item_timeout``), picklable for the Ray executor."""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from conflicteval.runs.itemrun import ItemTimeout

T = TypeVar("T")

__all__ = ["bounded_items", "check_item_timeout"]


def check_item_timeout(seconds: float | None) -> float | None:
    """The bound to apply: None for no bound (``None`` or ``math.inf``).

    Raises:
        ValueError: Not a positive number of seconds.
    """
    if seconds is not None and not seconds > 0:
        raise ValueError("item_timeout must be a positive number of seconds or None")
    return None if seconds == math.inf else seconds


def bounded_items(
    fn: Callable[[T], Awaitable[Any]], seconds: float | None
) -> Callable[[T], Awaitable[Any]]:
    """``fn`` stopped after ``seconds`` per item (itself when None: no bound)."""
    bound = check_item_timeout(seconds)
    if bound is None:
        return fn
    return functools.partial(_bounded_call, fn, bound)


def _read_outcome(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _bounded(work: Awaitable[Any], seconds: float | None) -> Any:
    """Await ``work``, stopping it after ``seconds`` (None: no bound)."""
    if seconds is None:
        return await work
    loop = asyncio.get_running_loop()
    start = loop.time()
    task = asyncio.ensure_future(work)
    # If the batch is cancelled just as the item fails, wait_for leaves the
    # item's exception unread; reading it here keeps asyncio from logging it.
    task.add_done_callback(_read_outcome)
    try:
        return await asyncio.wait_for(task, seconds)
    except asyncio.TimeoutError:
        if loop.time() - start < seconds:
            raise  # raised by the item itself, not by its bound
        raise ItemTimeout(f"item timed out: not finished within {seconds:g}s") from None


async def _bounded_call(fn: Callable[[T], Awaitable[Any]], seconds: float, item: T) -> Any:
    return await _bounded(fn(item), seconds)
