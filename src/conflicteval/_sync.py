"""Running coroutines from synchronous code, also inside a running event loop.

All synchronous entry points (``generate_sync``, ``run_batch_sync``, ...) run
their coroutine on one background event loop in a daemon thread. That works
the same in a script and in a Jupyter notebook, whose own loop is already
running, and keeps HTTP clients bound to one long-lived loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="conflicteval-sync", daemon=True
            )
            thread.start()
            _loop = loop
        return _loop


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result, from any thread.

    Raises whatever the coroutine raises. Must not be called from the
    background loop's own thread (that would deadlock).
    """
    loop = _background_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coro.close()
        raise RuntimeError("run_sync called from conflicteval's own event loop; await instead")
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    try:
        return future.result()
    except KeyboardInterrupt:
        future.cancel()
        raise
