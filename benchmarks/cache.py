"""The response cache: a finished batch re-run entirely from the cache.

A batch of N calls (default 10,000) runs through ``run_batch`` against a local
OpenAI-compatible server with the cache on. The same batch is then run again
with a fresh model and a fresh cache object on the same directory (a new SQLite
connection, as in a new session): through ``run_batch`` without a checkpoint (so
every item really calls ``model.generate``), with a plain ``asyncio.gather``,
and through ``run_batch`` writing a new checkpoint file. Reported: server
requests during the re-runs (target 0), calls/s served from the cache (target
≥ 5,000), and the cache size on disk per entry.

The server runs in-process here (its request log is the evidence of "0
requests"); the re-runs make no request, so it does not share the client's
work.

Usage::

    python benchmarks/cache.py [--calls 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from _common import Timer, emit, log, machine

from conflicteval import get_model, run_batch
from conflicteval.cache import DB_NAME, ResponseCache
from conflicteval.testing import OpenAICompatServer

REPLY_WORDS = 40


def item_prompt(i: int) -> str:
    """A judge-like prompt of a few hundred characters, distinct per item."""
    return (
        f"Question {i}: which year did the event described in document {i} take place? "
        "Document A says one year and document B says another. Read both documents "
        "carefully and answer with the year and a short justification naming the document."
    )


def reply(body: dict[str, Any]) -> str:
    """A reply of about 40 words that depends on the prompt."""
    prompt = str(body["messages"][-1]["content"])
    n = prompt.split(":", 1)[0].split()[-1]
    return f"Answer for question {n}: " + " ".join(["word"] * REPLY_WORDS)


def _model(base_url: str, cache_dir: Path) -> Any:
    return get_model(
        "openai/bench",
        base_url=base_url,
        api_key="x",
        cache=ResponseCache(cache_dir),
        max_concurrency=32,
    )


async def _batch(
    model: Any, n: int, checkpoint: Path | None = None
) -> tuple[Timer, dict[str, int]]:
    async def work(i: int) -> str:
        return (await model.generate(item_prompt(i))).text

    gc.collect()
    with Timer() as t:
        result = await run_batch(
            work, range(n), key=str, checkpoint=checkpoint, concurrency=32, progress=False
        )
    return t, result.counts


async def _gather(model: Any, n: int) -> Timer:
    async def one(i: int) -> str:
        return (await model.generate(item_prompt(i))).text

    gc.collect()
    with Timer() as t:
        texts = await asyncio.gather(*(one(i) for i in range(n)))
    assert len(texts) == n
    return t


def _settled_db_bytes(path: Path) -> int:
    """Size of the SQLite file after folding the WAL into it."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path.stat().st_size


def main(argv: list[str] | None = None) -> None:
    """Run the cache benchmark and print a JSON summary last."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=10_000)
    args = parser.parse_args(argv)
    n = args.calls
    with tempfile.TemporaryDirectory() as tmp, OpenAICompatServer(replies=reply) as server:
        cache_dir = Path(tmp) / "cache"
        first_model = _model(server.base_url, cache_dir)
        first, counts_first = asyncio.run(_batch(first_model, n))
        wall_first = first.wall
        assert counts_first["ok"] == n, counts_first
        first_requests = len(server.completions())
        log(
            f"first run: {n} calls in {wall_first:.1f}s ({n / wall_first:.0f} calls/s), "
            f"{first_requests} server requests"
        )
        info = first_model.cache.info()

        rerun_model = _model(server.base_url, cache_dir)
        t_batch, counts = asyncio.run(_batch(rerun_model, n))
        assert counts["ok"] == n, counts
        t_gather = asyncio.run(_gather(rerun_model, n))
        t_ck, counts_ck = asyncio.run(_batch(rerun_model, n, Path(tmp) / "rerun.jsonl"))
        wall_batch, wall_gather, wall_ck = t_batch.wall, t_gather.wall, t_ck.wall
        assert counts_ck["ok"] == n, counts_ck
        rerun_requests = len(server.completions()) - first_requests
        hits = rerun_model.cache.hits
        cached_calls = rerun_model.usage.cached_calls
        log(
            f"re-run (run_batch): {n / wall_batch:.0f} calls/s; gather: {n / wall_gather:.0f}"
            f" calls/s; run_batch writing a new checkpoint: {n / wall_ck:.0f}"
            f" calls/s; {rerun_requests} server requests; {hits} cache hits"
        )
        settled = _settled_db_bytes(cache_dir / DB_NAME)

    summary = {
        "benchmark": "cache",
        "machine": machine(),
        "calls": n,
        "reply_words": REPLY_WORDS + 4,
        "first_run_calls_per_s": round(n / wall_first, 1),
        "first_run_server_requests": first_requests,
        "rerun_server_requests": rerun_requests,
        "rerun_cache_hits": hits,
        "rerun_cached_calls": cached_calls,
        "rerun_run_batch_calls_per_s": round(n / wall_batch, 1),
        "rerun_gather_calls_per_s": round(n / wall_gather, 1),
        "rerun_run_batch_with_checkpoint_calls_per_s": round(n / wall_ck, 1),
        # per CPU-second of this process (the server makes no request in the re-runs): on a
        # shared machine the wall rates follow the load, these much less
        "rerun_run_batch_calls_per_cpu_s": round(n / t_batch.cpu, 1),
        "rerun_gather_calls_per_cpu_s": round(n / t_gather.cpu, 1),
        "rerun_run_batch_with_checkpoint_calls_per_cpu_s": round(n / t_ck.cpu, 1),
        "load_average": list(os.getloadavg()),
        "cache_entries": info["entries"],
        "cache_bytes_with_wal": info["size_bytes"],
        "cache_bytes_per_entry_with_wal": round(info["size_bytes"] / info["entries"], 1),
        "cache_bytes_settled": settled,
        "cache_bytes_per_entry_settled": round(settled / info["entries"], 1),
        "targets": {
            "zero_server_requests": rerun_requests == 0,
            "ge_5000_calls_per_s": min(n / wall_batch, n / wall_gather, n / wall_ck) >= 5000,
        },
    }
    emit(summary)


if __name__ == "__main__":
    main()
