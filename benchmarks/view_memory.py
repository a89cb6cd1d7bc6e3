"""Peak memory of ``conflicteval view`` against the number of items in the run.

Two kinds of run, each written synthetically (``tests/view/synthetic.py``, the viewer tests'
own runs): a ConflictScore run of N responses (3-5 claims, 3 documents from a pool of 400, a
snippet and a reasoning on every claims x documents cell, some failures; every record with
its input row's fingerprint, so each item's question and documents are read from the input
file), and a RAMDocs run of N questions answered by MADAM-RAG (3 rounds, 3-5 documents,
4 kept model replies each, some failures; the records written as the run writes them, each
with its question's fingerprint, so the question and document types come from the data
file). Each page is made by ``conflicteval view RUN -o page.html`` in a fresh process under
``/usr/bin/time -v``, which gives its peak resident memory ("Maximum resident set size").
Prints one line per kind and size, each kind's ratio of the largest size's peak to the
smallest's (the target: flat, at most 1.5x), then a JSON summary as the last line. Each page is
checked to end with ``</html>`` and to hold the last item's id.

    python benchmarks/view_memory.py                        # both kinds, 10k, 50k, 100k items
    python benchmarks/view_memory.py --sizes 10000 50000    # fewer sizes
    python benchmarks/view_memory.py --kinds ramdocs        # one kind
    python benchmarks/view_memory.py --src OTHER/src        # another checkout's code
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO_ROOT, emit, log, machine

sys.path.insert(0, str(REPO_ROOT / "tests" / "view"))
from synthetic import write_large_ramdocs_run, write_large_score_run


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


KINDS = {
    "conflictscore": (lambda out, n: write_large_score_run(out, n=n, fingerprints=True), "q"),
    "ramdocs": (lambda out, n: write_large_ramdocs_run(out, n=n), ""),
}
"""Each kind: its run writer and the prefix of its items' ids."""


def check_page(page: Path, n: int, prefix: str) -> None:
    """The page is whole (ends with ``</html>``) and names the last item (a crash or a cut
    page is never a figure)."""
    with page.open("rb") as fh:
        fh.seek(max(0, page.stat().st_size - 64))
        tail = fh.read()
    if not tail.endswith(b"</html>"):
        raise SystemExit(f"{page}: not a whole page")
    last = f'"id":"{prefix}{n - 1}"'.encode()
    with page.open("rb") as fh:
        if not any(last in chunk for chunk in iter(lambda: fh.read(1 << 24), b"")):
            raise SystemExit(f"{page}: item {prefix}{n - 1} missing")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument("--kinds", nargs="+", choices=sorted(KINDS), default=sorted(KINDS))
    parser.add_argument("--src", help="run another checkout's code (its src folder)")
    args = parser.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(args.src).resolve() if args.src else REPO_ROOT / "src")
    rows = []
    ratios = {}
    with tempfile.TemporaryDirectory(prefix="view-memory-") as tmp:
        for kind in args.kinds:
            write, prefix = KINDS[kind]
            first = len(rows)
            for n in args.sizes:
                run = write(Path(tmp) / f"{kind}{n}", n)
                page = Path(tmp) / f"page{n}.html"
                cmd = [sys.executable, "-m", "conflicteval", "view", str(run), "-o", str(page)]
                mib, wall = peak(cmd, env)
                check_page(page, n, prefix)
                size = page.stat().st_size / 2**20
                log(
                    f"{kind} {n:>7,} items: peak RSS {mib:7.1f} MiB, page {size:6.1f} MiB, "
                    f"{wall:6.1f} s"
                )
                rows.append(
                    {
                        "kind": kind,
                        "items": n,
                        "peak_mib": round(mib, 1),
                        "page_mib": round(size, 1),
                        "seconds": round(wall, 1),
                    }
                )
                page.unlink()
                shutil.rmtree(run)
            ratio = rows[-1]["peak_mib"] / rows[first]["peak_mib"]
            ratios[kind] = round(ratio, 2)
            log(
                f"{kind}: peak({rows[-1]['items']:,}) / peak({rows[first]['items']:,})"
                f" = {ratio:.2f}"
            )
    emit({"benchmark": "view_memory", "machine": machine(), "rows": rows, "ratios": ratios})


if __name__ == "__main__":
    main()
