"""Running coroutines from synchronous code, also inside a running event loop.

All synchronous entry points (``generate_sync``, ``run_batch_sync``, ...) run
their coroutine on one background event loop in a daemon thread. That works
the same in a script and in a Jupyter notebook, whose own loop is already
running, and keeps HTTP clients bound to one long-lived loop.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

CANCEL_GRACE = 10.0
"""Seconds a Ctrl-C'd call waits for its coroutine to finish cleaning up."""

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


def _forget_after_fork() -> None:
    """In a forked child the parent's loop thread does not exist: start afresh."""
    global _loop, _lock
    _loop = None
    _lock = threading.Lock()  # the parent may have held it while forking


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


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
    finished = threading.Event()

    async def tracked() -> T:
        try:
            return await coro
        finally:
            finished.set()

    # A Ctrl-C must not fall between scheduling the coroutine and the handler below (the batch
    # would go on in the background, holding its checkpoint's lock): in the main thread SIGINT
    # is held back while it is scheduled, and the scheduling is inside the handler's reach.
    held = _hold_sigint()
    future = None
    try:
        future = asyncio.run_coroutine_threadsafe(tracked(), loop)
        _release_sigint(held)
        held = None
        return future.result()
    except KeyboardInterrupt:
        if future is not None:
            future.cancel()
            # Let the coroutine's own clean-up run (a batch releases its checkpoint's lock)
            # before the caller goes on; a second Ctrl-C stops waiting.
            finished.wait(CANCEL_GRACE)
        raise
    finally:
        _release_sigint(held)


def _hold_sigint() -> Any:
    """Block SIGINT for the main thread (the previous mask), or None where it cannot be."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not (
        threading.main_thread()
    ):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _release_sigint(previous: Any) -> None:
    """Restore the mask :func:`_hold_sigint` changed (a Ctrl-C held back arrives now)."""
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
