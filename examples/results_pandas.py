"""Every kind of run opens flat in pandas: ``conflicteval.results.load_run(path).to_pandas()``.

Without arguments it needs the real sample files beside the checkout (``../shared/data``:
WikiContradict, RAMDocs, FEVEROUS-S, ConflictQA; without them it says so in one line and exits
2), the ``pandas`` extra, and nothing else (offline, no key): it starts the library's local
OpenAI-compatible test server with a scripted model (its replies are fixed, so the numbers
describe the script, not a model), makes a small profile with one run of each kind, and opens
the card and every run as a pandas table. It writes one output directory, printed first (a new
temporary directory, or ``--out``). With a real model, the same lines read any run directory::

    import conflicteval.results as results
    frame = results.load_run("runs/ramdocs").to_pandas()            # one row per item
    metrics = results.load_run("runs/ramdocs").to_pandas("metrics")  # one row per metric
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DATA = {
    "wikicontradict": SHARED / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv",
    "ramdocs": SHARED / "ramdocs" / "RAMDocs_test_first30.jsonl",
    "feverous-s": SHARED / "feverous" / "feverous_s_dev_first5.json",
    "conflictqa-strategyqa-chatgpt": SHARED
    / "conflictqa"
    / "conflictQA-strategyQA-chatgpt_first30.json",
}
# one cell of each kind the shared data can make (the ConflictScore cell scores the answers
# of the WikiContradict cell, so that one runs too)
CELLS = [
    "wikicontradict",
    "ramdocs.rag",
    "conflictscore.wikicontradict",
    "feverous_s",
    "conflictqa.strategyqa",
]


def reply(request: dict[str, Any]) -> str:
    """The scripted model: a reply of the shape each protocol's parser reads."""
    text = request["messages"][-1]["content"]
    if "Document-Claim Conflict Detection" in text:
        return json.dumps({"answer": "SUPPORTS", "reasoning": "scripted", "snippet": ""})
    if text.rstrip().endswith("A:"):
        return "True\n\nScripted evidence."
    if "\nOptions:\n" in text:
        return "A"
    return "Answer: unknown. Explanation: s.\nAll Correct Answers: [unknown]. Explanation: s."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a new temp dir)")
    args = parser.parse_args()
    missing = [str(p) for p in DATA.values() if not p.exists()]
    if missing:
        print(f"needs the sample data: {missing[0]} not found", file=sys.stderr)
        return 2
    try:
        import pandas  # noqa: F401  (to_pandas needs it)
    except ImportError:
        print("needs the pandas extra: pip install 'conflicteval[pandas]'", file=sys.stderr)
        return 2
    print("needs: ../shared/data and the pandas extra (offline, scripted model)")
    out = Path(args.out or tempfile.mkdtemp(prefix="conflicteval-pandas-"))
    print(f"output: {out}")
    os.environ.setdefault("CONFLICTEVAL_CACHE_DIR", str(out / "cache"))
    os.environ.setdefault("CONFLICTEVAL_OFFLINE", "1")

    import conflicteval as ce
    from conflicteval.results import load_run
    from conflicteval.testing import OpenAICompatServer

    with OpenAICompatServer(reply) as server:
        ce.profile(
            "openai/scripted",
            out / "profile",
            data={name: str(path) for name, path in DATA.items()},
            base_url=server.base_url,
            benchmarks=CELLS,
        )
    card = load_run(out / "profile")
    print(f"\nprofile card: {card.summary.kind}, {len(card.summary.metrics)} metrics")
    print(card.to_pandas("metrics")[["id", "value", "n"]].head(8).to_string(index=False))
    for run_dir in sorted((out / "profile").glob("*/*/")):
        if not (run_dir / "summary.json").exists():
            continue
        run = load_run(run_dir)
        frame = run.to_pandas()
        values = [c for c in frame.columns if c in {m.id for m in run.summary.metrics}]
        print(f"\n{run_dir.name} (kind {run.summary.kind}): {len(frame)} items, columns:")
        print("  " + ", ".join(map(str, frame.columns[:8])) + f", ... ({len(values)} metrics)")
        print(frame[["id", "status", *values[:3]]].head(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
