"""Peak memory of a run against its number of items: records held vs streamed.

Runs the offline ``conflicteval score --input`` path (sentence decomposer,
lexical labeler: no model, no server) over generated inputs of 1k / 10k / 50k
items under ``/usr/bin/time -v`` and reads its peak RSS ("Maximum resident set
size"). For the CLI it also notes the peak reached before the summary is made
(``VmHWM`` when ``write_score_files`` starts: the run itself, its items, checkpoint
and index), and then runs the same command again on the same folder, which
**resumes** every item from the checkpoint (peak RSS of a resumed run). Side by
side in the same run, the same work through
``ConflictScorer.score_many(..., keep_records=True)`` (every record held in
memory), then the same rows written. The CLI streams: its records stay in the
checkpoint and are read back one at a time.

Every CLI run is checked to have written one scores.jsonl row per item.

    python benchmarks/runner_memory.py                 # 1k, 10k, 50k items
    python benchmarks/runner_memory.py --sizes 1000 5000 --repeat 1
    python benchmarks/runner_memory.py --no-held --decomposer whole   # the CLI alone, less CPU
    python benchmarks/runner_memory.py --src OTHER/src  # another checkout's code, same inputs
    python benchmarks/runner_memory.py --no-held --no-cli --runner-only --sizes 10000 50000 100000

Prints one line per size and mode, then a JSON summary as the last line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
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

HELD = """
import json, sys
from conflicteval.conflictscore import ConflictScorer
items = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
scorer = ConflictScorer()  # sentence decomposer, lexical labeler
result = scorer.score_many(items, checkpoint=sys.argv[2] + "/checkpoint.jsonl", progress=False)
rows = [{"id": r.id, "status": r.status} for r in result.records]
print(result.counts)
"""


CLI = """
import sys
import conflicteval.conflictscore.score_files as files

def hwm_kib():
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1

write = files.write_score_files

def noted(*args, **kwargs):  # the run's own peak, before the summary is made
    print(f"run-peak-kib {hwm_kib()}", file=sys.stderr)
    return write(*args, **kwargs)

files.write_score_files = noted
from conflicteval.cli import main
sys.exit(main(sys.argv[1:]))
"""


RUNNER = """
import sys
import conflicteval.conflictscore.score_inputs as inputs
from conflicteval import run_batch_sync
from conflicteval.conflictscore.score_inputs import lazy_items

if sys.argv[3] == "no-reader-ids":  # the input reader's own duplicate check keeps nothing
    class KeepNothing:
        def __init__(self, *args, **kwargs):
            pass

        def add(self, *args, **kwargs):
            pass

    inputs.UniqueIds = KeepNothing

async def work(item):
    return {"chars": len(item["response"])}

result = run_batch_sync(
    work, lazy_items(sys.argv[1]), checkpoint=sys.argv[2] + "/checkpoint.jsonl",
    keep_records=False, progress=False, inputs=lambda item: item["response"],
)
assert result.counts["total"] == sum(1 for _ in result.records)
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


def peak(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float | None]:
    """(peak RSS in MiB, wall seconds, the run's peak before its summary) of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, check=False, env=env
    )
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:  # 1: some items failed
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if found is None:
        raise SystemExit("no 'Maximum resident set size' in /usr/bin/time -v output")
    run = re.search(r"run-peak-kib (\d+)", proc.stderr)
    return int(found.group(1)) / 1024, wall, int(run.group(1)) / 1024 if run else None


def check_rows(out: Path, n: int) -> None:
    """The run wrote one scores.jsonl row per item (a crash is never a figure)."""
    with (out / "scores.jsonl").open("rb") as fh:
        rows = sum(1 for _ in fh)
    if rows != n:
        raise SystemExit(f"{out}: {rows} rows in scores.jsonl, expected {n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 50_000])
    parser.add_argument("--repeat", type=int, default=1, help="runs per size and mode")
    parser.add_argument("--no-held", action="store_true", help="only the streaming CLI")
    parser.add_argument("--no-resume", action="store_true", help="skip the resumed re-run")
    parser.add_argument(
        "--runner-only",
        action="store_true",
        help="also run_batch alone over the same file (a trivial item function, no summary), "
        "with the input reader's duplicate-id check and with one that keeps nothing",
    )
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI runs")
    parser.add_argument(
        "--decomposer",
        choices=["sentence", "whole"],
        default="sentence",
        help="the CLI's decomposer: whole (one claim per response) is ~4x less CPU per item "
        "for the same input (the held mode always uses sentence)",
    )
    parser.add_argument("--src", help="run another checkout's code (its src folder)")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.src:
        env["PYTHONPATH"] = str(Path(args.src).resolve())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            data = Path(tmp) / f"items-{n}.jsonl"
            make_input(data, n)
            modes = [] if args.no_cli else ["cli"] + ([] if args.no_resume else ["resume"])
            modes += [] if args.no_held else ["held"]
            modes += ["runner", "runner-no-ids"] if args.runner_only else []
            figures: dict[str, dict[str, list[float]]] = {m: {} for m in modes}
            for r in range(args.repeat):  # the modes alternate: load shifts hit each alike
                out = Path(tmp) / f"out-{n}-{r}"
                for mode in modes:
                    m, w, run = measure_one(mode, data, out, n, args.decomposer, env)
                    got = figures[mode]
                    got.setdefault("rss", []).append(m)
                    got.setdefault("wall", []).append(w)
                    if run is not None:
                        got.setdefault("run", []).append(run)
            for mode in modes:
                row = summarise(n, mode, figures[mode], args.decomposer)
                log(json.dumps(row))
                rows.append(row)
    emit({"benchmark": "runner_memory", "machine": machine(), "rows": rows, "src": args.src})


LABELS = {
    "cli": "stream (CLI)",
    "resume": "resume (CLI)",
    "held": "held",
    "runner": "run_batch alone (trivial items)",
    "runner-no-ids": "run_batch alone, reader's id check keeping nothing",
}


def measure_one(
    mode: str, data: Path, out: Path, n: int, decomposer: str, env: dict[str, str]
) -> tuple[float, float, float | None]:
    """One run of ``mode``: the CLI (then ``resume``: the same command again) or held."""
    if mode == "held" or mode.startswith("runner"):
        folder = out.with_name(f"{out.name}-{mode}")
        folder.mkdir()
        if mode == "held":
            return peak([sys.executable, "-c", HELD, str(data), str(folder)], env)
        ids = "no-reader-ids" if mode == "runner-no-ids" else "reader-ids"
        return peak([sys.executable, "-c", RUNNER, str(data), str(folder), ids], env)
    if mode == "cli":
        out.mkdir()
    cmd = [sys.executable, "-c", CLI, "score", "--input", str(data)]
    cmd += ["--out", str(out), "--quiet", "--no-cache", "--decomposer", decomposer]
    figures = peak(cmd, env)
    check_rows(out, n)
    return figures


def summarise(n: int, mode: str, got: dict[str, list[float]], decomposer: str) -> dict[str, Any]:
    wall = median(got["wall"])
    row: dict[str, Any] = {
        "items": n,
        "mode": LABELS[mode],
        "decomposer": "sentence" if mode == "held" else None if "runner" in mode else decomposer,
        "peak_rss_mib": round(median(got["rss"]), 1),
        "peak_rss_runs": [round(v, 1) for v in got["rss"]],
        "wall_s": round(wall, 2),
        "items_per_s": round(n / wall, 1),
    }
    if got.get("run"):
        row["run_peak_before_summary_mib"] = round(median(got["run"]), 1)
    return row


if __name__ == "__main__":
    main()
