"""Concurrency limits: one semaphore per (base URL, model, limit) and event loop."""

from __future__ import annotations

import asyncio
import threading
import weakref

_semaphores: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str, int], asyncio.Semaphore]
] = weakref.WeakKeyDictionary()
_sem_lock = threading.Lock()


def _semaphore(base_url: str, model: str, limit: int) -> asyncio.Semaphore:
    """The semaphore shared by all calls to (base URL, model) with this limit on this loop."""
    loop = asyncio.get_running_loop()
    with _sem_lock:
        table = _semaphores.get(loop)
        if table is None:
            # A semaphore refers to its loop, so a dead loop's entry would never leave
            # this weak dictionary (nor the loop be collected): drop those first.
            for dead in [lp for lp in _semaphores if lp.is_closed()]:
                del _semaphores[dead]
            table = _semaphores.setdefault(loop, {})
        key = (base_url, model, limit)
        sem = table.get(key)
        if sem is None:
            sem = asyncio.Semaphore(limit)
            table[key] = sem
        return sem
