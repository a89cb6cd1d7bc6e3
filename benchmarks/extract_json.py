"""JSON extraction from hostile or runaway replies: time per reply shape.

``extract_json`` runs on the event loop, inside every structured call. Each
shape below is about one megabyte; the old extraction rescanned from every
``{`` (quadratic: 10,000 braces took 3.6 s, a megabyte did not finish). CPU
time, median of repeats.

Usage::

    python benchmarks/extract_json.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

from _common import emit, log, machine, median

from conflicteval.jsonparse import MAX_EXAMINED, extract_json

SHAPES = {
    "open braces": "{" * 1_000_000,
    "nested braces": "{" * 500_000 + "}" * 500_000,
    "brace pairs": "{}" * 500_000,
    "open keys": '{"a":' * 200_000,
    "malformed objects": '{"a" 1} ' * 125_000,
    "nested brackets": "[" * 500_000 + "]" * 500_000,
    "open strings": '{"' * 500_000,
    "prose then an object": "word " * 200_000 + '{"answer": "SUPPORTS"}',
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    results = {}
    for name, reply in SHAPES.items():
        times = []
        for _ in range(args.repeats):
            start = time.process_time()
            try:
                extract_json(reply)
            except ValueError:
                pass
            times.append(time.process_time() - start)
        results[name] = {"chars": len(reply), "cpu_s": round(median(times), 4)}
        log(f"{name:22s} {len(reply):>9,} chars  {median(times) * 1000:8.1f} ms")
    emit(
        {
            "benchmark": "extract_json",
            "max_examined": MAX_EXAMINED,
            "shapes": results,
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
