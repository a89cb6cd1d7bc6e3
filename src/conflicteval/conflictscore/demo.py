"""``conflicteval demo``: ConflictScore on a few bundled responses, offline by default.

The sample (``conflicteval/demo/conflictscore_demo.json``) is the project's own:
one response that takes a side although its documents conflict, one that hedges
correctly on the same documents, and one about documents that agree.

Offline it uses :class:`SentenceDecomposer` + :class:`LexicalLabeler` (seconds,
no key). With ``model`` it uses the paper's prompts: :class:`LLMDecomposer` +
:class:`LLMLabeler`.
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from typing import Any, TextIO

from conflicteval.errors import ConflictEvalError
from conflicteval.models import Model
from conflicteval.tables import fit_text
from conflicteval.types import Usage

from .factory import make_scorer
from .scorer import ConflictScorer, column_labels, format_result

__all__ = ["load_demo_items", "run_demo"]

DEMO_FILE = "conflictscore_demo.json"


def load_demo_items() -> list[dict[str, Any]]:
    """The bundled demo items: dicts with id, title, question, response, documents."""
    path = resources.files("conflicteval").joinpath("demo").joinpath(DEMO_FILE)
    data = json.loads(path.read_text(encoding="utf-8"))
    items: list[dict[str, Any]] = data["items"]
    return items


def _scorer(model: Model | str | None, base_url: str | None) -> ConflictScorer:
    scorer: ConflictScorer
    if model is None:
        scorer = make_scorer("sentence", "lexical")
        return scorer
    from conflicteval.models import get_model

    options: dict[str, Any] = {}
    if base_url:
        options["base_url"] = base_url
    llm = get_model(model, **options) if isinstance(model, str) else model
    scorer = make_scorer("llm", "llm", llm)
    return scorer


def run_demo(
    model: Model | str | None = None, base_url: str | None = None, out: TextIO | None = None
) -> int:
    """Score the bundled responses and print a per-claim table and CS-C / CS-R for each.

    Args:
        model: A model spec such as ``"openai/gpt-4.1-mini"`` or a Model
            (None: offline sentence decomposer + lexical labeler).
        base_url: An OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp, ...).
        out: Where to print (default: standard output at call time).

    Returns:
        0 when every response was scored with every pair labelled, 1 when one
        was not (a failed call, an unreadable reply).
    """
    if out is None:
        out = sys.stdout
    scorer = _scorer(model, base_url)
    how = (
        "offline: sentence decomposer + lexical labeler (a transparent baseline, not a model)"
        if model is None
        else f"{getattr(model, 'name', model)}: LLM decomposer (Table 6 prompt) + "
        "LLM labeler (Table 7 prompt)"
    )
    print(fit_text(f"ConflictScore demo -- {how}"), file=out)  # fit_text: within 100 columns
    print(
        "CS-C = conflicted claims / claims; CS-R = mean |D-|/(|D+|+|D-|); lower is better.\n",
        file=out,
    )
    total = Usage()
    calls = 0
    status = 0
    for n, item in enumerate(load_demo_items(), start=1):
        print(f"[{n}] {item['title']}", file=out)
        print(f"    question: {item['question']}", file=out)
        ids = [str(doc.get("id", j)) for j, doc in enumerate(item["documents"])]
        for label, doc_id, doc in zip(column_labels(ids)[0], ids, item["documents"], strict=True):
            name = label if label == doc_id else f"{label} {doc_id}"
            print(fit_text(f"    {name} ({doc['title']}): {doc['text']}"), file=out)
        print(fit_text(f"    response: {item['response']}"), file=out)
        try:
            result = scorer.score(item["response"], item["documents"])
        except ConflictEvalError as exc:
            print(f"    error: {exc}\n", file=out)
            status = 1
            continue
        calls += result.calls
        total.add(result.usage)
        if result.error is not None or result.n_failed_pairs:
            status = 1  # not scored, or a pair without a label: as `score` counts it
        print("", file=out)
        lines = ["    " + line for line in format_result(result).splitlines()]
        print(fit_text("\n".join(lines)), file=out)
        print("", file=out)
    if model is None:
        print(
            "Run the same with an LLM (the paper's prompts):\n"
            "  conflicteval demo --model openai/gpt-4.1-mini            (needs OPENAI_API_KEY)\n"
            "  conflicteval demo --model openai/<name> --base-url http://localhost:8000/v1\n"
            "Score your own response: conflicteval score --response FILE --documents DOCS.jsonl",
            file=out,
        )
    else:
        from conflicteval.pricing import cost_text

        print(
            f"{calls} model calls ({total.cached_calls} from cache{total.truncated_note()}), "
            f"{total.tokens_text()}",
            file=out,
        )
        print(cost_text(total), file=out)
    print("See the offline demo as an HTML report: conflicteval view --demo", file=out)
    return status
