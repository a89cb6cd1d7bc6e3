"""Client CPU per call: the lean transport, the SDK, a hand loop, ConflictScorer; cache; start-up.

Issue targets, each measured as a ratio side by side in one run:

* **lean transport** (``transport="http"``, the default) vs a hand-written
  ``AsyncOpenAI`` + ``asyncio.Semaphore`` loop, against the test server in its
  own process: client CPU per call at L = 0 (target <= 0.5x) and calls/s at
  L = 200 ms. The lean transport runs on each HTTP client given by ``--clients``
  (default: its built-in HTTP/1.1 client, the default, and httpx, the general
  client of a default install; ``httpx2`` and the library on the ``sdk``
  transport can be added), interleaved A B C A B C within each repeat.
* **ConflictScorer online** (sentence decomposer + the paper's per-pair LLM
  labeler, cache off) vs bare ``Model.generate`` calls with the same prompts and
  settings (the labeller's structured calls), same server, same run: client CPU
  per call (target <= 1.10x).
* **cached re-run**: the same scorer re-run entirely from a filled cache vs bare
  ``Model.generate`` over the same cached calls: calls/s (target >= 10,000/s and
  >= 0.4x the bare rate); calls per CPU-second are shown too, since wall-clock
  rates on a shared machine move with its load.
* **start-up**: ``python -c "import conflicteval"`` and ``conflicteval --help``
  (target < 0.3 s), wall and CPU of the child process, median of repeats.

Usage::

    python benchmarks/lean_client.py            # ~4 min
    python benchmarks/lean_client.py --quick    # a smaller smoke run
    python benchmarks/lean_client.py --parts transports,rate --repeats 5  # target 4 only
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

from _common import Timer, emit, log, machine, median, server_process

from conflicteval import ConflictScorer, LLMLabeler, SentenceDecomposer, get_model
from conflicteval.conflictscore.labelers import PairReply, pair_prompt
from conflicteval.types import Document

PAIR = json.dumps({"claim": "c", "document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS"})
PLAIN: dict[str, Any] = {"temperature": 0.0, "max_tokens": 250, "seed": 5}


def items(n: int, claims: int, docs: int) -> list[dict[str, Any]]:
    """``n`` responses of ``claims`` sentences, each with ``docs`` short documents."""
    return [
        {
            "id": str(i),
            "response": " ".join(f"Fact {k} of response {i} holds." for k in range(claims)),
            "documents": [
                {"id": f"d{j}", "text": f"Document {j} of response {i}."} for j in range(docs)
            ],
        }
        for i in range(n)
    ]


def labelling_calls(batch: list[dict[str, Any]]) -> list[str]:
    """The Table 7 prompts the scorer sends for ``batch`` (one per claim x document)."""
    out = []
    for item in batch:
        claims = SentenceDecomposer().decompose_sync(item["response"]).claims
        for claim in claims:
            for d in item["documents"]:
                out.append(pair_prompt(claim, Document(**d)))
    return out


def _model(
    url: str, c: int, *, transport: str = "http", cache: Any = False, http_client: Any = None
) -> Any:
    return get_model(
        "openai/bench",
        base_url=url,
        api_key="x",
        cache=cache,
        max_concurrency=c,
        transport=transport,
        http_client=http_client,
    )


async def _timed(run: Any, warm: Any) -> tuple[float, float]:
    await warm()
    gc.collect()
    with Timer() as t:
        await run()
    return t.wall, t.cpu


async def run_hand(url: str, n: int, c: int) -> tuple[float, float]:
    """The hand-written SDK loop: AsyncOpenAI(max_retries=0) + a semaphore."""
    import openai

    client = openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    sem = asyncio.Semaphore(c)

    async def one(i: int) -> str:
        async with sem:
            resp = await client.chat.completions.create(
                model="bench",
                messages=[{"role": "user", "content": f"prompt {i}"}],
                timeout=60.0,
                **PLAIN,
            )
        return resp.choices[0].message.content or ""

    async def many(lo: int, hi: int) -> None:
        texts = await asyncio.gather(*(one(i) for i in range(lo, hi)))
        assert all(texts)

    try:
        return await _timed(lambda: many(0, n), lambda: many(-2 * c, 0))
    finally:
        await client.close()


async def run_library(
    url: str, n: int, c: int, transport: str, http_client: str | None = None
) -> tuple[float, float]:
    """``Model.generate`` with plain prompts on one transport (and HTTP client)."""
    model = _model(url, c, transport=transport, http_client=http_client)

    async def many(lo: int, hi: int) -> None:
        outs = await asyncio.gather(
            *(model.generate(f"prompt {i}", **PLAIN) for i in range(lo, hi))
        )
        assert all(o.text for o in outs)

    try:
        return await _timed(lambda: many(0, n), lambda: many(-2 * c, 0))
    finally:
        await model.aclose()


async def run_scorer(url: str, batch: list[dict[str, Any]], c: int, cache: Any = False) -> Any:
    """ConflictScorer (sentence + per-pair LLM labeler) over ``batch``; (wall, cpu, calls)."""
    model = _model(url, c, cache=cache)
    scorer = ConflictScorer(SentenceDecomposer(), LLMLabeler(model))
    warm = items(2, 2, 2)
    for w in warm:
        w["id"] = "warm-" + w["id"]
    try:
        await scorer.ascore_many(warm, concurrency=8, progress=False)
        calls0 = model.usage.calls
        gc.collect()
        with Timer() as t:
            result = await scorer.ascore_many(batch, concurrency=8, progress=False)
        assert result.counts["ok"] == len(batch), result.counts
        return t.wall, t.cpu, model.usage.calls - calls0
    finally:
        await model.aclose()


async def run_bare(url: str, prompts: list[str], c: int, cache: Any = False) -> Any:
    """Bare Model.generate with the labeller's prompts and settings; (wall, cpu, calls)."""
    model = _model(url, c, cache=cache)
    settings = {"temperature": 0.0, "max_tokens": 512, "seed": 5, "response_schema": PairReply}

    async def many(ps: list[str]) -> None:
        outs = await asyncio.gather(*(model.generate(p, **settings) for p in ps))
        assert all(isinstance(o.parsed, PairReply) for o in outs)

    try:
        await many(["warm-up " + p for p in prompts[: 2 * c]])
        calls0 = model.usage.calls
        gc.collect()
        with Timer() as t:
            await many(prompts)
        return t.wall, t.cpu, model.usage.calls - calls0
    finally:
        await model.aclose()


CLIENTS = ("hand", "builtin", "httpx", "httpx2", "sdk")
"""The contenders: the hand loop, the lean transport on each HTTP client, the SDK transport."""


def _run_one(which: str, url: str, n: int, c: int) -> tuple[float, float]:
    if which == "hand":
        return asyncio.run(run_hand(url, n, c))
    if which == "sdk":
        return asyncio.run(run_library(url, n, c, "sdk"))
    return asyncio.run(run_library(url, n, c, "http", http_client=which))


def _spread(values: list[float]) -> dict[str, float]:
    return {
        "min": round(min(values), 3),
        "median": round(median(values), 3),
        "max": round(max(values), 3),
    }


def transports(
    n: int, c: int, repeats: int, clients: list[str], latency: float = 0.0
) -> dict[str, Any]:
    """Target 4: the lean transport on each HTTP client vs the hand loop, one latency.

    Each repeat runs every contender once, back to back (A B C), in an order rotated by one
    per repeat; CPU is the process's (user + system) for the timed calls only.
    """
    cpu: dict[str, list[float]] = {k: [] for k in clients}
    rates: dict[str, list[float]] = {k: [] for k in clients}
    with server_process(latency) as server:
        for r in range(repeats):
            shift = r % len(clients)
            for which in clients[shift:] + clients[:shift]:
                wall, used = _run_one(which, server.base_url, n, c)
                cpu[which].append(1000 * used / n)
                rates[which].append(n / wall)
                log(
                    f"L={latency:g} {which:7s}: {n / wall:7.1f} calls/s, "
                    f"client CPU {1000 * used / n:.3f} ms/call"
                )
    out: dict[str, Any] = {
        "latency_s": latency,
        "calls": n,
        "concurrency": c,
        "repeats": repeats,
        "order": "rotated per repeat: " + ", ".join(clients),
        "client_cpu_ms_per_call": {k: _spread(v) for k, v in cpu.items()},
        "calls_per_s": {k: _spread(v) for k, v in rates.items()},
    }
    if "hand" in clients:
        # the contenders of one repeat ran within seconds of each other, under the same load:
        # the per-repeat ratios are the figures least moved by a shared machine's drifting load
        for k in clients:
            if k == "hand":
                continue
            cpu_ratio = [a / b for a, b in zip(cpu[k], cpu["hand"], strict=True)]
            rate_ratio = [a / b for a, b in zip(rates[k], rates["hand"], strict=True)]
            out[f"{k}_cpu_ratio_to_hand"] = _spread(cpu_ratio)
            out[f"{k}_rate_ratio_to_hand"] = _spread(rate_ratio)
            out[f"{k}_per_repeat_cpu_ratio"] = [round(x, 3) for x in cpu_ratio]
    return out


def scorer_online(batch: list[dict[str, Any]], c: int, repeats: int) -> dict[str, Any]:
    """Target 1: ConflictScorer's client CPU per call vs bare Model.generate, same server."""
    prompts = labelling_calls(batch)
    per: dict[str, list[float]] = {"scorer": [], "bare": []}
    with server_process(0.0, extra=["--reply", PAIR]) as server:
        for r in range(repeats):
            for which in ("scorer", "bare") if r % 2 == 0 else ("bare", "scorer"):
                if which == "scorer":
                    _, cpu, calls = asyncio.run(run_scorer(server.base_url, batch, c))
                else:
                    _, cpu, calls = asyncio.run(run_bare(server.base_url, prompts, c))
                per[which].append(1000 * cpu / calls)
                log(
                    f"online {which:6s}: {calls} calls, client CPU {1000 * cpu / calls:.3f} ms/call"
                )
    cpu = {k: median(v) for k, v in per.items()}
    return {
        "calls": len(prompts),
        "repeats": repeats,
        "client_cpu_ms_per_call": {k: round(v, 3) for k, v in cpu.items()},
        "scorer_cpu_ratio_to_bare": round(
            median([a / b for a, b in zip(per["scorer"], per["bare"], strict=True)]), 3
        ),
        "ratio_of_medians": round(cpu["scorer"] / cpu["bare"], 3),
        "per_repeat_ratio": [
            round(a / b, 3) for a, b in zip(per["scorer"], per["bare"], strict=True)
        ],
    }


def cached_rerun(batch: list[dict[str, Any]], c: int, repeats: int) -> dict[str, Any]:
    """Target 2: re-run from a filled cache, scorer vs bare Model.generate."""
    prompts = labelling_calls(batch)
    out: dict[str, list[tuple[float, float, int]]] = {"scorer": [], "bare": []}
    with (
        tempfile.TemporaryDirectory() as cache_dir,
        server_process(0.0, extra=["--reply", PAIR]) as server,
    ):
        url = server.base_url
        asyncio.run(run_scorer(url, batch, c, cache=cache_dir))  # fills the cache
        asyncio.run(run_bare(url, prompts, c, cache=cache_dir))  # the warm-up prompts too
        srv0 = server.cpu_seconds()
        for r in range(repeats):
            for which in ("scorer", "bare") if r % 2 == 0 else ("bare", "scorer"):
                fn = run_scorer if which == "scorer" else run_bare
                arg = batch if which == "scorer" else prompts
                wall, cpu, calls = asyncio.run(fn(url, arg, c, cache=cache_dir))  # type: ignore[operator]
                out[which].append((wall, cpu, calls))
                log(f"cached {which:6s}: {calls / wall:8.0f} calls/s, {calls / cpu:8.0f} per CPU-s")
        server_busy = server.cpu_seconds() - srv0
    rate = {k: median([n / w for w, _, n in v]) for k, v in out.items()}
    per_cpu = {k: median([n / cpu for _, cpu, n in v]) for k, v in out.items()}
    return {
        "calls": len(prompts),
        "repeats": repeats,
        "calls_per_s": {k: round(v) for k, v in rate.items()},
        "calls_per_cpu_s": {k: round(v) for k, v in per_cpu.items()},
        "scorer_ratio_to_bare": round(rate["scorer"] / rate["bare"], 3),
        "scorer_ratio_to_bare_per_cpu": round(per_cpu["scorer"] / per_cpu["bare"], 3),
        "server_cpu_s_during_reruns": round(server_busy, 3),  # ~0: no request was made
    }


def versions() -> dict[str, str | None]:
    """The installed versions of the packages the transports are built on."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in ("openai", "httpx", "httpx2", "httpcore", "pydantic"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def startup(repeats: int) -> dict[str, Any]:
    """Target 7: wall and CPU seconds of ``import conflicteval`` and ``conflicteval --help``."""
    commands = {
        "python_alone": [sys.executable, "-c", "pass"],
        "import_conflicteval": [sys.executable, "-c", "import conflicteval"],
        "help": [sys.executable, "-m", "conflicteval", "--help"],
        "import_openai_for_contrast": [sys.executable, "-c", "import openai"],
    }
    out: dict[str, Any] = {}
    for name, cmd in commands.items():
        walls, cpus = [], []
        for _ in range(repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=os.environ.copy())
            walls.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out[name] = {"wall_s": round(median(walls), 3), "cpu_s": round(median(cpus), 3)}
        log(f"start-up {name}: {out[name]}")
    return out


def main(argv: list[str] | None = None) -> None:
    """Run every part and print a JSON summary last."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per transport run, L=0")
    parser.add_argument(
        "--calls-latency", type=int, default=640, help="calls per transport run at --latency"
    )
    parser.add_argument(
        "--latency", type=float, default=0.2, help="the server latency of the rate part (s)"
    )
    parser.add_argument(
        "--clients",
        default="hand,builtin,httpx",
        help=f"transport contenders, comma-separated, of {','.join(CLIENTS)}",
    )
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--responses", type=int, default=80, help="scorer responses (5x5 each)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer calls and repeats")
    parser.add_argument(
        "--parts",
        default="transports,rate,online,cached,startup",
        help="comma-separated parts to run (default: all)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.calls, args.calls_latency, args.responses, args.repeats = 400, 160, 16, 1
    clients = [k.strip() for k in args.clients.split(",") if k.strip()]
    unknown = sorted(set(clients) - set(CLIENTS))
    if unknown or not clients:
        parser.error(f"--clients: unknown {', '.join(unknown)} (choose from {', '.join(CLIENTS)})")
    from conflicteval.models.http_transport import http_module

    parts = set(args.parts.split(","))
    c = args.concurrency
    batch = items(args.responses, 5, 5)
    summary: dict[str, Any] = {
        "benchmark": "lean_client",
        "machine": machine(),
        "general_http_client": http_module().__name__,
        "versions": versions(),
    }
    targets: dict[str, bool] = {}
    if "transports" in parts:
        lean = summary["transports_at_zero_latency"] = transports(
            args.calls, c, args.repeats, clients
        )
        for k in clients:
            if k != "hand" and "hand" in clients:
                ratio = lean[f"{k}_cpu_ratio_to_hand"]["median"]
                targets[f"lean_{k}_cpu_le_0.5_of_hand"] = ratio <= 0.5
    if "rate" in parts:
        summary["transports_at_latency"] = transports(
            args.calls_latency, c, args.repeats, clients, latency=args.latency
        )
    if "online" in parts:
        online = summary["scorer_online"] = scorer_online(batch, c, args.repeats)
        targets["scorer_cpu_le_1.10_of_bare"] = online["scorer_cpu_ratio_to_bare"] <= 1.10
    if "cached" in parts:
        cached = summary["cached_rerun"] = cached_rerun(
            items(args.responses * 4, 5, 5), c, args.repeats
        )
        targets["cached_scorer_ge_10000_per_s"] = cached["calls_per_s"]["scorer"] >= 10_000
        targets["cached_scorer_ge_0.4_of_bare"] = cached["scorer_ratio_to_bare"] >= 0.4
    if "startup" in parts:
        start = summary["startup"] = startup(5 if not args.quick else 2)
        targets["import_lt_0.3_s"] = start["import_conflicteval"]["wall_s"] < 0.3
        targets["help_lt_0.3_s"] = start["help"]["wall_s"] < 0.3
    summary["load_average"] = os.getloadavg()
    summary["targets"] = targets
    emit(summary)


if __name__ == "__main__":
    main()
