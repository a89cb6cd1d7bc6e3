"""The Ray executor's actor pool: start the actors, feed them batches, stream results back.

Plain Ray actors rather than a Ray Data pipeline: on one 2-core machine the
Ray Data path (``from_items`` + ``map_batches`` on an actor pool) spent about
as long scheduling, converting blocks and polling as the actors spent on the
items, and it starts its actor pool inside the run, where it cannot be timed
apart. Here the driver

* starts ``actors`` actors and waits until each has built its work function
  (the pool's start-up, timed on its own);
* keeps :data:`BATCHES_IN_FLIGHT` batches queued on every actor, so an actor
  never waits for the driver between batches; an actor runs its batches on one
  event loop behind one gate of ``concurrency`` items, so batch boundaries do
  not empty its slots;
* hands each batch's results back the moment the batch finishes (the runner
  writes them to the checkpoint while the actors work on).

A batch whose call fails (its actor died and Ray gave up retrying it) yields
nothing here: the executor runs its items again (see
:mod:`conflicteval.runs.ray`).

Needs the optional extra ``ray``; this module imports nothing from Ray itself,
it is handed the ``ray`` module by the executor.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

log = logging.getLogger("conflicteval.runs.ray")

Result = tuple[str, str, str, bytes]
"""(item id, checkpoint line, fatal failure as JSON or ``""``, answerer copy or ``b""``)
as an actor returns it; the answerer copy (pickled) rides on the first item of a batch."""

BATCHES_IN_FLIGHT = 2
"""Batches queued on each actor: one running, one waiting, so the actor never idles."""

ROUNDS_PER_BATCH = 4
"""A batch holds at most this many rounds of ``concurrency`` items."""

BATCHES_PER_ACTOR = 4
"""A batch is small enough that each actor gets at least this many (the tail balances)."""


class BatchRunner(Protocol):
    """What an actor holds: the unpickled work function and its items' runner."""

    async def run_batch(self, ids: list[str], payloads: list[bytes]) -> list[Result]:
        """Every item's result."""
        ...


def default_batch_size(n_items: int, actors: int, concurrency: int) -> int:
    """Items per batch: up to four rounds of ``concurrency``, at least four batches per actor.

    Small batches cost one actor call each (about a millisecond of Ray's
    scheduling and pickling); large ones leave one actor with the tail while the
    others wait, and reach the checkpoint later.
    """
    per_actor = math.ceil(n_items / (actors * BATCHES_PER_ACTOR))
    return max(1, min(concurrency * ROUNDS_PER_BATCH, per_actor))


class PoolActor:
    """One actor of the pool (made a Ray actor class by :func:`start_pool`).

    ``holder_cls(*args)`` builds what runs the items, once per actor; its
    ``run_batch`` coroutine runs on the actor's own event loop, so batches sent
    to one actor share its loop (and its model's HTTP client and cache).
    """

    def __init__(self, holder_cls: type[BatchRunner], args: tuple[Any, ...]) -> None:
        self.holder = holder_cls(*args)

    async def ready(self) -> bool:
        """Answered once the constructor has run: the actor is built."""
        return True

    async def run_batch(self, ids: list[str], payloads: list[bytes]) -> list[Result]:
        """The results of one batch of items."""
        return await self.holder.run_batch(ids, payloads)


def start_pool(
    ray: Any,
    holder_cls: type[BatchRunner],
    args: tuple[Any, ...],
    *,
    actors: int,
    num_cpus: float,
    num_gpus: float,
    max_task_retries: int,
) -> list[Any]:
    """Start ``actors`` actors and wait until every one is built; returns their handles.

    An actor that dies is restarted (its constructor runs again) and the batch
    it was running is retried ``max_task_retries`` times on it. A constructor
    that raises fails the run here, before any item is sent.
    """
    remote = ray.remote(PoolActor).options(
        num_cpus=num_cpus,
        num_gpus=num_gpus,
        max_restarts=-1,
        max_task_retries=max_task_retries,
        max_concurrency=BATCHES_IN_FLIGHT + 1,  # the batches queued on it, and ready()
    )
    handles = [remote.remote(holder_cls, args) for _ in range(actors)]
    try:
        ray.get([handle.ready.remote() for handle in handles])
    except BaseException:
        stop_pool(ray, handles)
        raise
    return handles


def stop_pool(ray: Any, handles: Sequence[Any]) -> None:
    """Kill the pool's actors (their CPUs and GPUs go back to the cluster)."""
    for handle in handles:
        try:
            ray.kill(handle, no_restart=True)
        except Exception:  # pragma: no cover - an actor already gone
            log.debug("could not kill a Ray actor", exc_info=True)


def stream_batches(
    ray: Any,
    handles: Sequence[Any],
    batches: Iterator[tuple[list[str], list[bytes]]],
    stop: threading.Event,
) -> Iterator[list[Result]]:
    """Send ``batches`` to the actors, :data:`BATCHES_IN_FLIGHT` per actor; yield each
    batch's results as it finishes. A batch whose call failed yields nothing."""
    pending: dict[Any, Any] = {}

    def send(handle: Any) -> None:
        batch = next(batches, None)
        if batch is not None:
            pending[handle.run_batch.remote(*batch)] = handle

    for _ in range(BATCHES_IN_FLIGHT):
        for handle in handles:
            send(handle)
    while pending and not stop.is_set():
        ready, _ = ray.wait(list(pending), num_returns=1)
        handle = pending.pop(ready[0])
        send(handle)  # before reading this batch's results: the actor stays busy
        try:
            results: list[Result] = ray.get(ready[0])
        except Exception as exc:
            log.warning("a batch failed on the Ray actor pool (run again): %s", exc)
            continue
        yield results


def batches_of(
    rows: Sequence[tuple[str, bytes]], size: int
) -> Iterator[tuple[list[str], list[bytes]]]:
    """``rows`` as (ids, payloads) batches of ``size``."""
    for start in range(0, len(rows), size):
        chunk = rows[start : start + size]
        yield [item_id for item_id, _ in chunk], [payload for _, payload in chunk]
