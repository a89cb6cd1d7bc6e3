"""Peak memory of a run against its number of items: records held vs streamed.

Runs the offline ``conflicteval score --input`` path (sentence decomposer,
lexical labeler: no model, no server) over generated inputs of 1k / 10k / 50k
items under ``/usr/bin/time -v`` and reads its peak RSS ("Maximum resident set
size"). Side by side in the same run, the same work through
``ConflictScorer.score_many(..., keep_records=True)`` (every record held in
memory, as every run did before records were streamed), then the same rows
written. The CLI streams: its records stay in the checkpoint and are read back
one at a time.

    python benchmarks/runner_memory.py                 # 1k, 10k, 50k items
    python benchmarks/runner_memory.py --sizes 1000 5000 --repeat 1
    python benchmarks/runner_memory.py --no-held --decomposer whole   # the CLI alone, less CPU

Prints one line per size and mode, then a JSON summary as the last line.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import emit, log, machine, median

WORDS = (
    "the river city bridge was built in opened closed after before year council mayor "
    "north south company records report museum library station tower"
).split()

HELD = """
import json, sys
from conflicteval.conflictscore import ConflictScorer
items = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
scorer = ConflictScorer()  # sentence decomposer, lexical labeler
result = scorer.score_many(items, checkpoint=sys.argv[2] + "/checkpoint.jsonl", progress=False)
rows = [{"id": r.id, "status": r.status} for r in result.records]
print(result.counts)
"""


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + f" in {rng.randint(1800, 2020)}."


def make_input(path: Path, n: int, seed: int = 7) -> None:
    """``n`` items: a response of 3-5 sentences and 3 documents of 4-8 sentences."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            docs = [
                {"id": f"d{j}", "text": " ".join(sentence(rng) for _ in range(rng.randint(4, 8)))}
                for j in range(3)
            ]
            response = " ".join(sentence(rng) for _ in range(rng.randint(3, 5)))
            row = {"id": f"item-{i}", "response": response, "documents": docs}
            fh.write(json.dumps(row) + "\n")


def peak(cmd: list[str]) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of ``cmd`` under /usr/bin/time -v."""
    start = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):  # 1: some items failed (counted, not a crash)
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if found is None:
        raise SystemExit("no 'Maximum resident set size' in /usr/bin/time -v output")
    return int(found.group(1)) / 1024, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 50_000])
    parser.add_argument("--repeat", type=int, default=1, help="runs per size and mode")
    parser.add_argument("--no-held", action="store_true", help="only the streaming CLI")
    parser.add_argument(
        "--decomposer",
        choices=["sentence", "whole"],
        default="sentence",
        help="the CLI's decomposer: whole (one claim per response) is ~4x less CPU per item "
        "for the same input (the held mode always uses sentence)",
    )
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            data = Path(tmp) / f"items-{n}.jsonl"
            make_input(data, n)
            modes = (
                {"stream (CLI)": "cli"} if args.no_held else {"stream (CLI)": "cli", "held": "held"}
            )
            for label, mode in modes.items():
                rss, wall = [], []
                for r in range(args.repeat):
                    out = Path(tmp) / f"out-{n}-{mode}-{r}"
                    out.mkdir()
                    if mode == "cli":
                        cmd = [sys.executable, "-m", "conflicteval", "score", "--input", str(data)]
                        cmd += ["--out", str(out), "--quiet", "--no-cache"]
                        cmd += ["--decomposer", args.decomposer]
                    else:
                        cmd = [sys.executable, "-c", HELD, str(data), str(out)]
                    m, w = peak(cmd)
                    rss.append(m)
                    wall.append(w)
                row = {
                    "items": n,
                    "mode": label,
                    "decomposer": args.decomposer if mode == "cli" else "sentence",
                    "peak_rss_mib": round(median(rss), 1),
                    "wall_s": round(median(wall), 2),
                    "items_per_s": round(n / median(wall), 1),
                }
                log(json.dumps(row))
                rows.append(row)
    emit({"benchmark": "runner_memory", "machine": machine(), "rows": rows})


if __name__ == "__main__":
    main()
