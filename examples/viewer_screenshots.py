"""Screenshots of the HTML report, one per view and kind, as docs/viewer.md shows them.

Offline: it makes small runs with the offline baselines, a scripted MADAM-RAG model and the
project's local test server answering as a made-up model (no key, no network), writes each run's
report, and photographs the pages in the operating system's
headless Chromium (``apt-get install chromium``; without it, it says so and exits 2)::

    python examples/viewer_screenshots.py                    # into a new temporary directory
    python examples/viewer_screenshots.py --out docs/images  # refresh the documentation's

The numbers in the pictures come from these made-up inputs, not from any real model.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from conflicteval.cli import main as cli
from conflicteval.testing import OpenAICompatServer
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


def _reply(body: dict[str, Any]) -> str:
    """The local test server's made-up model: claims, labels, reports and choices."""
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("Instruction: Break down"):
        return "Claims:\n1. The bridge opened in 1932.\n2. It is made of steel."
    if "Document to evaluate against" in prompt:
        answer = "CONTRADICTS" if "1934" in prompt and "1932" in prompt else "SUPPORTS"
        if "steel" in prompt and "made of steel and stone" not in prompt:
            answer = "IRRELEVANT"
        reason = f"The document {'disagrees' if answer == 'CONTRADICTS' else 'is consistent'}."
        return json.dumps(
            {"claim": "", "document_snippet": "", "reasoning": reason, "answer": answer}
        )
    if "(A)" in prompt and "(B)" in prompt:
        return "(A)"
    return "The Steelers have won the most titles. Other records name the Patriots."


def _tqa(work: Path) -> tuple[Path, Path]:
    """Two TruthfulQA-shaped questions and a document for each (for ``regenerate``)."""
    questions = work / "tqa.csv"
    with questions.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Type", "Category", "Question", "Best Answer", "Best Incorrect Answer",
                    "Correct Answers", "Incorrect Answers", "Source"])  # fmt: skip
        for k, q in enumerate(["Do ostriches hide their heads in the sand?",
                               "Do we use only ten percent of our brains?"]):  # fmt: skip
            w.writerow(["Adversarial", "Misconceptions", q, "No", "Yes", "No", "Yes",
                        f"https://example.org/{k}"])  # fmt: skip
    docs = work / "tqa_docs.jsonl"
    texts = ["Ostriches do not bury their heads.", "Scans show activity across the brain."]
    docs.write_text(
        "".join(json.dumps({"index": k, "documents": [t]}) + "\n" for k, t in enumerate(texts)),
        encoding="utf-8",
    )
    return questions, docs


def _model_runs(work: Path, url: str) -> dict[str, Path]:
    """A ConflictScore run with the paper's LLM prompts, a report benchmark and a
    regeneration run, all against the local test server's made-up model."""
    model = ["--model", "openai/example", "--base-url", url, "--no-cache", "--quiet"]
    llm = work / "cs-llm"
    items = _responses(work / "cs-llm.jsonl", 6)
    cli(["score", "--input", str(items), "--out", str(llm), "--decomposer", "llm",
         "--labeler", "llm", *model])  # fmt: skip
    reports = work / "reports"
    cli(["reports", "--items", str(_bench_items(work / "bench_r.jsonl")), "--model",
         "big=openai/big", "--settings", "rag", "--n", "2", "--source", "any", "--out",
         str(reports), "--base-url", url, "--no-cache", "--quiet"])  # fmt: skip
    questions, docs = _tqa(work)
    regen = work / "regen"
    cli(["regenerate", "--questions", str(questions), "--documents", str(docs), "--mode",
         "choice", "--out", str(regen), *model])  # fmt: skip
    return {"llm": llm, "reports": reports, "regen": regen}


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
        with OpenAICompatServer(replies=_reply) as server:
            model_runs = _model_runs(work, server.base_url)
        score = write_report(runs["cs"], work / "cs.html")
        calls = write_report(model_runs["llm"], work / "cs-llm.html")
        reports = write_report(model_runs["reports"], work / "reports.html")
        regen = write_report(model_runs["regen"], work / "regen.html")
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
            (calls, "tab=items&item=bridge-1", "viewer-calls.png", "1440,1500"),
            (reports, "tab=summary", "viewer-reports.png", wide),
            (regen, "tab=charts", "viewer-regenerate.png", wide),
        ]
        for page, fragment, name, size in shots:
            _shoot(browser, page, fragment, out / name, size, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
