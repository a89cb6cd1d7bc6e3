"""Dataset loaders: time and peak memory.

* WikiContradict: ``load_wikicontradict`` on the real 253-row CSV release
  (``../shared/data/wikicontradict/WikiContradict_dataset_v1_rag_qa.csv``).
* FEVEROUS: ``iter_claims`` streaming synthetic JSON-lines files of 10,000 and
  100,000 records written in the real record layout (the records of
  ``../shared/data/feverous/feverous_train_first10.jsonl`` with new ids and
  claims). The streaming peak must not grow with the file; ``load_claims``
  (which keeps every claim) is shown for contrast.

Time is measured without tracemalloc (median of repeats); peak memory is the
tracemalloc peak of a separate pass (Python allocations only).

Usage::

    python benchmarks/loaders.py [--sizes 10000 100000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import SHARED_DATA, emit, log, machine, median

from conflicteval.feverous import iter_claims, load_claims
from conflicteval.wikicontradict import load_wikicontradict

WIKICONTRADICT_CSV = SHARED_DATA / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
FEVEROUS_SAMPLE = SHARED_DATA / "feverous" / "feverous_train_first10.jsonl"


def timed(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall seconds of ``repeats`` calls, and the last result."""
    times = []
    result: Any = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return median(times), result


def peak_bytes(fn: Callable[[], Any]) -> int:
    """The tracemalloc peak (bytes above the start) while ``fn`` runs."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
        del result
    finally:
        tracemalloc.stop()
    return peak - base


def write_synthetic_feverous(path: Path, n: int) -> int:
    """Write ``n`` records in the real FEVEROUS train layout; returns the file size."""
    templates = [json.loads(line) for line in FEVEROUS_SAMPLE.read_text("utf-8").splitlines()]
    with path.open("w", encoding="utf-8") as fh:
        for k in range(n):
            record = dict(templates[k % len(templates)])
            record["id"] = 100_000 + k
            record["claim"] = f"{record['claim']} (synthetic record {k})"
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path.stat().st_size


def stream_count(path: Path) -> int:
    """Stream every claim, keeping none; returns the count."""
    n = 0
    for _ in iter_claims(path):
        n += 1
    return n


def main(argv: list[str] | None = None) -> None:
    """Run the loader benchmarks and print a JSON summary last."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--no-load-claims", action="store_true", help="skip the list contrast")
    args = parser.parse_args(argv)

    wc_time, instances = timed(lambda: load_wikicontradict(WIKICONTRADICT_CSV), 20)
    wc_peak = peak_bytes(lambda: load_wikicontradict(WIKICONTRADICT_CSV))
    log(
        f"WikiContradict: {len(instances)} rows in {wc_time * 1000:.1f} ms, "
        f"peak {wc_peak / 2**20:.2f} MiB"
    )
    wikicontradict = {
        "rows": len(instances),
        "file_bytes": WIKICONTRADICT_CSV.stat().st_size,
        "load_ms_median_of_20": round(wc_time * 1000, 2),
        "peak_mib": round(wc_peak / 2**20, 2),
    }

    feverous: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            path = Path(tmp) / f"feverous_{n}.jsonl"
            size = write_synthetic_feverous(path, n)
            stream_time, count = timed(lambda p=path: stream_count(p), 3)
            assert count == n, (count, n)
            stream_peak = peak_bytes(lambda p=path: stream_count(p))
            row: dict[str, Any] = {
                "records": n,
                "file_mib": round(size / 2**20, 1),
                "stream_s_median_of_3": round(stream_time, 2),
                "stream_records_per_s": round(n / stream_time),
                "stream_peak_mib": round(stream_peak / 2**20, 3),
            }
            if not args.no_load_claims:
                row["load_claims_peak_mib"] = round(
                    peak_bytes(lambda p=path: load_claims(p)) / 2**20, 1
                )
            log(f"FEVEROUS {n}: {json.dumps(row)}")
            feverous[str(n)] = row
            path.unlink()

    sizes = sorted(args.sizes)
    small, large = feverous[str(sizes[0])], feverous[str(sizes[-1])]
    growth = large["stream_peak_mib"] / max(small["stream_peak_mib"], 1e-9)
    emit(
        {
            "benchmark": "loaders",
            "machine": machine(),
            "wikicontradict": wikicontradict,
            "feverous_stream": feverous,
            "stream_peak_ratio_largest_to_smallest": round(growth, 3),
            "targets": {
                # "must not grow with the file": allow 10 % noise for a 10x larger file
                "feverous_peak_flat": growth <= 1.1,
            },
        }
    )


if __name__ == "__main__":
    main()
