"""ConflictScore through batch files: export, answer, import, repeat, until the run completes.

Needs nothing (offline, no key, no extra): the local test server stands in for ``vllm
run-batch`` (it answers a request file with result lines from a scripted labelling model).
Everything is written under one output directory, printed first (a new temporary
directory, or ``--out DIR``). With a real model, replace ``answer()`` by ``vllm run-batch -i
requests.jsonl -o results.jsonl --model ...`` or by ``conflicteval batch run`` (OpenAI).

    python examples/batch_roundtrip.py
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from conflicteval.batch.export import batch_export
from conflicteval.batch.files import import_results
from conflicteval.cache import open_cache
from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler
from conflicteval.models import get_model
from conflicteval.testing import OpenAICompatServer

DOCS = [
    "The canal opened in 1847 and is 38 km long.",
    "The canal opened in 1851; it is 38 km long.",
]
ITEMS = [
    {"id": "r1", "response": "The canal opened in 1847. It is 38 km long.", "documents": DOCS},
    {"id": "r2", "response": "The canal is 38 km long.", "documents": DOCS},
]


def labelling_model(body: dict[str, Any]) -> str:
    """A scripted model: sentences as claims; a year must match to support."""
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("Instruction: Break down"):
        report = prompt.rsplit("Report:", 1)[-1]
        claims = re.findall(r"[^.]*?(?:opened in \d+|38 km long)", report)
        return "Claims:\n" + "\n".join(f"{k}. {c.strip()}." for k, c in enumerate(claims, 1))
    claim = prompt.split("\nClaim to evaluate\n", 1)[1].split(
        "\nDocument to evaluate against\n", 1
    )[0]
    doc = prompt.split("\nDocument to evaluate against\n", 1)[1].split("\nOutput format\n")[0]
    year = re.search(r"18\d\d", claim)
    if year:
        answer = "SUPPORTS" if year.group(0) in doc else "CONTRADICTS"
    else:
        answer = "SUPPORTS" if "38 km" in doc else "IRRELEVANT"
    return json.dumps(
        {"claim": claim.strip(), "document_snippet": "", "reasoning": "", "answer": answer}
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a new temp dir)")
    args = parser.parse_args()
    folder = Path(args.out or tempfile.mkdtemp(prefix="conflicteval-batch-"))
    print("needs: nothing (offline: the local test server answers the batch files)")
    print(f"output: {folder}")
    with OpenAICompatServer(labelling_model) as server:
        cache = open_cache(folder / "cache")
        # export mode sends nothing: the base URL only names the endpoint in the cache key
        model = get_model("openai/gpt-4o-mini", base_url="http://localhost:8000/v1", cache=cache)
        scorer = ConflictScorer(LLMDecomposer(model), LLMLabeler(model))
        requests = folder / "requests.jsonl"
        for round_no in range(1, 6):
            with batch_export(requests) as export:
                result = scorer.score_many(ITEMS, checkpoint=folder / "checkpoint.jsonl")
            assert export.result is not None
            print(f"round {round_no}: {result.summary()}")
            if not export.result.requests:
                break
            print(export.result.summary())
            results = folder / f"results-{round_no}.jsonl"  # vllm run-batch -i ... -o ...
            results.write_text(server.answer_batch_file(requests.read_text()))
            print(import_results([results], cache, [requests]).summary())
        print("\n".join(export.cost_lines()))
        for rec in result.records:
            print(f"{rec.id}: CS-C {rec.result['cs_c']}, CS-R {rec.result['cs_r']}")
        assert server.completions() == []  # no online call was ever made


if __name__ == "__main__":
    main()
