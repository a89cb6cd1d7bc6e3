"""The small profile suite against the project's test server: calls and wall time.

Runs ``conflicteval.profile`` (size ``small``) for one model on the real sample data in
``../shared/data`` (WikiContradict, RAMDocs, FEVEROUS-S, ConflictQA; the benchmarks whose data
is not there are listed on the card as not run), against the local OpenAI-compatible test server
(:mod:`conflicteval.testing`) answering every call after ``--latency`` seconds, with replies
shaped like each protocol's (an answer list, a label in JSON, a True/False memory, an option
letter). Three passes, each in a fresh profile directory but the same cache:

1. ``--dry-run``: the calls counted per benchmark (nothing sent);
2. the run: chat completions the server answered, wall time;
3. the same run again (resume): calls (expected 0) and wall time.

Usage::

    python benchmarks/profile_small.py [--latency 0.5] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, emit, log, machine


def reply(request: dict[str, Any]) -> str:
    """A reply of the shape each protocol's parser reads."""
    text = request["messages"][-1]["content"]
    if "Document-Claim Conflict Detection" in text:
        return json.dumps({"answer": "SUPPORTS", "reasoning": "benchmark", "snippet": ""})
    if text.rstrip().endswith("A:"):
        return "True\n\nBenchmark evidence."
    if "\nOptions:\n" in text:
        return "A"
    return "Answer: unknown. Explanation: b.\nAll Correct Answers: [unknown]. Explanation: b."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per call (0.5)")
    parser.add_argument("--concurrency", type=int, default=16, help="items in flight (16)")
    args = parser.parse_args()

    import conflicteval as ce
    from conflicteval.testing import OpenAICompatServer

    data = {
        "wikicontradict": SHARED_DATA / "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv",
        "ramdocs": SHARED_DATA / "ramdocs/RAMDocs_test_first30.jsonl",
        "feverous-s": SHARED_DATA / "feverous/feverous_s_dev_first5.json",
        "conflictqa-strategyqa-chatgpt": SHARED_DATA
        / "conflictqa/conflictQA-strategyQA-chatgpt_first30.json",
    }
    given = {k: str(v) for k, v in data.items() if v.exists()}
    with tempfile.TemporaryDirectory(prefix="profile-bench-") as tmp:
        os.environ["CONFLICTEVAL_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["CONFLICTEVAL_DATA_DIR"] = str(Path(tmp) / "datasets")
        os.environ["CONFLICTEVAL_OFFLINE"] = "1"
        with OpenAICompatServer(reply, latency=args.latency) as server:

            def chat() -> int:
                return sum(1 for r in server.requests if r.path.endswith("/chat/completions"))

            common: dict[str, Any] = {
                "data": given,
                "base_url": server.base_url,
                "concurrency": args.concurrency,
            }
            model = "openai/gpt-4o-mini"
            t0 = time.perf_counter()
            cells = ce.profile(model, Path(tmp) / "dry", dry_run=True, **common)
            dry_s = time.perf_counter() - t0
            counted = {c.benchmark: c.dry_run["calls"] for c in cells if c.dry_run}
            log(f"dry run: {sum(counted.values())} calls counted in {dry_s:.1f} s, {chat()} sent")
            out = Path(tmp) / "card"
            t0 = time.perf_counter()
            card = ce.profile(model, out, **common)
            run_s, run_calls = time.perf_counter() - t0, chat()
            log(f"run: {run_calls} calls in {run_s:.1f} s")
            t0 = time.perf_counter()
            ce.profile(model, out, **common)
            resume_s, resume_calls = time.perf_counter() - t0, chat() - run_calls
            log(f"resume: {resume_calls} calls in {resume_s:.1f} s")
            per_cell = {
                c["benchmark"]: {"status": c["status"], "wall_s": c.get("wall_s")}
                for c in card.model_extra["profile"]["cells"]
            }
    emit(
        {
            "benchmark": "profile_small",
            "latency_s": args.latency,
            "concurrency": args.concurrency,
            "data": sorted(given),
            "dry_run": {"calls_counted": counted, "wall_s": round(dry_s, 2)},
            "run": {"calls": run_calls, "wall_s": round(run_s, 2)},
            "resume": {"calls": resume_calls, "wall_s": round(resume_s, 2)},
            "cells": per_cell,
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
