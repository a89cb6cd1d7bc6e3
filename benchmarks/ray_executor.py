"""The Ray executor against the local one: throughput on the same items, and driver memory.

Three measurements, each on the same items with ``executor="local"`` and ``executor="ray"``
(a local Ray instance on this machine, started once and not counted in the run times):

* **LLM calls**: one model call per item against the local test server in its own process
  (latency L), no cache, ``concurrency`` items in flight; Ray runs two actors with half
  the concurrency each, so both executors keep the same number of requests in flight.
* **Offline ConflictScore** (sentence decomposer + lexical labeler) on WikiContradict
  passages (synthetic text when the data is not beside the checkout): CPU-bound work.
* **Driver memory for 100,000 items**: a trivial work function with a checkpoint, each
  executor in a fresh child process; the child's peak resident memory (``VmHWM``) is
  the driver's, Ray's own processes (raylet, object store, workers) excluded.

The ratio ``ray / local`` of the wall times is Ray's overhead (above 1: slower).

Usage::

    python benchmarks/ray_executor.py            # the full run (~4 min on 2 cores)
    python benchmarks/ray_executor.py --quick    # a smaller smoke run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, emit, log, machine, server_process

from conflicteval import get_model, run_batch_sync
from conflicteval.conflictscore import ConflictScorer, LexicalLabeler, SentenceDecomposer
from conflicteval.runs.ray import RayExecutor


def _ray(**options: Any) -> RayExecutor:
    return RayExecutor(num_cpus=2, **options)


def llm_calls(n: int, latency: float, concurrency: int, repeats: int) -> dict[str, Any]:
    """Items per second with one model call each, local vs Ray."""
    times: dict[str, list[float]] = {"local": [], "ray": []}
    with server_process(latency) as server:
        model = get_model("openai/bench", base_url=server.base_url, api_key="x", cache=False)

        async def work(item: dict[str, Any]) -> str:
            return (await model.generate(f"item {item['n']}: reply OK")).text

        items = [{"id": f"i{k}", "n": k} for k in range(n)]
        for r in range(repeats):
            for name in ("local", "ray") if r % 2 == 0 else ("ray", "local"):
                executor = None if name == "local" else _ray(actors=2)
                c = concurrency if name == "local" else concurrency // 2
                t0 = time.perf_counter()
                result = run_batch_sync(work, items, concurrency=c, executor=executor)
                times[name].append(time.perf_counter() - t0)
                assert result.counts["ok"] == n, result.summary()
                log(f"llm {name}: {n} items in {times[name][-1]:.2f} s")
    best = {k: min(v) for k, v in times.items()}
    return {
        "items": n,
        "latency_s": latency,
        "concurrency": concurrency,
        "seconds": times,
        "items_per_s": {k: round(n / v, 1) for k, v in best.items()},
        "ratio_ray_over_local": round(best["ray"] / best["local"], 3),
        "ideal_items_per_s": round(concurrency / latency, 1),
    }


def _conflictscore_items(n: int) -> list[dict[str, Any]]:
    path = SHARED_DATA / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    if path.is_file():
        from conflicteval.wikicontradict.data import load_wikicontradict

        rows = [
            (f"{i.passage_1} The answer is {i.answer_1}.", [i.passage_2, i.passage_1])
            for i in load_wikicontradict(path)
        ]
    else:
        rows = [
            (f"The canal opened in {1800 + k}. It is {k} km long.", [f"It opened in {1801 + k}."])
            for k in range(200)
        ]
    return [
        {"id": f"s{k}", "response": rows[k % len(rows)][0], "documents": rows[k % len(rows)][1]}
        for k in range(n)
    ]


def offline_conflictscore(n: int, repeats: int) -> dict[str, Any]:
    """Responses per second of offline ConflictScore, local vs Ray (two actors)."""
    scorer = ConflictScorer(SentenceDecomposer(), LexicalLabeler())
    items = _conflictscore_items(n)
    times: dict[str, list[float]] = {"local": [], "ray": []}
    for r in range(repeats):
        for name in ("local", "ray") if r % 2 == 0 else ("ray", "local"):
            executor = None if name == "local" else _ray(actors=2)
            t0 = time.perf_counter()
            result = scorer.score_many(items, executor=executor)
            times[name].append(time.perf_counter() - t0)
            assert result.counts["total"] == n
            log(f"conflictscore {name}: {n} responses in {times[name][-1]:.2f} s")
    best = {k: min(v) for k, v in times.items()}
    return {
        "responses": n,
        "seconds": times,
        "responses_per_s": {k: round(n / v, 1) for k, v in best.items()},
        "ratio_ray_over_local": round(best["ray"] / best["local"], 3),
    }


def _status_mib(field: str) -> float:
    """``VmHWM`` (peak) or ``VmRSS`` (now) of this process, in MiB (Linux /proc).

    Not ``ru_maxrss``: a child started by a big parent inherits the parent's figure.
    """
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _memory_child(executor: str, n: int) -> None:
    """Run n trivial items with a checkpoint; print the driver's figures as JSON."""
    ex = None if executor == "local" else _ray(actors=2)
    if ex is not None:
        ex.connect()  # Ray's start-up is not part of the run
    base = _status_mib("VmRSS")

    async def work(item: dict[str, Any]) -> dict[str, int]:
        return {"double": item["n"] * 2}

    items = [{"id": f"i{k}", "n": k} for k in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = run_batch_sync(
            work, items, checkpoint=Path(tmp) / "ck.jsonl", concurrency=64, executor=ex
        )
        seconds = time.perf_counter() - t0
    peak = _status_mib("VmHWM")
    assert result.counts["ok"] == n, result.summary()
    print(
        json.dumps(
            {
                "executor": executor,
                "items": n,
                "seconds": round(seconds, 2),
                "items_per_s": round(n / seconds),
                "peak_rss_mib": round(peak, 1),
                "rss_before_run_mib": round(base, 1),
            }
        )
    )


def driver_memory(n: int) -> dict[str, Any]:
    """Each executor in a fresh process: peak resident memory of the driver."""
    out: dict[str, Any] = {}
    for name in ("local", "ray"):
        cmd = [sys.executable, __file__, "--memory-child", name, "--items", str(n)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"memory child {name} failed: {proc.stderr[-3000:]}")
        out[name] = json.loads(proc.stdout.strip().splitlines()[-1])
        log(f"memory {name}: {out[name]}")
    out["ratio_ray_over_local_seconds"] = round(out["ray"]["seconds"] / out["local"]["seconds"], 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    parser.add_argument("--memory-child", choices=("local", "ray"), help=argparse.SUPPRESS)
    parser.add_argument("--items", type=int, default=100_000, help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")
    if args.memory_child:
        _memory_child(args.memory_child, args.items)
        return
    quick = args.quick
    t0 = time.perf_counter()
    RayExecutor(num_cpus=2).connect()
    ray_start = time.perf_counter() - t0
    log(f"ray started in {ray_start:.1f} s")
    summary: dict[str, Any] = {
        "machine": machine(),
        "ray_version": __import__("ray").__version__,
        "ray_start_s": round(ray_start, 1),
        "llm_calls": llm_calls(
            n=400 if quick else 2000, latency=0.1, concurrency=32, repeats=1 if quick else 3
        ),
        "offline_conflictscore": offline_conflictscore(
            n=500 if quick else 2000, repeats=1 if quick else 3
        ),
        "driver_memory": driver_memory(10_000 if quick else 100_000),
    }
    emit(summary)


if __name__ == "__main__":
    main()
