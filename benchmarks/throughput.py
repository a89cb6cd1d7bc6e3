"""Throughput of the model layer against the concurrency limit, and against a hand loop.

A local OpenAI-compatible server (``python -m conflicteval.testing.server``) runs
in its own process and answers every request after a fixed latency L, with no
server-side concurrency limit. N calls are driven at concurrency C through

* the library: ``get_model("openai/bench", ..., cache=False, max_concurrency=C)``
  and ``asyncio.gather`` over ``model.generate``;
* a hand-written loop: ``AsyncOpenAI(max_retries=0)`` + ``asyncio.Semaphore(C)``
  + ``asyncio.gather`` (same request parameters).

Both loops hit the same server process, alternate which goes first, repeat,
and the medians are reported. Each run warms its connection pool first.

It also measures the wrapper's own CPU cost per call with a provider that does
no network I/O (library ``Model.generate`` vs ``semaphore + provider.complete``).

Usage::

    python benchmarks/throughput.py                 # the full targets (C=32, N=2000)
    python benchmarks/throughput.py --quick         # a smaller smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import gc
from typing import Any

import openai
from _common import ServerProcess, Timer, emit, log, machine, median, server_process

from conflicteval import get_model
from conflicteval.models import Model, ProviderRequest, ProviderResponse

SETTINGS: dict[str, Any] = {"temperature": 0.0, "max_tokens": 250, "seed": 5}


def prompt(i: int) -> str:
    """A distinct short prompt per call."""
    return f"benchmark prompt number {i}: reply OK"


async def _library(base_url: str, n: int, c: int, warm: int) -> tuple[float, float]:
    model = get_model(
        "openai/bench", base_url=base_url, api_key="x", cache=False, max_concurrency=c
    )

    async def one(i: int) -> str:
        return (await model.generate(prompt(i), **SETTINGS)).text

    try:
        await asyncio.gather(*(one(-1 - i) for i in range(warm)))
        gc.collect()
        with Timer() as t:
            texts = await asyncio.gather(*(one(i) for i in range(n)))
    finally:
        await model.aclose()
    assert len(texts) == n and all(texts)
    return t.wall, t.cpu


async def _hand(base_url: str, n: int, c: int, warm: int) -> tuple[float, float]:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0)
    sem = asyncio.Semaphore(c)

    async def one(i: int) -> str:
        async with sem:
            resp = await client.chat.completions.create(
                model="bench",
                messages=[{"role": "user", "content": prompt(i)}],
                timeout=60.0,
                **SETTINGS,
            )
        return resp.choices[0].message.content or ""

    try:
        await asyncio.gather(*(one(-1 - i) for i in range(warm)))
        gc.collect()
        with Timer() as t:
            texts = await asyncio.gather(*(one(i) for i in range(n)))
    finally:
        await client.close()
    assert len(texts) == n and all(texts)
    return t.wall, t.cpu


def _measure(server: ServerProcess, latency: float, n: int, c: int, repeats: int) -> dict[str, Any]:
    """Alternate library and hand runs against one server process; medians of each."""
    runs: dict[str, list[dict[str, float]]] = {"library": [], "hand": []}
    warm = 2 * c
    for r in range(repeats):
        order = ("library", "hand") if r % 2 == 0 else ("hand", "library")
        for which in order:
            fn = _library if which == "library" else _hand
            srv0 = server.cpu_seconds()
            wall, cpu = asyncio.run(fn(server.base_url, n, c, warm))
            srv_cpu = server.cpu_seconds() - srv0
            run = {
                "calls_per_s": n / wall,
                "wall_s": wall,
                "client_cpu_ms_per_call": 1000 * cpu / n,
                # includes the warm-up calls: an upper bound on the server's share
                "server_cpu_ms_per_call": 1000 * srv_cpu / (n + warm),
            }
            runs[which].append(run)
            log(
                f"L={latency * 1000:.0f}ms C={c} N={n} {which:7s}: {run['calls_per_s']:8.1f}"
                f" calls/s, client CPU {run['client_cpu_ms_per_call']:.3f} ms/call,"
                f" server CPU {run['server_cpu_ms_per_call']:.3f} ms/call"
            )

    def med(which: str, field: str) -> float:
        return median([x[field] for x in runs[which]])

    lib = med("library", "calls_per_s")
    hand = med("hand", "calls_per_s")
    out: dict[str, Any] = {
        "latency_s": latency,
        "concurrency": c,
        "calls": n,
        "repeats": repeats,
        "library_calls_per_s": round(lib, 1),
        "hand_calls_per_s": round(hand, 1),
        "ratio_to_hand": round(lib / hand, 3),
        "per_repeat_ratio_to_hand": [
            round(a["calls_per_s"] / b["calls_per_s"], 3)
            for a, b in zip(runs["library"], runs["hand"], strict=True)
        ],
        "library_client_cpu_ms_per_call": round(med("library", "client_cpu_ms_per_call"), 3),
        "hand_client_cpu_ms_per_call": round(med("hand", "client_cpu_ms_per_call"), 3),
        "server_cpu_ms_per_call": round(
            median([x["server_cpu_ms_per_call"] for v in runs.values() for x in v]), 3
        ),
    }
    out["library_cpu_overhead_ms_per_call"] = round(
        out["library_client_cpu_ms_per_call"] - out["hand_client_cpu_ms_per_call"], 3
    )
    if latency > 0:
        ideal = c / latency
        out["ideal_calls_per_s"] = round(ideal, 1)
        out["ratio_to_ideal"] = round(lib / ideal, 3)
        out["hand_ratio_to_ideal"] = round(hand / ideal, 3)
    else:
        # with no latency the two processes share two cores; the server's CPU per call
        # against the client's shows which side limits the rate
        out["server_is_bottleneck"] = out["server_cpu_ms_per_call"] >= min(
            out["library_client_cpu_ms_per_call"], out["hand_client_cpu_ms_per_call"]
        )
    return out


class NullProvider:
    """A provider that answers at once with no I/O: isolates the wrapper's own cost."""

    name = "null"
    model = "null"
    base_url = "null://"
    supports_schema = False

    async def complete(self, request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        """Return a fixed reply."""
        return ProviderResponse(
            text="OK", finish_reason="stop", prompt_tokens=7, completion_tokens=1
        )


async def _wrapper_cost(n: int, c: int) -> dict[str, float]:
    """CPU per call of Model.generate vs semaphore + provider.complete, no network."""
    provider = NullProvider()
    model = Model(provider, cache=None, max_concurrency=c)
    sem = asyncio.Semaphore(c)

    async def bare(i: int) -> str:
        request = ProviderRequest(
            messages=[{"role": "user", "content": prompt(i)}],
            temperature=0.0,
            max_tokens=250,
            seed=5,
        )
        async with sem:
            return (await provider.complete(request, 60.0)).text

    async def wrapped(i: int) -> str:
        return (await model.generate(prompt(i), **SETTINGS)).text

    best: dict[str, float] = {}
    for _ in range(3):
        for name, fn in (("bare", bare), ("wrapped", wrapped)):
            gc.collect()
            with Timer() as t:
                await asyncio.gather(*(fn(i) for i in range(n)))
            best[name] = min(best.get(name, float("inf")), t.cpu)
    return {
        "bare_cpu_ms_per_call": round(1000 * best["bare"] / n, 4),
        "wrapped_cpu_ms_per_call": round(1000 * best["wrapped"] / n, 4),
        "wrapper_overhead_ms_per_call": round(1000 * (best["wrapped"] - best["bare"]) / n, 4),
    }


_REPLY = {
    "id": "chatcmpl-0",
    "object": "chat.completion",
    "created": 0,
    "model": "bench",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "OK"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8},
}


def _mock_client() -> openai.AsyncOpenAI:
    """An SDK client whose transport answers in-process (no sockets)."""
    import importlib

    # the HTTP client the installed openai SDK is built on (httpx, or httpx2 for openai 3.x)
    base = openai.DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0]
    hx: Any = importlib.import_module(base)

    def handler(request: Any) -> Any:
        return hx.Response(200, json=_REPLY)

    http = hx.AsyncClient(transport=hx.MockTransport(handler))
    return openai.AsyncOpenAI(
        base_url="http://127.0.0.1:9/v1", api_key="x", max_retries=0, http_client=http
    )


async def _sdk_no_network(n: int, c: int, repeats: int = 5) -> dict[str, float]:
    """CPU per call through the real SDK with an in-process transport: library vs hand loop.

    The difference is the library's own CPU per call above the SDK's, free of
    network and server noise. The minimum over alternating repeats is used.
    """
    loop = asyncio.get_running_loop()
    model = get_model(
        "openai/bench",
        base_url="http://127.0.0.1:9/v1",
        api_key="x",
        cache=False,
        max_concurrency=c,
        transport="sdk",  # this measures the SDK path: its client gets the in-process transport
    )
    model.provider._clients[loop] = _mock_client()  # type: ignore[attr-defined]
    hand_client = _mock_client()
    sem = asyncio.Semaphore(c)

    async def hand(i: int) -> str:
        async with sem:
            resp = await hand_client.chat.completions.create(
                model="bench",
                messages=[{"role": "user", "content": prompt(i)}],
                timeout=60.0,
                **SETTINGS,
            )
        return resp.choices[0].message.content or ""

    async def lib(i: int) -> str:
        return (await model.generate(prompt(i), **SETTINGS)).text

    best: dict[str, float] = {}
    for r in range(repeats):
        order = (("hand", hand), ("library", lib)) if r % 2 else (("library", lib), ("hand", hand))
        for name, fn in order:
            gc.collect()
            with Timer() as t:
                await asyncio.gather(*(fn(i) for i in range(n)))
            best[name] = min(best.get(name, float("inf")), t.cpu)
    await model.aclose()
    await hand_client.close()
    return {
        "hand_cpu_ms_per_call": round(1000 * best["hand"] / n, 4),
        "library_cpu_ms_per_call": round(1000 * best["library"] / n, 4),
        "library_overhead_ms_per_call": round(1000 * (best["library"] - best["hand"]) / n, 4),
    }


def main(argv: list[str] | None = None) -> None:
    """Run the throughput benchmark and print a JSON summary last."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=3, help="repeats at latency L")
    parser.add_argument("--repeats-zero", type=int, default=5, help="repeats at L=0")
    parser.add_argument("--quick", action="store_true", help="N=400, 1 and 3 repeats")
    args = parser.parse_args(argv)
    if args.quick:
        args.calls, args.repeats, args.repeats_zero = 400, 1, 3
    n, c = args.calls, args.concurrency

    with server_process(args.latency) as server:
        at_latency = _measure(server, args.latency, n, c, args.repeats)
    with server_process(0.0) as server:
        at_zero = _measure(server, 0.0, n, c, args.repeats_zero)
    wrapper = asyncio.run(_wrapper_cost(20_000, c))
    log(f"wrapper without network: {wrapper}")
    sdk_mock = asyncio.run(_sdk_no_network(2000, c))
    log(f"SDK with in-process transport: {sdk_mock}")

    cpu_overhead = at_zero["library_cpu_overhead_ms_per_call"]
    summary = {
        "benchmark": "throughput",
        "machine": machine(),
        "at_latency": at_latency,
        "at_zero_latency": at_zero,
        "wrapper_no_network": wrapper,
        "sdk_in_process_transport": sdk_mock,
        "targets": {
            "ratio_to_ideal_ge_0.90": at_latency.get("ratio_to_ideal", 0) >= 0.90,
            "ratio_to_hand_at_L_ge_0.95": at_latency["ratio_to_hand"] >= 0.95,
            "ratio_to_hand_at_0_ge_0.95": at_zero["ratio_to_hand"] >= 0.95,
            "cpu_overhead_lt_0.5_ms": max(
                cpu_overhead,
                wrapper["wrapper_overhead_ms_per_call"],
                sdk_mock["library_overhead_ms_per_call"],
            )
            < 0.5,
        },
    }
    emit(summary)


if __name__ == "__main__":
    main()
