"""Ray against local on one machine, start-up apart: items per second on the same work.

Two workloads, each run with ``executor="local"`` and with a :class:`RayExecutor` on a local
Ray instance (``num_cpus=2``) in one process, interleaved (local, Ray, Ray, local, ...), so a
busy moment of a shared machine hits both sides alike:

* **LLM labeler**: ``ConflictScorer(SentenceDecomposer(), LLMLabeler(model))`` on N responses
  (2 claims x 2 documents: 4 labelling calls each) against the project's test server
  (``python -m conflicteval.testing.server --latency L --reply ...``) in its own process, no
  cache. Both sides keep the same number of items and calls in flight: local ``concurrency``
  responses and ``model_concurrency`` calls, Ray half of each per actor on two actors.
* **Offline labeler** (CPU-bound): ``ConflictScorer(SentenceDecomposer(), LexicalLabeler())`` on
  WikiContradict passages (synthetic text without the data).

Every run writes a checkpoint (the driver writes it while the actors work). Ray's start-up is
timed apart: ``ray.init`` once (``connect``), and per run the actor pool's start
(``RayExecutor.timings["actors"]``: until every actor has built its work function). Ray's
throughput "start-up excluded" is ``items / (wall - connect - actors)``; the wall time covers
everything else the run does (reading the checkpoint, writing it, the summary), as the local
run's does. Every pair's records are compared: they must be identical.

The driver's CPU per item on Ray (this process, ``time.process_time``; the actors are other
processes), its own work per record (reading a line into a ``Record``, the fingerprint, the
checkpoint append), its rate on trivial items, and the response cache's write rate (one and two
processes writing one SQLite file) are the figures the cluster projection in docs/scaling.md
rests on.

``--baseline FILE`` runs an earlier version of ``conflicteval/runs/ray.py`` as a third side
(its pool starts inside its run, so its start-up is estimated from a 2-item run made just before).

Usage::

    python benchmarks/ray_vs_local.py            # ~10 min on a busy 2-core machine
    python benchmarks/ray_vs_local.py --quick    # a smoke run
    git show REV:src/conflicteval/runs/ray.py > old_ray.py
    python benchmarks/ray_vs_local.py --parts llm,offline --baseline old_ray.py
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import emit, log, machine, server_process

REPLY = json.dumps(
    {"claim": "c", "document_snippet": "d", "reasoning": "r", "answer": "CONTRADICTS"}
)


SAMPLE_RECORD: dict[str, Any] = {}  # one record of each workload, for driver_per_record


def _spread(values: list[float]) -> dict[str, float]:
    return {
        "min": round(min(values), 3),
        "median": round(statistics.median(values), 3),
        "max": round(max(values), 3),
    }


def _dump(result: Any) -> list[dict[str, Any]]:
    return [r.model_dump() for r in result.records]


def _llm_items(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"q{k}",
            "response": f"The bridge number {k} opened in {1800 + k}. It is {k % 90 + 10} m long.",
            "documents": [f"Bridge {k} opened in {1801 + k}.", f"Bridge {k} is {k % 7} m long."],
        }
        for k in range(n)
    ]


def _offline_items(n: int) -> list[dict[str, Any]]:
    from ray_executor import _conflictscore_items

    return _conflictscore_items(n)


BASELINE: dict[str, Any] = {}  # {"module": the earlier executor module} with --baseline


class _Baseline:
    """An earlier Ray executor (``--baseline FILE``), whose pool starts inside its run: its
    start-up is estimated as twice the wall time of a 2-item run made just before (that run's
    pool start, and the measured run's own)."""

    name = "ray"

    def __init__(self) -> None:
        self.inner = BASELINE["module"].RayExecutor(actors=2)
        self.timings: dict[str, float] = {}

    async def run(self, fn: Any, todo: Any, *, concurrency: int, emit: Any) -> None:
        t0 = time.perf_counter()
        await self.inner.run(fn, list(todo)[:2], concurrency=concurrency, emit=lambda *a: None)
        self.timings = {"actors": 2 * (time.perf_counter() - t0)}
        await self.inner.run(fn, todo, concurrency=concurrency, emit=emit)


def _executor(side: str) -> Any:
    from conflicteval.runs.ray import RayExecutor

    if side == "local":
        return None
    return RayExecutor(actors=2) if side == "ray" else _Baseline()


def side_by_side(
    name: str,
    scorers: dict[str, Any],
    items: list[dict[str, Any]],
    concurrency: dict[str, int],
    repeats: int,
) -> dict[str, Any]:
    """Local and Ray (and the baseline) in turn, ``repeats`` rounds; per-round ratios."""
    n = len(items)
    sides = ["local", "ray", *(["before"] if BASELINE else [])]
    runs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
    ratios: dict[str, list[float]] = {}
    for r in range(repeats):
        pair: dict[str, dict[str, float]] = {}
        records: dict[str, Any] = {}
        order = sides[r % len(sides) :] + sides[: r % len(sides)]
        for side in order if r % 2 == 0 else order[::-1]:
            executor = _executor(side)
            with tempfile.TemporaryDirectory() as tmp:
                t0, c0 = time.perf_counter(), time.process_time()
                result = scorers[side].score_many(
                    items,
                    checkpoint=Path(tmp) / "ck.jsonl",
                    concurrency=concurrency[side],
                    executor=executor,
                )
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            assert result.counts["total"] == n, result.summary()
            start = 0.0
            if executor is not None:  # ray.init (once, ~0 here) and the actor pool's start
                start = executor.timings.get("connect", 0.0) + executor.timings["actors"]
            pair[side] = {
                "wall_s": round(wall, 3),
                "start_s": round(start, 3),
                "items_per_s": round(n / (wall - start), 1),
                "items_per_s_with_start": round(n / wall, 1),
                "driver_cpu_ms_per_item": round(1000 * cpu / n, 3),
            }
            records[side] = _dump(result)
            SAMPLE_RECORD[name] = result.records[0]
            log(f"{name} {side}: {pair[side]}")
        for side in sides:
            assert records[side] == records["local"], f"{name}: {side}'s records differ"
            runs[side].append(pair[side])
        local_rate = pair["local"]["items_per_s"]
        for side in sides[1:]:
            ratios.setdefault(f"{side}_over_local_startup_excluded", []).append(
                pair[side]["items_per_s"] / local_rate
            )
            ratios.setdefault(f"{side}_over_local_with_startup", []).append(
                pair[side]["items_per_s_with_start"] / local_rate
            )
    return {
        "items": n,
        "concurrency": concurrency,
        "runs": runs,
        "ratios": {key: _spread(values) for key, values in ratios.items()},
        "ray_actor_start_s": _spread([run["start_s"] for run in runs["ray"]]),
        "identical_records": True,
    }


def llm_workload(n: int, latency: float, repeats: int) -> dict[str, Any]:
    """The LLM labeler against the test server, local vs Ray with the same calls in flight."""
    from conflicteval import get_model
    from conflicteval.conflictscore import ConflictScorer, LLMLabeler, SentenceDecomposer

    items = _llm_items(n)
    with server_process(latency, extra=["--reply", REPLY]) as server:

        def scorer(calls: int) -> Any:
            model = get_model(
                "openai/bench",
                base_url=server.base_url,
                api_key="x",
                cache=False,
                max_concurrency=calls,
            )
            return ConflictScorer(SentenceDecomposer(), LLMLabeler(model))

        # 32 model calls and 16 responses in flight in all: local one process, Ray 2 x half
        scorers = {"local": scorer(32), "ray": scorer(16), "before": scorer(16)}
        per_side = {"local": 16, "ray": 8, "before": 8}
        out = side_by_side("llm", scorers, items, per_side, repeats)
        out["server_cpu_s"] = round(server.cpu_seconds(), 2)
    out.update(latency_s=latency, calls_per_item=4, calls_in_flight=32)
    return out


def offline_workload(n: int, repeats: int) -> dict[str, Any]:
    """The CPU-bound offline labeler, local vs Ray on two actors."""
    from conflicteval.conflictscore import ConflictScorer, LexicalLabeler, SentenceDecomposer

    scorer = ConflictScorer(SentenceDecomposer(), LexicalLabeler())
    scorers = {"local": scorer, "ray": scorer, "before": scorer}
    per_side = {"local": 8, "ray": 8, "before": 8}
    return side_by_side("offline", scorers, _offline_items(n), per_side, repeats)


def driver_ceiling(n: int) -> dict[str, Any]:
    """Trivial items on two actors: the rate at which one driver takes records in (and
    checkpoints them), and its CPU per item; the local runner's rate beside it."""
    from conflicteval import run_batch_sync
    from conflicteval.runs.ray import RayExecutor

    async def work(item: dict[str, Any]) -> dict[str, int]:
        return {"double": item["n"] * 2}

    items = [{"id": f"t{k}", "n": k} for k in range(n)]
    out: dict[str, Any] = {"items": n}
    for side in ("local", "ray"):
        executor = RayExecutor(actors=2) if side == "ray" else None
        with tempfile.TemporaryDirectory() as tmp:
            t0, c0 = time.perf_counter(), time.process_time()
            result = run_batch_sync(
                work, items, checkpoint=Path(tmp) / "ck.jsonl", concurrency=64, executor=executor
            )
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert result.counts["ok"] == n, result.summary()
        start = executor.timings["actors"] if executor is not None else 0.0
        out[side] = {
            "items_per_s": round(n / (wall - start)),
            "driver_cpu_us_per_item": round(1e6 * cpu / n, 1),
            "start_s": round(start, 2),
        }
    log(f"driver ceiling: {out}")
    return out


def _cache_writer(directory: str, prefix: str, n: int, queue: Any) -> None:
    from conflicteval.cache import ResponseCache

    cache = ResponseCache(directory)
    value = {"text": "x" * 200, "prompt_tokens": 700, "completion_tokens": 60}
    t0 = time.perf_counter()
    for k in range(n):
        cache.put(f"{prefix}{k:060d}", "bench", value)
    queue.put(time.perf_counter() - t0)
    cache.close()


def cache_writes(n: int) -> dict[str, Any]:
    """Entries written per second into one cache file by one and by two processes."""
    out: dict[str, Any] = {}
    ctx = multiprocessing.get_context("spawn")
    for writers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            queue = ctx.Queue()
            procs = [
                ctx.Process(target=_cache_writer, args=(tmp, f"{w}", n, queue))
                for w in range(writers)
            ]
            t0 = time.perf_counter()
            for proc in procs:
                proc.start()
            for proc in procs:
                proc.join()
            wall = time.perf_counter() - t0
            out[f"{writers}_writers_entries_per_s"] = round(writers * n / wall)
    log(f"cache writes: {out}")
    return out


def driver_per_record(record: Any, n: int) -> dict[str, Any]:
    """The driver's own work per record, in microseconds: reading the line an actor sent,
    stamping the inputs' fingerprint on it, and appending it to the checkpoint (flushed)."""
    from conflicteval.runs.checkpoint import Record, _Writer

    line = record.model_dump_json()
    lines = [line.replace(record.id, f"{record.id}-{k}", 1) for k in range(n)]
    out: dict[str, Any] = {"line_bytes": len(line)}
    t0 = time.process_time()
    parsed = [Record.model_validate_json(text) for text in lines]
    out["parse_us"] = round(1e6 * (time.process_time() - t0) / n, 1)
    t0 = time.process_time()
    stamped = [r.model_copy(update={"inputs": "f" * 64}).model_dump_json() for r in parsed]
    out["fingerprint_us"] = round(1e6 * (time.process_time() - t0) / n, 1)
    with tempfile.TemporaryDirectory() as tmp:
        writer = _Writer(Path(tmp) / "ck.jsonl")
        t0 = time.process_time()
        for text in stamped:
            writer.write(text)
        out["write_us"] = round(1e6 * (time.process_time() - t0) / n, 1)
        writer.close()
    out["records_per_cpu_s"] = round(
        1e6 / (out["parse_us"] + out["fingerprint_us"] + out["write_us"])
    )
    log(f"driver per record: {out}")
    return out


def _load_baseline(path: Path) -> Any:
    """Import an earlier executor module under a name of its own, pickled by value (the Ray
    workers cannot import it by name)."""
    import importlib.util
    import sys

    from ray import cloudpickle

    spec = importlib.util.spec_from_file_location("baseline_ray_executor", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    cloudpickle.register_pickle_by_value(module)
    return module


def main() -> None:
    """Run both workloads side by side and print the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="a smaller smoke run")
    parser.add_argument("--repeats", type=int, default=None, help="pairs per workload")
    parser.add_argument("--llm-items", type=int, default=None)
    parser.add_argument("--offline-items", type=int, default=None)
    parser.add_argument("--latency", type=float, default=0.05, help="server latency (s)")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="an earlier runs/ray.py to run beside the current one (e.g. from git show)",
    )
    parser.add_argument(
        "--parts", default="llm,offline,driver,cache", help="comma-separated parts to run"
    )
    args = parser.parse_args()
    os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")
    repeats = args.repeats or (2 if args.quick else 6)
    if args.baseline:
        BASELINE["module"] = _load_baseline(args.baseline)
    from conflicteval.runs.ray import RayExecutor

    t0 = time.perf_counter()
    RayExecutor(num_cpus=2).connect()  # ray.init(num_cpus=2, include_dashboard=False)
    ray_init = time.perf_counter() - t0
    log(f"ray.init: {ray_init:.2f} s")
    summary: dict[str, Any] = {
        "machine": machine(),
        "ray_version": __import__("ray").__version__,
        "ray_init_s": round(ray_init, 2),
        "load_average_at_start": os.getloadavg(),
    }
    parts = set(args.parts.split(","))
    if "llm" in parts:
        llm_items = args.llm_items or (200 if args.quick else 1000)
        summary["llm"] = llm_workload(llm_items, args.latency, repeats)
        summary["driver_per_record"] = driver_per_record(SAMPLE_RECORD["llm"], 20_000)
    if "offline" in parts:
        offline_items = args.offline_items or (500 if args.quick else 2000)
        summary["offline"] = offline_workload(offline_items, repeats)
    if "driver" in parts:
        summary["driver_ceiling"] = driver_ceiling(5000 if args.quick else 50_000)
    if "cache" in parts:
        summary["cache"] = cache_writes(2000 if args.quick else 10_000)
    summary["load_average_at_end"] = os.getloadavg()
    emit(summary)


if __name__ == "__main__":
    main()
