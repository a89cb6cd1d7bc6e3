"""ConflictScore in OpenAI Batch API rounds from Python: one call to ``run_rounds``.

Needs nothing (offline, no key, no extra): the local test server stands in for the OpenAI
Files and Batches endpoints, and answers with a scripted labelling model. Everything is
written under one output directory, printed first (a new temporary directory, or ``--out
DIR``). With OpenAI's API, drop the server and give ``client=make_client()`` (it reads
``OPENAI_API_KEY``); the workflow stays the same.

    python examples/batch_rounds.py
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from batch_roundtrip import ITEMS, labelling_model

from conflicteval.batch.openai_batch import make_client
from conflicteval.batch.rounds import run_rounds
from conflicteval.cache import open_cache
from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler
from conflicteval.models import get_model
from conflicteval.testing import OpenAICompatServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="output directory (default: a new temp dir)")
    args = parser.parse_args()
    folder = Path(args.out or tempfile.mkdtemp(prefix="conflicteval-rounds-"))
    print("needs: nothing (offline: the local test server plays the OpenAI Batch API)")
    print(f"output: {folder}")
    with OpenAICompatServer(labelling_model) as server:
        cache = open_cache(folder / "cache")
        # batch rounds send nothing online: the base URL only names the endpoint in the cache key
        model = get_model("openai/gpt-4o-mini", base_url="http://localhost:8000/v1", cache=cache)
        scorer = ConflictScorer(LLMDecomposer(model), LLMLabeler(model))
        rounds = run_rounds(
            lambda: scorer.score_many(ITEMS, checkpoint=folder / "checkpoint.jsonl"),
            folder / "batch" / "requests.jsonl",
            client=make_client(server.base_url),  # the Batch API's client
            cache=cache,
            poll_interval=0.01,
        )
        result = rounds.value
        print(f"{rounds.runs} runs, ended with status {rounds.status}: {result.summary()}")
        for rec in result.records:
            print(f"{rec.id}: CS-C {rec.result['cs_c']}, CS-R {rec.result['cs_r']}")
        assert server.completions() == []  # no online call was ever made
        print(f"{len(server.batches)} batches answered by the Batch API")


if __name__ == "__main__":
    main()
