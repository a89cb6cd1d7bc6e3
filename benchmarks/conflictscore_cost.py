"""ConflictScore labelling cost, and aggregation time.

Part 1, cost: for responses of 5-40 claims against 2-20 documents, the model
calls and prompt tokens of each LLM labeler:

* ``LLMLabeler`` -- the paper's Table 7 prompt, one call per (claim, document);
* ``PerDocumentLLMLabeler`` -- all claims against one document per call;
* ``PerClaimLLMLabeler`` -- all documents against one claim per call.

The model is the scripted provider (``get_model("scripted", replies=callable)``)
replying with well-formed JSON, so no call is re-asked and nothing touches a
network. Its token counts are the provider's estimate (characters / 4), the same
for every labeler, so the ratios between labelers are what matters. Documents
are real WikiContradict passages (``../shared/data/wikicontradict``) and claims
are sentences taken from them, so prompt lengths are realistic; without the data
a synthetic text of similar length is used.

Part 2, aggregation: the time to aggregate 1,000,000 claim-document labels with
``aggregate_batch`` (10,000 responses of 20 claims x 5 documents), from integer
code arrays (the fast path), from label strings (what a LabelResult holds), and
one response at a time with ``aggregate``. Target: < 0.5 s.

Usage::

    python benchmarks/conflictscore_cost.py
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _common import SHARED_DATA, emit, log, machine, median

from conflicteval import get_model
from conflicteval.conflictscore import (
    LLMLabeler,
    PerClaimLLMLabeler,
    PerDocumentLLMLabeler,
    aggregate,
    aggregate_batch,
    split_sentences,
)
from conflicteval.types import RELATIONS, Document

CLAIM_COUNTS = (5, 10, 20, 40)
DOC_COUNTS = (2, 5, 10, 20)
SNIPPET = "the passage states the year and the place of the event in its second sentence"
REASONING = (
    "The document gives the same year and place as the claim, so it directly addresses "
    "the asserted attributes; nothing in it is incompatible with the claim."
)
_NUMBERED = re.compile(r"numbered 1 to (\d+)")


def _answer(key: str) -> str:
    """A label picked by a hash of ``key`` (deterministic)."""
    return RELATIONS[hashlib.sha256(key.encode()).digest()[0] % 3]


def scripted_reply(messages: list[dict[str, str]]) -> str:
    """A well-formed reply to any of the three labelling prompts."""
    prompt = messages[-1]["content"]
    batched = _NUMBERED.search(prompt)
    if batched is None:  # the per-pair Table 7 prompt
        reply = {
            "claim": "the claim",
            "document_snippet": SNIPPET,
            "reasoning": REASONING,
            "answer": _answer(prompt),
        }
        return json.dumps(reply)
    n = int(batched.group(1))
    entries = [
        {
            "index": k,
            "document_snippet": SNIPPET,
            "reasoning": REASONING,
            "answer": _answer(f"{k}:{prompt}"),
        }
        for k in range(1, n + 1)
    ]
    return json.dumps({"labels": entries})


def corpus() -> tuple[list[str], list[str], str]:
    """(documents, claims, source): real passages and sentences, or synthetic text."""
    csv = SHARED_DATA / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    if csv.exists():
        from conflicteval.wikicontradict import load_wikicontradict

        docs: list[str] = []
        for inst in load_wikicontradict(csv):
            for passage in (inst.passage_1, inst.passage_2):
                if passage.strip() and passage not in docs:
                    docs.append(passage.strip())
        claims = [s for d in docs for s in split_sentences(d) if 40 <= len(s) <= 250]
        return docs, claims, "WikiContradict passages and their sentences"
    rng = random.Random(0)
    words = "the canal opened in year with locks boats river city built long".split()
    docs = [" ".join(rng.choice(words) for _ in range(150)) for _ in range(200)]
    claims = [" ".join(rng.choice(words) for _ in range(18)) + "." for _ in range(400)]
    return docs, claims, "synthetic text"


LABELERS: dict[str, Callable[[Any], Any]] = {
    "per_pair": LLMLabeler,
    "per_document": PerDocumentLLMLabeler,
    "per_claim": PerClaimLLMLabeler,
}


async def _cost(name: str, claims: list[str], docs: list[Document]) -> dict[str, int]:
    model = get_model("scripted", replies=scripted_reply, max_concurrency=64)
    labeler = LABELERS[name](model)
    result = await labeler.label(claims, docs)
    requests = model.provider.requests  # type: ignore[attr-defined]
    assert result.n_failed == 0, f"{name}: {result.n_failed} failed pairs"
    assert result.calls == len(requests)
    return {
        "calls": result.calls,
        "prompt_tokens": result.usage.prompt_tokens,
        "completion_tokens": result.usage.completion_tokens,
        "prompt_chars": sum(len(r.messages[-1]["content"]) for r in requests),
    }


def cost_grid(join: int = 1) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Calls and tokens of each labeler over the claims x documents grid.

    Args:
        join: Passages per document (1: the real passages; more: longer
            documents made of that many consecutive passages).
    """
    passages, claim_texts, source = corpus()
    doc_texts = [
        "\n\n".join(passages[k : k + join]) for k in range(0, len(passages) - join + 1, join)
    ]
    rng = random.Random(1)
    doc_lengths = [len(d) for d in doc_texts]
    rows: list[dict[str, Any]] = []
    for n_claims in CLAIM_COUNTS:
        for n_docs in DOC_COUNTS:
            docs = [
                Document(id=f"d{j}", text=t) for j, t in enumerate(rng.sample(doc_texts, n_docs))
            ]
            claims = rng.sample(claim_texts, n_claims)
            row: dict[str, Any] = {"claims": n_claims, "documents": n_docs}
            for name in LABELERS:
                row[name] = asyncio.run(_cost(name, claims, docs))
            base = row["per_pair"]
            for name in ("per_document", "per_claim"):
                row[name]["calls_vs_per_pair"] = round(row[name]["calls"] / base["calls"], 4)
                row[name]["prompt_tokens_vs_per_pair"] = round(
                    row[name]["prompt_tokens"] / base["prompt_tokens"], 4
                )
            log(
                f"join={join} {n_claims:2d} claims x {n_docs:2d} docs: "
                + "; ".join(
                    f"{k} {row[k]['calls']} calls {row[k]['prompt_tokens']} prompt tok"
                    for k in LABELERS
                )
            )
            rows.append(row)
    meta = {
        "source": source,
        "passages_per_document": join,
        "documents_available": len(doc_texts),
        "median_document_chars": int(median(doc_lengths)),
        "median_claim_chars": int(median([len(c) for c in claim_texts])),
        "token_estimate": "characters / 4 (scripted provider)",
    }
    return rows, meta


def aggregation_timing(
    responses: int = 10_000, claims: int = 20, docs: int = 5, repeats: int = 5
) -> dict[str, Any]:
    """Seconds to aggregate ``responses * claims * docs`` labels in several forms."""
    rng = np.random.default_rng(0)
    codes = [rng.integers(-1, 3, size=(claims, docs), dtype=np.int8) for _ in range(responses)]
    names = np.array(["FAILED", *RELATIONS], dtype=object)  # index = code + 1
    strings = [
        [[None if v == -1 else names[v + 1] for v in row] for row in table.tolist()]
        for table in codes
    ]
    labels = responses * claims * docs

    def seconds(fn: Callable[[], Any], n: int) -> list[float]:
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return times

    arrays = seconds(lambda: aggregate_batch(codes), repeats)
    texts = seconds(lambda: aggregate_batch(strings), max(1, repeats // 2))
    loop = seconds(lambda: [aggregate(t) for t in codes], 1)
    big = rng.integers(-1, 3, size=(1000, 1000), dtype=np.int8)
    single = seconds(lambda: aggregate(big), repeats)
    # sanity: batch and single forms agree
    batch = aggregate_batch(codes[:50])
    for i in range(50):
        assert batch.result(i)["cs_c"] == aggregate(codes[i]).cs_c
    return {
        "labels": labels,
        "shape": f"{responses} responses x {claims} claims x {docs} documents",
        "batch_int_arrays_s": round(median(arrays), 4),
        "batch_int_arrays_best_s": round(min(arrays), 4),
        "batch_label_strings_s": round(median(texts), 3),
        "aggregate_per_response_loop_s": round(median(loop), 3),
        "single_1000x1000_table_s": round(median(single), 4),
    }


def main(argv: list[str] | None = None) -> None:
    """Run the ConflictScore cost benchmark and print a JSON summary last."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--long-join", type=int, default=6, help="passages per long document")
    args = parser.parse_args(argv)
    rows, meta = cost_grid(1)
    long_rows, long_meta = cost_grid(args.long_join)
    timing = aggregation_timing()
    log(f"aggregation of 1M labels: {json.dumps(timing)}")
    emit(
        {
            "benchmark": "conflictscore_cost",
            "machine": machine(),
            "short_documents": {"corpus": meta, "grid": rows},
            "long_documents": {"corpus": long_meta, "grid": long_rows},
            "aggregation": timing,
            "targets": {"aggregate_1M_labels_lt_0.5_s": timing["batch_int_arrays_s"] < 0.5},
        }
    )


if __name__ == "__main__":
    main()
