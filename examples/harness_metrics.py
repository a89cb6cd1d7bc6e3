"""ConflictScore inside ragas and deepeval: the same CS-C and CS-R in two harnesses.

Scores the bundled demo responses (each with several documents, some of which disagree) with
``ragas.evaluate`` (metrics ``conflict_score_count`` and ``conflict_score_ratio``) and with
``deepeval.evaluate`` (``ConflictScoreMetric``: score CS-C, pass at or under a threshold).
A harness that is not installed is skipped with the command that installs it
(``pip install '.[ragas]'`` / ``'.[deepeval]'`` from a checkout).

Offline by default (sentence decomposer + lexical baseline; telemetry of both harnesses off)::

    python examples/harness_metrics.py

With an LLM and the paper's prompts (any OpenAI-compatible server via ``--base-url``)::

    python examples/harness_metrics.py --model openai/gpt-4.1-mini
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Any

# Both harnesses send usage telemetry unless told not to; deepeval also keeps run files in
# ./.deepeval. This example stays offline and leaves nothing behind.
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("DEEPEVAL_NO_INSPECT_PROMPT", "1")
_TMP = tempfile.TemporaryDirectory(prefix="conflicteval-deepeval-")
os.environ.setdefault("DEEPEVAL_CACHE_FOLDER", _TMP.name)

from conflicteval import get_model  # noqa: E402
from conflicteval.conflictscore import ConflictScorer  # noqa: E402
from conflicteval.conflictscore.demo import load_demo_items  # noqa: E402
from conflicteval.conflictscore.shared import build_scorer  # noqa: E402


def make_scorer(args: argparse.Namespace) -> ConflictScorer:
    """The paper's LLM stages with --model, else the offline baseline."""
    if args.model:
        model = get_model(args.model, base_url=args.base_url)
        return build_scorer(model, decomposer="llm", labeler="llm")
    return build_scorer(decomposer="sentence", labeler="lexical")


def run_ragas(scorer: ConflictScorer, items: list[dict[str, Any]]) -> None:
    try:
        from ragas import EvaluationDataset, evaluate

        from conflicteval.adapters.ragas import conflict_score_metrics
    except ImportError as exc:
        print(f"ragas: skipped ({exc}); install with: pip install '.[ragas]'")
        return
    cs_c, cs_r = conflict_score_metrics(scorer=scorer)
    dataset = EvaluationDataset.from_list(
        [
            {
                "user_input": it["question"],
                "response": it["response"],
                "retrieved_contexts": [d["text"] for d in it["documents"]],
            }
            for it in items
        ]
    )
    result = evaluate(dataset, metrics=[cs_c, cs_r], show_progress=False)
    table = result.to_pandas()[["response", "conflict_score_count", "conflict_score_ratio"]]
    table["response"] = table["response"].str.slice(0, 50)
    print("ragas.evaluate -> to_pandas():")
    print(table.to_string(index=False))
    for miss in [*cs_c.unscored, *cs_r.unscored]:
        print(f"  missing {miss.metric}: {miss.reason}")
    print(f"  samples scored once for both metrics: {cs_c.shared.scored}")


def run_deepeval(scorer: ConflictScorer, items: list[dict[str, Any]], threshold: float) -> None:
    try:
        from deepeval import evaluate
        from deepeval.evaluate.configs import DisplayConfig
        from deepeval.test_case import LLMTestCase
        from deepeval.test_case.llm_test_case import RetrievedContextData

        from conflicteval.adapters.deepeval import ConflictScoreMetric
    except ImportError as exc:
        print(f"deepeval: skipped ({exc}); install with: pip install '.[deepeval]'")
        return
    metric = ConflictScoreMetric(threshold=threshold, scorer=scorer)
    cases = [
        LLMTestCase(
            input=it["question"],
            actual_output=it["response"],
            retrieval_context=[
                RetrievedContextData(context=d["text"], source=d["id"]) for d in it["documents"]
            ],
        )
        for it in items
    ]
    quiet = DisplayConfig(print_results=False, show_indicator=False, inspect_after_run=False)
    result = evaluate(cases, [metric], display_config=quiet)
    print(f"deepeval.evaluate (pass: CS-C <= {threshold}):")
    for test in result.test_results:
        data = test.metrics_data[0]
        verdict = "pass" if data.success else "FAIL"
        print(f"  {verdict}  CS-C {data.score}  {test.actual_output[:50]!r}")
        print(f"        {data.reason or data.error}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model spec, e.g. openai/gpt-4.1-mini (default: offline)")
    parser.add_argument("--base-url", help="OpenAI-compatible server for --model")
    parser.add_argument("--threshold", type=float, default=0.0, help="deepeval: largest CS-C")
    args = parser.parse_args(argv)
    needs = f"{args.model} (an API key, or --base-url)" if args.model else "nothing (offline)"
    print(f"needs: {needs}; the ragas / deepeval extras (each part is skipped without its own)")
    print("output: none (prints its results; deepeval's run files go to a temporary directory)")
    scorer = make_scorer(args)
    items = load_demo_items()
    print(f"ConflictScore with {scorer!r} on {len(items)} demo responses\n")
    run_ragas(scorer, items)
    print()
    run_deepeval(scorer, items, args.threshold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
