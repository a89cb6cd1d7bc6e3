"""Batch files: export and import speed (requests/s), and the replay that follows.

A workflow of N judge-like calls (default 50,000) runs through ``run_batch``
inside ``batch_export``: every call misses the cache, is recorded as a request
and leaves its item pending; leaving the block writes the request file(s) and
the manifest. The file is then answered as ``vllm run-batch`` would (by the
test server's reply script, no HTTP, not timed), the results are imported into
the response cache, and the workflow runs again, now entirely from the cache.

Reported: requests/s for the export (the whole workflow run in export mode,
and the file writing alone), for the import (parse + one SQLite transaction per
file) and for the replay (in batch mode, and without it for comparison), per
wall-clock and per CPU second; bytes per request line; and that the replay made
no request and exported nothing.

Usage::

    python benchmarks/batch_io.py [--requests 50000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import Timer, emit, log, machine

from conflicteval import get_model, run_batch_sync
from conflicteval.batch.export import batch_export
from conflicteval.batch.files import import_results, read_requests, write_requests
from conflicteval.cache import ResponseCache
from conflicteval.models.call import CallRequest
from conflicteval.testing import OpenAICompatServer


def prompt(i: int) -> str:
    """A judge-like prompt of a few hundred characters, distinct per item."""
    return (
        f"Question {i}: which year did the event described in document {i} take place? "
        "Document A says one year and document B says another. Read both documents "
        "carefully and answer with the year and a short justification naming the document."
    )


def reply(body: dict[str, Any]) -> str:
    """A reply of about 40 words that depends on the prompt."""
    text = str(body["messages"][-1]["content"])
    return f"The year is {len(text)}. " + " ".join(["Document A says so and B disagrees."] * 6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=50_000)
    args = parser.parse_args()
    n = args.requests
    items = [{"id": str(i), "prompt": prompt(i)} for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cache = ResponseCache(folder / "cache")
        model = get_model("openai/gpt-4o-mini", base_url="http://127.0.0.1:9/v1", cache=cache)

        async def work(item: dict[str, str]) -> str:
            out = await model.generate(item["prompt"], max_tokens=100)
            return out.text

        req = folder / "requests.jsonl"
        with Timer() as export_t:
            with batch_export(req) as exp:
                first = run_batch_sync(work, items, concurrency=64, progress=False)
        assert exp.result is not None and exp.result.requests == n
        assert first.counts.get("pending") == n
        size = sum(f.bytes for f in exp.result.files)
        log(f"export: {n} requests in {export_t.wall:.2f} s, {size / n:.0f} bytes per line")

        requests = [  # the exported lines again, as the export made them
            CallRequest(line["custom_id"], "openai/gpt-4o-mini", line["body"], line["url"])
            for f in exp.result.files
            for line in read_requests(f.path)
        ]
        rewrite = folder / "again" / "requests.jsonl"
        with Timer() as write_t:
            write_requests(rewrite, requests)
        log(f"file writing alone: {write_t.wall:.2f} s")
        assert rewrite.read_bytes() == exp.result.files[0].path.read_bytes() or n > 50_000

        server = OpenAICompatServer(reply)  # only its reply script: never started, no HTTP
        results = []
        for k, f in enumerate(exp.result.files):
            out = folder / f"results{k}.jsonl"
            out.write_text(server.answer_batch_file(f.path.read_text()))
            results.append(out)

        with Timer() as import_t:
            report = import_results(results, cache, [req])
        assert report.imported == n and report.n_failed == 0
        log(f"import: {n} replies in {import_t.wall:.2f} s")

        with Timer() as replay_t:
            with batch_export(req) as again:
                second = run_batch_sync(work, items, concurrency=64, progress=False)
        assert again.result is not None
        assert second.counts["ok"] == n and again.result.requests == 0
        log(f"replay: {n} calls from the cache in {replay_t.wall:.2f} s")
        with Timer() as plain_t:  # the same replay outside batch mode, for comparison
            third = run_batch_sync(work, items, concurrency=64, progress=False)
        assert third.counts["ok"] == n
        log(f"replay without batch mode: {plain_t.wall:.2f} s")

    emit(
        {
            "benchmark": "batch_io",
            "requests": n,
            "files": len(exp.result.files),
            "bytes_per_request": round(size / n),
            # per wall-clock second, and per CPU second of this process (the machine is shared)
            "export_requests_per_s": round(n / export_t.wall),
            "export_requests_per_cpu_s": round(n / export_t.cpu),
            "write_requests_per_s": round(n / write_t.wall),
            "write_requests_per_cpu_s": round(n / write_t.cpu),
            "import_requests_per_s": round(n / import_t.wall),
            "import_requests_per_cpu_s": round(n / import_t.cpu),
            "replay_calls_per_s": round(n / replay_t.wall),
            "replay_calls_per_cpu_s": round(n / replay_t.cpu),
            "replay_plain_calls_per_s": round(n / plain_t.wall),
            "replay_plain_calls_per_cpu_s": round(n / plain_t.cpu),
            "replay_exported": again.result.requests,
            "replay_server_requests": len(server.completions()),
            "machine": machine(),
            "when": time.strftime("%Y-%m-%d"),
        }
    )


if __name__ == "__main__":
    main()
