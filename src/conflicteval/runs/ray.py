"""The Ray executor: a batch's pending items on a pool of Ray actors.

Needs the optional extra ``ray`` (``pip install '.[ray]'``), imported only when a run starts.

1. The driver (the process that called :func:`~conflicteval.runs.run_batch`)
   connects to the cluster at ``$RAY_ADDRESS`` (or ``address``), or starts a
   local Ray instance (``num_cpus``), unless Ray is already initialised.
2. The work function is pickled once (cloudpickle); each pending item is
   pickled on its own.
3. A pool of actors starts (``actors`` of them, each reserving
   ``cpus_per_actor`` CPUs and ``gpus_per_actor`` GPUs; see
   :mod:`conflicteval.runs.ray_pool`). Each actor unpickles the work
   function once, so what is expensive is built once per actor: a
   :class:`~conflicteval.models.Model` builds its own HTTP client on first use,
   an NLI labeler loads its weights, the response cache opens the same SQLite
   file. The items go to the actors in batches, two batches queued per actor;
   an actor runs its items on its own event loop, ``concurrency`` at a time,
   through :func:`~conflicteval.runs.itemrun.run_item`, so a failure becomes the
   same record as locally. The answerer active in the driver
   (:mod:`conflicteval.models.answerers`: a dry run's ``Count``, a batch
   export's ``Export``) travels too, with the driver's call ledger (the run's
   calls, tokens and cost lines): each batch runs under fresh ``portable()``
   copies, which come back with the batch's records and are folded into the
   driver's (``absorb``), so calls are counted, exported and priced as locally.
4. Records stream back to the driver as batches finish and are written to the
   checkpoint at once: a killed run resumes from it, and a re-run of a finished
   run sends nothing.
5. Items whose batch did not come back (an actor that died, a task that failed
   after ``max_task_retries``) are run again on the pool one item per batch, so
   an item that kills its actor takes no other item with it; any still missing
   then runs in a Ray task of its own, and an item that fails there too ends
   ``model_error`` with the reason Ray gave. Nothing is dropped.

The workers must import ``conflicteval`` (and what the work function refers to):
install it on every node, or ship it with a ``runtime_env``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

from conflicteval._fatal import close_signal, open_signal, report_fatal
from conflicteval.errors import ConflictEvalError, ModelError, require
from conflicteval.models.answerers import active_answerer, answer_with
from conflicteval.runs.checkpoint import Record
from conflicteval.runs.itemrun import Emit, finish_record, run_item

from . import ray_pool
from .ray_pool import Result

log = logging.getLogger("conflicteval.runs.ray")


class RayExecutor:
    """Run a batch's items on a pool of Ray actors.

    Args:
        actors: Actors in the pool (default: the cluster's CPUs divided by
            ``cpus_per_actor``, or its GPUs by ``gpus_per_actor`` when that is
            set; never more than there are batches).
        batch_size: Items per actor call (default: four rounds of the item
            concurrency, fewer so that each actor gets at least four batches).
            Records come back, and reach the checkpoint, a batch at a time.
        num_cpus: CPUs of a local Ray instance started for this run (default:
            all of the machine's). Ignored when connecting to a cluster.
        cpus_per_actor: CPUs each actor reserves.
        gpus_per_actor: GPUs each actor reserves (e.g. 1: one NLI labeler per GPU).
        address: Cluster address (default ``$RAY_ADDRESS``; none: start Ray locally).
        runtime_env: Ray runtime environment for a Ray started or connected
            here (e.g. ``{"env_vars": {...}}``, ``{"pip": [...]}``).
        max_task_retries: Retries of a batch whose actor died (on a new actor).
        init_options: Further ``ray.init`` keyword arguments.

    After a run, :attr:`timings` holds the seconds it spent connecting to Ray
    (``connect``; about zero when Ray was already initialised), starting the
    actor pool (``actors``: until every actor has built its work function) and
    running the items (``items``: from the first batch sent to the last result).
    """

    name = "ray"

    def __init__(
        self,
        *,
        actors: int | None = None,
        batch_size: int | None = None,
        num_cpus: int | None = None,
        cpus_per_actor: float = 1.0,
        gpus_per_actor: float = 0.0,
        address: str | None = None,
        runtime_env: dict[str, Any] | None = None,
        max_task_retries: int = 2,
        init_options: dict[str, Any] | None = None,
    ) -> None:
        if actors is not None and actors < 1:
            raise ValueError("actors must be at least 1")
        if batch_size is not None and batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if cpus_per_actor < 0 or gpus_per_actor < 0:
            raise ValueError("cpus_per_actor and gpus_per_actor must not be negative")
        if max_task_retries < 0:
            raise ValueError("max_task_retries must not be negative")
        self.actors = actors
        self.batch_size = batch_size
        self.num_cpus = num_cpus
        self.cpus_per_actor = cpus_per_actor
        self.gpus_per_actor = gpus_per_actor
        self.address = address
        self.runtime_env = runtime_env
        self.max_task_retries = max_task_retries
        self.init_options = dict(init_options or {})
        self.timings: dict[str, float] = {}

    def __repr__(self) -> str:
        return (
            f"RayExecutor(actors={self.actors}, batch_size={self.batch_size}, "
            f"gpus_per_actor={self.gpus_per_actor})"
        )

    # -- set-up -------------------------------------------------------------
    def connect(self) -> Any:
        """Import Ray and initialise it (once per process); returns the ``ray`` module."""
        ray: Any = require("ray", "ray")
        if ray.is_initialized():
            return ray
        address = self.address or os.environ.get("RAY_ADDRESS") or None
        options: dict[str, Any] = {
            "ignore_reinit_error": True,
            **_quiet_options(),
            **self.init_options,
        }
        if self.runtime_env is not None:
            options["runtime_env"] = self.runtime_env
        if address:
            log.info("connecting to the Ray cluster at %s", address)
            with _quiet_stderr():
                ray.init(address=address, **options)
        else:
            options.setdefault("include_dashboard", False)
            if self.num_cpus is not None:
                options["num_cpus"] = self.num_cpus
            log.info("starting a local Ray instance")
            with _quiet_stderr():
                ray.init(**options)
        _quiet_loggers()
        return ray

    def _pool(self, ray: Any, n_items: int, concurrency: int) -> tuple[int, int]:
        """(actors, batch size) for ``n_items`` items: never more actors than batches."""
        actors = self.actors
        if actors is None:
            resources = ray.cluster_resources()
            if self.gpus_per_actor > 0:
                actors = int(resources.get("GPU", 0) // self.gpus_per_actor)
            elif self.cpus_per_actor > 0:
                actors = int(resources.get("CPU", 1) // self.cpus_per_actor)
            else:
                actors = int(resources.get("CPU", 1))
            actors = max(1, actors)
        size = self.batch_size or ray_pool.default_batch_size(n_items, actors, concurrency)
        return max(1, min(actors, math.ceil(n_items / size))), size

    # -- the run ------------------------------------------------------------
    async def run(
        self,
        fn: Callable[[Any], Awaitable[Any]],
        todo: Sequence[tuple[str, Any]],
        *,
        concurrency: int,
        emit: Emit,
    ) -> None:
        """Run every pending item on the actor pool; emit each record as it comes back."""
        self.timings = {}
        if not todo:
            return
        t0 = time.perf_counter()
        ray = self.connect()
        self.timings["connect"] = time.perf_counter() - t0
        fn_bytes = _dumps(ray, fn, "the work function")
        answerer = active_answerer()
        # the driver's answerer, as a setting each batch runs under, carrying an empty copy of
        # the driver's call ledger (its cost lines): each batch's copy comes back filled
        travelling = answerer.portable()
        plain = travelling.name == "online" and not travelling.carried  # nothing to carry
        ans_bytes = b"" if plain else _dumps(ray, travelling, "the answerer")
        rows = [(item_id, _dumps(ray, item, f"item {item_id!r}")) for item_id, item in todo]
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        stop = threading.Event()

        def post(message: tuple[str, Any]) -> None:
            try:
                loop.call_soon_threadsafe(inbox.put_nowait, message)
            except RuntimeError:  # the driver's loop is gone: nobody is listening
                stop.set()

        def produce() -> None:
            try:
                for pairs in self._stream(ray, rows, (fn_bytes, ans_bytes), concurrency, stop):
                    post(("records", pairs))
            except BaseException as exc:  # handed to the driver's loop, raised there
                post(("error", exc))
            else:
                post(("done", None))

        thread = threading.Thread(target=produce, name="conflicteval-ray-driver", daemon=True)
        thread.start()
        emitted: set[str] = set()
        try:
            while True:
                kind, payload = await inbox.get()
                if kind == "done":
                    break
                if kind == "error":
                    raise ConflictEvalError(
                        f"the Ray run failed: {type(payload).__name__}: {payload}"
                    ) from payload
                stopped = None
                if any(item_id not in emitted for item_id, _, _, _ in payload):
                    # a batch delivered twice: counted once
                    _absorb(ray, answerer, payload)
                for item_id, line, fatal, _ in payload:
                    if fatal:  # a refused key in an actor: the batch stops, as locally
                        stopped = stopped or fatal
                    elif item_id not in emitted:  # a batch delivered twice: the first counts
                        emitted.add(item_id)
                        emit(Record.model_validate_json(line), line)
                if stopped:
                    failure = json.loads(stopped)
                    report_fatal(
                        ModelError(
                            failure["message"],
                            status=failure["status"],
                            fatal=True,
                            hint=failure.get("hint"),  # a dead endpoint: what to check
                        )
                    )
                    return
        finally:
            stop.set()  # the driver thread stops at its next batch and never touches the checkpoint

    def _stream(
        self,
        ray: Any,
        rows: list[tuple[str, bytes]],
        fn_bytes: tuple[bytes, bytes],
        concurrency: int,
        stop: threading.Event,
    ) -> Iterator[list[Result]]:
        """The items' results, a batch at a time (runs in a driver thread).

        Items whose batch did not come back are run again on the pool one per batch
        (so one item that kills its actor takes no other with it), then any still
        missing one per Ray task, whose error becomes the item's record.
        """
        actors, size = self._pool(ray, len(rows), concurrency)
        t0 = time.perf_counter()
        handles = ray_pool.start_pool(
            ray,
            _ItemActor,
            (*fn_bytes, concurrency),
            actors=actors,
            num_cpus=self.cpus_per_actor,
            num_gpus=self.gpus_per_actor,
            max_task_retries=self.max_task_retries,
        )
        self.timings["actors"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        returned: set[str] = set()
        try:
            for again, batch_size in enumerate((size, 1)):
                todo = [row for row in rows if row[0] not in returned]
                if not todo:
                    return
                if again:  # the second pass (the first may already be one per batch)
                    log.warning(
                        "%d item(s) did not come back from the actor pool; running them "
                        "again one per batch",
                        len(todo),
                    )
                batches = ray_pool.batches_of(todo, batch_size)
                for pairs in ray_pool.stream_batches(ray, handles, batches, stop):
                    returned.update(item_id for item_id, _, _, _ in pairs)
                    yield pairs
                if stop.is_set():
                    return
        finally:
            ray_pool.stop_pool(ray, handles)
            self.timings["items"] = time.perf_counter() - t0
        missing = [row for row in rows if row[0] not in returned]
        if missing:
            yield from self._one_by_one(ray, missing, ray.put(fn_bytes), stop)

    def _one_by_one(
        self, ray: Any, rows: list[tuple[str, bytes]], fn_ref: Any, stop: threading.Event
    ) -> Iterator[list[Result]]:
        """Run items as single Ray tasks; an item whose task fails for good gets a record."""
        log.warning("%d item(s) failed on the actor pool twice; one Ray task each", len(rows))
        task = ray.remote(_run_one).options(
            num_cpus=self.cpus_per_actor,
            num_gpus=self.gpus_per_actor,
            max_retries=self.max_task_retries,
        )
        pending = {task.remote(fn_ref, item_id, item): item_id for item_id, item in rows}
        while pending and not stop.is_set():
            ready, _ = ray.wait(list(pending), num_returns=1)
            item_id = pending.pop(ready[0])
            try:
                result: Result = ray.get(ready[0])
            except Exception as exc:
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                rec = Record(
                    id=item_id,
                    status="model_error",
                    error=f"the Ray worker running this item failed: "
                    f"{type(exc).__name__}: {reason}"[:1000],
                )
                result = (item_id, finish_record(rec)[1], "", b"")
            yield [result]


def _dumps(ray: Any, value: Any, what: str) -> bytes:
    try:
        data: bytes = ray.cloudpickle.dumps(value)
    except Exception as exc:
        raise ConflictEvalError(
            f"{what} cannot be sent to Ray workers (it does not pickle): "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    return data


async def _run_items(
    fn: Callable[[Any], Awaitable[Any]],
    ids: list[str],
    payloads: list[bytes],
    concurrency: int,
    gate: asyncio.Semaphore | None = None,
    ans_bytes: bytes = b"",
) -> list[Result]:
    """Every item's result, ``concurrency`` items at a time (or as ``gate`` lets them,
    a gate shared by the batches an actor runs at once).

    As in the local runner, an item that ends after a call failed in a way
    every call would (a refused key) is not recorded: its result carries that
    failure instead, and the driver stops the batch.
    """
    from ray import cloudpickle

    gate = gate or asyncio.Semaphore(concurrency)

    async def one(item_id: str, payload: bytes) -> Result:
        async with gate:
            try:
                item = cloudpickle.loads(payload)
            except Exception as exc:
                rec = Record(
                    id=item_id,
                    status="model_error",
                    error=f"the item could not be unpickled on the Ray worker: "
                    f"{type(exc).__name__}: {exc}",
                )
            else:
                rec = await run_item(fn, item_id, item)
        if fatal.error is not None:
            status = getattr(fatal.error, "status", None)
            hint = getattr(fatal.error, "hint", None)
            failure = {"message": str(fatal.error), "status": status, "hint": hint}
            return item_id, "", json.dumps(failure), b""
        return item_id, finish_record(rec)[1], "", b""

    answerer = cloudpickle.loads(ans_bytes) if ans_bytes else None
    fatal, token = open_signal()  # the item tasks inherit it
    try:
        with contextlib.ExitStack() as scope:
            if answerer is not None:  # the item tasks inherit the driver's answerer (a copy)
                scope.enter_context(answer_with(answerer))
            tasks = [asyncio.ensure_future(one(i, p)) for i, p in zip(ids, payloads, strict=True)]
    finally:
        close_signal(token)
    results = list(await asyncio.gather(*tasks))
    if answerer is not None and results:
        item_id, line, failure, _ = results[0]
        results[0] = (item_id, line, failure, cloudpickle.dumps(answerer))
    return results


def _absorb(ray: Any, answerer: Any, results: list[Result]) -> None:
    """Fold the answerer copies that came back with a batch (their counts, and the calls
    their carried ledgers counted) into the driver's."""
    for _, _, _, copy in results:
        if copy:
            answerer.absorb(ray.cloudpickle.loads(copy))


class _ItemActor:
    """What one actor of the pool holds: the work function, unpickled once."""

    def __init__(self, fn_bytes: bytes, ans_bytes: bytes, concurrency: int) -> None:
        from ray import cloudpickle

        self.fn = cloudpickle.loads(fn_bytes)
        self.ans_bytes = ans_bytes  # unpickled afresh for each batch
        self.concurrency = concurrency
        self.gate: asyncio.Semaphore | None = None  # made on the actor's event loop

    async def run_batch(self, ids: list[str], payloads: list[bytes]) -> list[Result]:
        """One batch's results, on the actor's loop behind its one gate of ``concurrency``
        (batches queued on the actor share it, so their boundaries leave no slot empty)."""
        if self.gate is None:
            self.gate = asyncio.Semaphore(self.concurrency)
        return await _run_items(self.fn, ids, payloads, self.concurrency, self.gate, self.ans_bytes)


def _run_one(fn_bytes: tuple[bytes, bytes], item_id: str, payload: bytes) -> Result:
    """One item in a Ray task of its own (items whose batch was lost)."""
    from ray import cloudpickle

    fn = cloudpickle.loads(fn_bytes[0])
    return asyncio.run(_run_items(fn, [item_id], [payload], 1, None, fn_bytes[1]))[0]


# -- quiet by default ---------------------------------------------------------------------
# Ray writes its own chatter to the terminal: start-up and dataset-plan INFO lines, warnings
# about its own set-up, and C++ "E ... core_worker.cc" lines that read as failures on runs
# that succeeded. The run's outcome is the library's closing lines; the workers' logs are still
# written to Ray's session directory, and everything comes back on the terminal with -v.
_RAY_LOGGERS = ("ray", "ray.data", "ray.train", "ray.tune", "ray.serve")


def _verbose() -> bool:
    """True when the user asked for more logging (``-v``: INFO on the library's logger)."""
    return logging.getLogger("conflicteval").getEffectiveLevel() <= logging.INFO


def _quiet_options() -> dict[str, Any]:
    """``ray.init`` options that keep Ray quiet, unless verbose (set before Ray starts)."""
    if _verbose():
        return {}
    # the C++ core worker's own log level (its "E ..." lines on stderr); its files keep all
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")
    return {"logging_level": logging.ERROR, "log_to_driver": False}


def _quiet_loggers() -> None:
    """Ray's Python loggers (e.g. Ray Data's dataset plans) at ERROR, unless verbose."""
    if _verbose():
        return
    for name in _RAY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Hold back what Ray's C++ side writes straight to the standard error while it starts
    (it bypasses Python's logging); shown after all when starting fails, or with -v."""
    if _verbose():
        yield
        return
    try:
        fd = sys.stderr.fileno()
        saved = os.dup(fd)
    except (AttributeError, OSError, ValueError):  # no real stderr (captured): nothing to hide
        yield
        return
    with tempfile.TemporaryFile() as held:
        sys.stderr.flush()
        os.dup2(held.fileno(), fd)
        try:
            yield
        except BaseException:
            os.dup2(saved, fd)
            held.seek(0)
            sys.stderr.write(held.read().decode("utf-8", "replace"))
            raise
        finally:
            os.dup2(saved, fd)
            os.close(saved)
