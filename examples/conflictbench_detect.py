"""Build ConflictBench items and run the conflict-detection task (§4.1, Table 2).

Without arguments it needs the real MacNoise sample files beside the checkout
(``../shared/data/macnoise``; without them it says so in one line and exits 2) and nothing
else: offline, with the lexical baseline labeler. It writes under one output directory,
printed first (a new temporary directory, or ``--out``)::

    python examples/conflictbench_detect.py

With your release files and the paper's Table 7 labeler on an LLM (cached, resumable)::

    python examples/conflictbench_detect.py \
        --source macnoise-nq=NQ_eval_gpt4_dev_256_new_fix.json \
        --source ambigdocs=dev.json --source conflictingqa=conflictingqa.jsonl \
        --model openai/gpt-4.1 --out runs/detect

``--base-url`` points at any OpenAI-compatible server (vLLM, Ollama, llama.cpp).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from conflicteval import get_model
from conflicteval.conflictbench import build_conflictbench, detect
from conflicteval.conflictscore import LexicalLabeler, LLMLabeler

SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "macnoise"


def main() -> int:
    """Parse arguments, build, detect, print Table 1 and Table 2."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", action="append", metavar="NAME=PATH")
    parser.add_argument("--level", default=None, help="MacNoise level (default 35; samples 25)")
    parser.add_argument("--model", default=None, help="labeler model (default: lexical)")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--out", default=None, help="output directory (default: a new temp dir)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    if args.source:
        specs = []
        for value in args.source:
            name, _, path = value.partition("=")
            options = {"level": args.level or "35"} if name.startswith("macnoise") else {}
            specs.append((name, path, options))
    else:  # the real NQ-train demo records: levels 00/25/50/75/100, no NQ/TQA in the name
        level = args.level or "25"
        specs = [
            ("macnoise-nq", SAMPLES / "GPT_trainx_chatgptpert_samples.json", {"level": level}),
            ("macnoise-tqa", SAMPLES / "GPT_trainx_longpre_samples.json", {"level": level}),
        ]
        missing = [str(path) for _, path, _ in specs if not Path(path).is_file()]
        if missing:
            print(
                f"needs the MacNoise sample files ({missing[0]} not found); pass your release "
                "files with --source NAME=PATH",
                file=sys.stderr,
            )
            return 2
    print(
        "needs: "
        + (f"{args.model} (an API key, or --base-url)" if args.model else "nothing more (offline)")
    )
    out = Path(args.out or tempfile.mkdtemp(prefix="conflicteval-detect-"))
    print(f"output: {out}")
    built = build_conflictbench(specs, output=out / "bench.jsonl", seed=args.seed)
    print(built.table())
    print(built.summary())

    labeler: LLMLabeler | LexicalLabeler
    if args.model:
        options = {"base_url": args.base_url} if args.base_url else {}
        labeler = LLMLabeler(get_model(args.model, **options))
    else:
        labeler = LexicalLabeler()
    run = detect(built.items, labeler, checkpoint=out / "detect.jsonl")
    print()
    print(run.table(paper=True))
    print(run.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
