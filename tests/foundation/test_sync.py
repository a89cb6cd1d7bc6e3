"""The synchronous entry points and the cache across ``fork`` (multiprocessing on POSIX)."""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from conflicteval._sync import run_sync
from conflicteval.cache import ResponseCache

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform == "darwin", reason="needs the fork start method"
)


async def _answer() -> int:
    return 42


def _child_runs_sync(queue: Any) -> None:
    queue.put(run_sync(_answer()))


def test_run_sync_works_in_a_child_forked_after_it_was_used() -> None:
    assert run_sync(_answer()) == 42  # the parent's background loop now exists
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_runs_sync, args=(queue,))
    child.start()
    child.join(120)  # guards against a hang only: generous on a loaded machine
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("run_sync hung in a forked child (the parent's loop thread is not there)")
    assert child.exitcode == 0
    assert queue.get(timeout=60) == 42


def _child_uses_cache(cache: ResponseCache, parent_conn: int, queue: Any) -> None:
    conn = cache._connect()
    value = cache.get("k")
    cache.put("from-child", "m", {"text": "child"})
    queue.put((id(conn) != parent_conn, value))


def test_a_forked_child_opens_its_own_sqlite_connection(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put("k", "m", {"text": "parent"})
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_uses_cache, args=(cache, id(cache._connect()), queue))
    child.start()
    child.join(120)  # guards against a hang only: generous on a loaded machine
    assert child.exitcode == 0
    own_connection, value = queue.get(timeout=60)
    # SQLite: a connection must not be carried across fork() and used in the child
    assert own_connection
    assert value == {"text": "parent"}
    assert cache.get("from-child") == {"text": "child"}


def test_after_ctrl_c_a_sync_batch_has_let_go_of_its_checkpoint(tmp_path: Path) -> None:
    import asyncio
    import signal
    import threading

    from conflicteval.runs import run_batch_sync

    running = threading.Event()

    async def work(item: str) -> str:
        running.set()
        try:
            await asyncio.sleep(600)  # only the Ctrl-C ends it, however late it comes
        except asyncio.CancelledError:
            await asyncio.sleep(0.3)  # an item's own clean-up on cancellation (closing a stream)
            raise
        return item

    main = threading.main_thread().ident
    assert main is not None

    def ctrl_c_once_running() -> None:  # not after a fixed time: the batch may start late
        if running.wait(300):
            # To the main thread, as a terminal's Ctrl-C reaches it: os.kill(getpid()) from
            # this thread let the kernel pick any thread of the process, and when it picked
            # another one the main thread's wait was never interrupted (a loaded-suite run
            # then slept the full 600 s)
            signal.pthread_kill(main, signal.SIGINT)

    ck = tmp_path / "ck.jsonl"
    # Python's own handler, as a terminal user's process has it: a library another test drove
    # in this process may have left a handler of its own, which turned the Ctrl-C into
    # something else once in a loaded suite run (the run then slept its full 600 s)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            presser = threading.Thread(target=ctrl_c_once_running)
            presser.start()
            run_batch_sync(work, ["a", "b"], key=str, checkpoint=ck, progress=False)
        presser.join()
    finally:
        signal.signal(signal.SIGINT, previous)

    async def quick(item: str) -> str:
        return item

    # re-running at once (the notebook user's reflex) must not find the checkpoint still locked
    again = run_batch_sync(quick, ["a", "b"], key=str, checkpoint=ck, progress=False)
    assert again.counts["ok"] == 2


def test_a_ctrl_c_right_after_scheduling_still_cancels_the_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio
    import signal
    import threading

    from conflicteval import _sync

    if not hasattr(signal, "pthread_kill"):
        pytest.skip("needs POSIX signals")
    cleaned = threading.Event()

    async def work() -> None:
        try:
            await asyncio.sleep(600)
        finally:
            cleaned.set()  # what a batch does on cancellation: release its checkpoint

    real = asyncio.run_coroutine_threadsafe

    def schedule_then_ctrl_c(coro: Any, loop: Any) -> Any:
        future = real(coro, loop)
        # the Ctrl-C arrives at once, before the caller could start waiting on the future
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        return future

    monkeypatch.setattr(_sync.asyncio, "run_coroutine_threadsafe", schedule_then_ctrl_c)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            _sync.run_sync(work())
    finally:
        signal.signal(signal.SIGINT, previous)
    # the work was cancelled, not left running in the background (the bound is generous: a
    # cancelled sleep ends at once, and run_sync waits for it before it re-raises)
    assert cleaned.wait(60)
