"""Peak memory and rate of a ``--batch-export`` label round and of its import, by size.

The ConflictScore label round of the issue: responses of 3 sentences, 3 documents
each, the sentence decomposer and the paper's per-pair labeler (Table 7, one call
per claim x document pair), so 9 requests per response. For each size (default
20,000 / 100,000 / 180,000 requests: 2,223 / 11,112 / 20,000 responses) it runs,
each in a fresh child process under ``/usr/bin/time -v`` (its peak RSS is the
"Maximum resident set size"):

* **export**: ``conflicteval score --input ... --labeler llm --model openai/... --batch-export
  requests.jsonl`` against an empty cache (no server: every call becomes a request line);
* **import**: ``conflicteval batch import results.jsonl --export requests.jsonl`` of a
  results file written here (not timed) with one Table 7 reply per request, in OpenAI's
  result shape (a fixed short reply; an import stores the reply text without parsing it).

Rates are requests per second of the child's wall time (start-up included) and per
CPU second (user + system), the steadier figure on a shared machine.

    python benchmarks/batch_export_memory.py
    python benchmarks/batch_export_memory.py --sizes 20000 --quick
    python benchmarks/batch_export_memory.py --repeat 3        # medians of 3 runs per size
    python benchmarks/batch_export_memory.py --src OTHER/src   # another checkout's code

With ``--repeat``, the sizes take turns (20k, 100k, 180k, 20k, ...), so a change of load
on a shared machine falls on every size alike; each figure is the median of its runs.

Prints one line per size and step, then a JSON summary as the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import emit, log, machine, median

WORDS = (
    "the river city bridge was built in opened closed after before year council mayor "
    "north south company records report museum library station tower"
).split()

REPLY = json.dumps(  # the shape of a Table 7 reply (an import stores the text as it is)
    {
        "claim": "The bridge was built in 1901.",
        "document_snippet": "built in 1901",
        "reasoning": "The passage gives the same year.",
        "answer": "SUPPORTS",
    }
)


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + f" in {rng.randint(1800, 2020)}."


def make_input(path: Path, responses: int, seed: int = 11) -> None:
    """``responses`` items: a response of 3 sentences (3 claims) and 3 documents."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(responses):
            docs = [
                {"id": f"d{j}", "text": " ".join(sentence(rng) for _ in range(rng.randint(2, 4)))}
                for j in range(3)
            ]
            response = " ".join(sentence(rng) for _ in range(3))
            fh.write(json.dumps({"id": f"r{i}", "response": response, "documents": docs}) + "\n")


def answer(requests: list[Path], out: Path) -> int:
    """A result line per request line (OpenAI's shape), written line by line."""
    n = 0
    with out.open("w", encoding="utf-8") as dst:
        for path in requests:
            with path.open(encoding="utf-8") as src:
                for line in src:
                    req = json.loads(line)
                    body = {
                        "id": f"c{n}",
                        "object": "chat.completion",
                        "model": req["body"]["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": REPLY},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 700, "completion_tokens": 40},
                    }
                    row = {
                        "id": f"batch_req_{n}",
                        "custom_id": req["custom_id"],
                        "response": {"status_code": 200, "request_id": f"q{n}", "body": body},
                        "error": None,
                    }
                    dst.write(json.dumps(row) + "\n")
                    n += 1
    return n


def measure(cmd: list[str], env: dict[str, str], ok: tuple[int, ...]) -> dict[str, float]:
    """Peak RSS (MiB), wall and CPU seconds of ``cmd`` under /usr/bin/time -v."""
    start = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env, check=False
    )
    wall = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd[:4])} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")

    def field(name: str) -> float:
        found = re.search(rf"{re.escape(name)}: ([\d.]+)", proc.stderr)
        if found is None:
            raise SystemExit(f"no {name!r} in /usr/bin/time -v output")
        return float(found.group(1))

    return {
        "rss_mib": field("Maximum resident set size (kbytes)") / 1024,
        "wall": wall,
        "cpu": field("User time (seconds)") + field("System time (seconds)"),
    }


def one_size(folder: Path, requests: int, env: dict[str, str]) -> list[dict[str, Any]]:
    responses = -(-requests // 9)
    data = folder / "items.jsonl"
    make_input(data, responses)
    export = folder / "batch" / "requests.jsonl"
    cmd = [sys.executable, "-m", "conflicteval", "score", "--input", str(data)]
    cmd += ["--out", str(folder / "out"), "--quiet", "--labeler", "llm", "--decomposer"]
    cmd += ["sentence", "--model", "openai/gpt-4o-mini", "--base-url", "http://127.0.0.1:9/v1"]
    cmd += ["--batch-export", str(export)]
    exp = measure(cmd, env, ok=(3,))  # 3: requests wait for batch results
    files = sorted(export.parent.glob("requests*.jsonl"))
    files = [f for f in files if not f.name.endswith(".manifest.jsonl")]
    lines = sum(1 for f in files for _ in f.open("rb"))
    size = sum(f.stat().st_size for f in files)
    results = folder / "results.jsonl"
    answer(files, results)
    cmd = [sys.executable, "-m", "conflicteval", "batch", "import", str(results)]
    cmd += ["--export", str(export)]
    imp = measure(cmd, env, ok=(0,))
    rows = []
    for step, m in (("export", exp), ("import", imp)):
        rows.append(
            {
                "step": step,
                "requests": lines,
                "responses": responses,
                "files": len(files),
                "request_bytes": size,
                "peak_rss_mib": round(m["rss_mib"], 1),
                "wall_s": round(m["wall"], 2),
                "cpu_s": round(m["cpu"], 2),
                "requests_per_s": round(lines / m["wall"]),
                "requests_per_cpu_s": round(lines / m["cpu"]),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000, 180_000])
    parser.add_argument("--quick", action="store_true", help="only the first size")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size (medians)")
    parser.add_argument("--src", help="run another checkout's code (its src folder)")
    args = parser.parse_args()
    sizes = args.sizes[:1] if args.quick else args.sizes
    runs: dict[tuple[int, str], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):
            for n in sizes:
                folder = Path(tmp) / f"n{n}-{r}"
                folder.mkdir()
                env = {**os.environ, "CONFLICTEVAL_CACHE_DIR": str(folder / "cache")}
                if args.src:
                    env["PYTHONPATH"] = str(Path(args.src).resolve())
                env.setdefault("OPENAI_API_KEY", "x")
                for row in one_size(folder, n, env):
                    log(json.dumps(row))
                    runs.setdefault((n, row["step"]), []).append(row)
                shutil.rmtree(folder)  # the next size's files in its place
    rows = [_median_row(found) for found in runs.values()]
    emit({"benchmark": "batch_export_memory", "machine": machine(), "rows": rows, "src": args.src})


def _median_row(found: list[dict[str, Any]]) -> dict[str, Any]:
    """One size and step: the median of each measured figure over its runs."""
    row = dict(found[0])
    for name in ("peak_rss_mib", "wall_s", "cpu_s", "requests_per_s", "requests_per_cpu_s"):
        row[name] = round(median([f[name] for f in found]), 2)
    row["peak_rss_runs"] = [f["peak_rss_mib"] for f in found]
    row["requests_per_s_runs"] = [f["requests_per_s"] for f in found]
    row["runs"] = len(found)
    return row


if __name__ == "__main__":
    main()
