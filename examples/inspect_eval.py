"""Run conflicteval's WikiContradict task inside Inspect AI, then re-score its log.

Needs the ``inspect`` extra (``pip install '.[inspect]'``; without it the
example says so in one line and exits 2). Offline by default: the evaluated model and the
judge are Inspect's ``mockllm`` with canned replies (each with its token usage, so no
tokenizer is downloaded), on the real WikiContradict sample beside the checkout
(``../shared/data/wikicontradict``; or ``--data FILE``); logs go to one output directory,
printed first (a new temporary directory, or ``--log-dir``)::

    python examples/inspect_eval.py

With real models (needs the ``inspect`` extra and the provider's API key)::

    python examples/inspect_eval.py --data WikiContradict_dataset_v1_rag_qa.csv \\
        --model openai/gpt-4o-mini --grader-model openai/gpt-4o --log-dir logs

The same from the command line: ``inspect eval conflicteval/wikicontradict
-T data=... --model openai/gpt-4o-mini --model-role grader=openai/gpt-4o``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

try:
    from inspect_ai import eval, score
    from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model
except ImportError:  # one line, no traceback: what is missing and how to install it
    print("needs the inspect extra: pip install '.[inspect]'", file=sys.stderr)
    sys.exit(2)

from conflicteval.adapters.inspect import conflict_score, wikicontradict

DATA = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "data"
    / "wikicontradict"
    / "WikiContradict_dataset_v1_rag_qa.csv"
)


def canned(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """Offline replies: a hedged answer from the tested model, a verdict from the judge."""
    prompt = input[-1].text
    if prompt.startswith("Please evaluate the response"):
        hedged = "both" in prompt.rsplit("response:", 1)[1].lower()
        text = (
            "comment: the response gives both answers and says the sources disagree.\n"
            "evaluation: correct"
            if hedged
            else "comment: only one answer.\nevaluation: partially correct"
        )
    elif sum(map(ord, prompt)) % 2:
        text = "The passages disagree. Both answers appear in the sources."
    else:
        text = "The first passage gives the answer."
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    # a usage on every output: mockllm would otherwise count tokens with a downloaded tokenizer
    out.usage = ModelUsage(input_tokens=len(prompt) // 4, output_tokens=len(text) // 4)
    out.usage.total_tokens = out.usage.input_tokens + out.usage.output_tokens
    return out


def main() -> None:
    """Evaluate, print the verdict shares, re-score the log with ConflictScore."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--template", default="5")
    parser.add_argument("--model", default=None, help="evaluated model (default: offline mock)")
    parser.add_argument("--grader-model", default=None, help="judge model (default: --model)")
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--log-dir", default=None, help="default: a temporary directory")
    args = parser.parse_args()

    model: str | Model
    grader: str | Model
    if args.model:
        model, grader = args.model, args.grader_model or args.model
    else:
        model = grader = get_model("mockllm/model", custom_outputs=canned)
    if not args.data.is_file():
        print(
            f"needs a WikiContradict data file: {args.data} not found (pass --data FILE)",
            file=sys.stderr,
        )
        sys.exit(2)
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="conflicteval-inspect-")
    print(f"needs: {args.model or 'nothing more (offline: mockllm with canned replies)'}")
    print(f"output: {log_dir}")

    [log] = eval(
        wikicontradict(template=args.template, data=str(args.data)),
        model=model,
        model_roles={"grader": grader},
        limit=args.limit,
        log_dir=log_dir,
        display="none",
    )
    print(f"log: {log.location} ({log.status})")
    assert log.results is not None
    for result in log.results.scores:
        # wikicontradict_judge: a response without a verdict scores "failed" (counted)
        print(f"{result.name}: {result.scored_samples} scored, {result.unscored_samples} unscored")
        for name, value in result.metrics.items():
            print(f"  {name:28s} {value.value:.3f}")

    # Re-score the same responses against the two passages with ConflictScore
    # (offline decomposer and labeler here; the default is the paper's LLM prompts).
    rescored = score(
        log, scorers=[conflict_score(decomposer="sentence", labeler="lexical")], display="none"
    )
    assert rescored.results is not None
    for result in rescored.results.scores:
        if result.name in ("cs_c", "cs_r"):
            n = result.scored_samples
            mean = f"{result.metrics['mean'].value:.3f}" if n else "undefined"
            left_out = result.unscored_samples
            print(f"{result.name}: mean {mean} over {n} responses ({left_out} left out)")


if __name__ == "__main__":
    main()
