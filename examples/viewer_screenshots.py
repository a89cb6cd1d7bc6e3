"""Screenshots of the HTML report, one per view and kind, as docs/viewer.md shows them.

Offline: it makes small runs with the offline baselines and a scripted MADAM-RAG model (no key,
no network), writes each run's report, and photographs the pages in the operating system's
headless Chromium (``apt-get install chromium``; without it, it says so and exits 2)::

    python examples/viewer_screenshots.py                    # into a new temporary directory
    python examples/viewer_screenshots.py --out docs/images  # refresh the documentation's

The numbers in the pictures come from these made-up inputs, not from any real model.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from conflicteval.cli import main as cli
from conflicteval.view import write_report
from conflicteval.view.files import find_chromium

EXAMPLES = Path(__file__).resolve().parent


def _responses(path: Path, n: int, shift: int = 0) -> Path:
    """Made-up responses about one bridge, some taking a side, some noting the conflict."""
    rows = []
    for i in range(n):
        side = (i + shift) % 3
        response = [
            "The bridge opened in 1932. It is made of steel.",
            "Sources disagree: one says the bridge opened in 1932, another in 1934.",
            "The bridge opened in 1934 and carries a railway line.",
        ][side]
        rows.append(
            {
                "id": f"bridge-{i}",
                "question": f"When was the bridge opened? (variant {i})",
                "response": response,
                "documents": [
                    {"id": "a", "title": "Bridge history", "text": "The bridge opened in 1932."},
                    {"id": "b", "title": "City records", "text": "The bridge opened in 1934."},
                    {"id": "c", "title": "Materials", "text": "It is made of steel and stone."},
                ],
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _bench_items(path: Path) -> Path:
    """A few ConflictBench-shaped items with and without a conflict."""
    rows = []
    for i in range(8):
        conflict = i % 2 == 0
        rows.append(
            {
                "id": f"sample:{i}:{'conf' if conflict else 'noconf'}",
                "source": "macnoise-nq" if i < 6 else "ambigdocs",
                "question": "which team has won the most titles",
                "claim": "The Steelers have won the most titles.",
                "documents": [
                    {
                        "id": "d1",
                        "title": "Champions",
                        "text": "The Steelers have won the most titles, with six.",
                        "gold": "SUPPORTS",
                    },
                    {
                        "id": "d2",
                        "title": "Records",
                        "text": "The Patriots have won the most titles, with six."
                        if conflict
                        else "The final is played in February.",
                        "gold": "CONTRADICTS" if conflict else "IRRELEVANT",
                    },
                ],
                "conflict": conflict,
                "kind": "conflict" if conflict else "no-conflict",
            }
        )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _shoot(browser: str, page: Path, fragment: str, out: Path, size: str, work: Path) -> None:
    url = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
    proc = None
    for _ in range(2):  # a browser that dies while starting (a busy machine) gets one more go
        # a new profile each time: a browser that is still closing keeps its profile locked
        profile = Path(tempfile.mkdtemp(prefix="profile-", dir=work))
        argv = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
        argv += ["--disable-background-networking", "--disable-component-update"]
        argv += ["--disable-sync", "--no-first-run", f"--user-data-dir={profile}"]
        argv += [f"--window-size={size}", f"--screenshot={out}", url]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        if proc.returncode == 0 and out.is_file():
            print(f"wrote {out}")
            return
    status = proc.returncode if proc is not None else None
    tail = proc.stderr[-500:] if proc is not None else ""
    raise SystemExit(f"error: Chromium could not photograph {page} (exit {status}): {tail}")


def main() -> int:
    """Make the runs, write the reports, take the screenshots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="where the PNG files go (default: temp)")
    args = parser.parse_args()
    browser = find_chromium()
    if browser is None:
        print("needs the operating system's Chromium (apt-get install chromium)", file=sys.stderr)
        return 2
    print("needs: the operating system's Chromium, nothing else (offline)")
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="ce-screens-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"output: {out}")
    with tempfile.TemporaryDirectory(prefix="ce-screen-runs-") as tmp:
        work = Path(tmp)
        runs = {}
        for name, shift in (("cs", 0), ("cs-b", 1)):
            items = _responses(work / f"{name}.jsonl", 12, shift)
            cli(["score", "--input", str(items), "--out", str(work / name), "--quiet"])
            runs[name] = work / name
        items = _bench_items(work / "bench.jsonl")
        detect_args = ["--items", str(items), "--out", str(work / "detect"), "--quiet"]
        cli(["conflictbench", "detect", *detect_args])
        madam = subprocess.run(
            [sys.executable, str(EXAMPLES / "ramdocs_madam.py"), "--out", str(work / "ramdocs")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if madam.returncode != 0:
            raise SystemExit(f"error: the MADAM-RAG example failed: {madam.stderr[-500:]}")
        score = write_report(runs["cs"], work / "cs.html")
        compare = write_report([runs["cs"], runs["cs-b"]], work / "compare.html")
        detect = write_report(work / "detect", work / "detect.html")
        debate = write_report(work / "ramdocs" / "madam", work / "madam.html")
        wide = "1440,900"
        shots = [
            (score, "tab=summary", "viewer-summary.png", wide),
            (score, "tab=charts", "viewer-charts.png", wide),
            (
                score,
                "tab=items&sort=n.CS-C&desc=1&item=bridge-1&cell=2.2",
                "viewer-items.png",
                wide,
            ),
            (compare, "tab=compare&diff=0", "viewer-compare.png", wide),
            (detect, "tab=charts", "viewer-detect-charts.png", wide),
            (debate, "tab=items&item=0", "viewer-madam.png", "1440,1400"),
            (score, "tab=items&item=bridge-1", "viewer-phone.png", "390,844"),
        ]
        for page, fragment, name, size in shots:
            _shoot(browser, page, fragment, out / name, size, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
