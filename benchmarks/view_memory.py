"""Peak memory of ``conflicteval view`` against the number of items in the run.

Writes a ConflictScore run directory of N responses (the synthetic run the viewer's own
tests use: 3-5 claims, 3 documents from a pool of 400, a snippet and a reasoning on every
claims x documents cell, some failures; every record with its input row's fingerprint, so
each item's question and documents are read from the input file), then runs
``conflicteval view RUN -o page.html`` on it in a fresh process under ``/usr/bin/time -v``
and reads the peak resident memory ("Maximum resident set size"). Prints one line per
size, the ratio of the largest size's peak to the smallest's (the target: flat, at most
1.5x), then a JSON summary as the last line. Each page is checked to end with ``</html>``
and to hold the last item's id.

    python benchmarks/view_memory.py                        # 10k, 50k, 100k items
    python benchmarks/view_memory.py --sizes 10000 50000    # fewer sizes
    python benchmarks/view_memory.py --src OTHER/src        # another checkout's code
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO_ROOT, emit, log, machine

sys.path.insert(0, str(REPO_ROOT / "tests" / "view"))
from synthetic import write_large_score_run


def peak(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, check=False, env=env
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        raise SystemExit(f"{cmd} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    if found is None:
        raise SystemExit("no 'Maximum resident set size' in /usr/bin/time -v output")
    return int(found.group(1)) / 1024, wall


def check_page(page: Path, n: int) -> None:
    """The page is whole (ends with ``</html>``) and names the last item (a crash or a cut
    page is never a figure)."""
    with page.open("rb") as fh:
        fh.seek(max(0, page.stat().st_size - 64))
        tail = fh.read()
    if not tail.endswith(b"</html>"):
        raise SystemExit(f"{page}: not a whole page")
    last = f'"id":"q{n - 1}"'.encode()
    with page.open("rb") as fh:
        if not any(last in chunk for chunk in iter(lambda: fh.read(1 << 24), b"")):
            raise SystemExit(f"{page}: item q{n - 1} missing")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--src", help="run another checkout's code (its src folder)")
    args = parser.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(args.src).resolve() if args.src else REPO_ROOT / "src")
    rows = []
    with tempfile.TemporaryDirectory(prefix="view-memory-") as tmp:
        for n in args.sizes:
            run = write_large_score_run(Path(tmp) / f"run{n}", n=n, fingerprints=True)
            page = Path(tmp) / f"page{n}.html"
            cmd = [sys.executable, "-m", "conflicteval", "view", str(run), "-o", str(page)]
            mib, wall = peak(cmd, env)
            check_page(page, n)
            size = page.stat().st_size / 2**20
            log(f"{n:>7,} items: peak RSS {mib:7.1f} MiB, page {size:6.1f} MiB, {wall:6.1f} s")
            rows.append({"items": n, "peak_mib": round(mib, 1), "page_mib": round(size, 1)})
            page.unlink()
    ratio = rows[-1]["peak_mib"] / rows[0]["peak_mib"]
    log(f"peak({rows[-1]['items']:,}) / peak({rows[0]['items']:,}) = {ratio:.2f}")
    emit({"benchmark": "view_memory", "machine": machine(), "rows": rows, "ratio": ratio})


if __name__ == "__main__":
    main()
