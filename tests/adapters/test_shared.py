"""SharedScorer (one scoring per sample for several metrics) and the reason text."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from conflicteval._sync import run_sync
from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler
from conflicteval.conflictscore.shared import (
    SharedScorer,
    build_scorer,
    conflict_reason,
    unscored_reason,
)
from conflicteval.errors import ModelError
from conflicteval.models import get_model

DOCS = ["The bridge opened in 1932.", "The bridge opened in 1934.", "The tower rose in 1950."]
RESPONSE = "The bridge opened in 1932. The tower rose in 1950."


def shared_for(model: Any) -> SharedScorer:
    return SharedScorer(ConflictScorer(LLMDecomposer(model), LLMLabeler(model)))


def test_concurrent_requests_share_one_scoring(scripted_model: Any) -> None:
    model = scripted_model()
    shared = shared_for(model)

    async def both() -> list[Any]:
        return await asyncio.gather(*(shared.ascore(RESPONSE, DOCS) for _ in range(5)))

    results = run_sync(both())
    assert all(r is results[0] for r in results)
    assert len(model.provider.requests) == 1 + 2 * 3  # one decomposition, 2 claims x 3 docs
    assert shared.scored == 1 and len(shared) == 1
    assert shared.get(RESPONSE, DOCS) is results[0]
    assert shared.get(RESPONSE, DOCS[:2]) is None  # other documents: another sample


def test_requests_from_other_threads_and_loops_share_it_too(scripted_model: Any) -> None:
    model = scripted_model()
    shared = shared_for(model)
    out: list[Any] = []

    def worker() -> None:
        out.append(asyncio.run(shared.ascore(RESPONSE, DOCS)))

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(out) == 3 and out[0].cs_c == out[1].cs_c == out[2].cs_c == 0.5
    assert len(model.provider.requests) == 7
    shared.clear()
    assert shared.get(RESPONSE, DOCS) is None


def test_a_failure_is_memoised_and_raised_to_every_consumer(scripted_model: Any) -> None:
    model = scripted_model()
    shared = shared_for(model)
    for _ in range(2):
        with pytest.raises(ModelError, match="breaks the model"):
            run_sync(shared.ascore("BROKEN report.", DOCS))
    assert len(model.provider.requests) == 1
    assert shared.get("BROKEN report.", DOCS) is None


def test_a_cancelled_scoring_is_forgotten() -> None:
    async def slow(messages: Any) -> str:
        await asyncio.sleep(30)
        return "Claims:\n- x."

    shared = shared_for(get_model("scripted", replies=slow))

    async def cancel_it() -> None:
        task = asyncio.ensure_future(shared.ascore(RESPONSE, DOCS))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run_sync(cancel_it())
    assert len(shared) == 0


def test_reason_names_conflicted_claims_and_both_sides(scripted_model: Any) -> None:
    result = shared_for(scripted_model()).scorer.score(RESPONSE, DOCS)
    text = conflict_reason(result)
    assert text.startswith("CS-C 0.50: 1 of 2 claims")
    assert (
        "'The bridge opened in 1932.' is supported by document(s) 0 and contradicted by "
        "document(s) 1." in text
    )
    assert "tower" not in text  # not conflicted
    assert unscored_reason(result) is None and unscored_reason(result, "cs_r") is None

    failed = shared_for(scripted_model()).scorer.score("NOCLAIMS here.", DOCS)
    assert conflict_reason(failed) == "not scored: no claims in the decomposition reply"
    assert unscored_reason(failed, "cs_r") == "not scored: no claims in the decomposition reply"


def test_build_scorer() -> None:
    offline = build_scorer(decomposer="sentence", labeler="lexical")
    assert (offline.decomposer.name, offline.labeler.name) == ("sentence", "lexical")
    with pytest.raises(ValueError, match="need a model"):
        build_scorer(labeler="llm", decomposer="sentence")
    with pytest.raises(ValueError, match="unknown labeler"):
        build_scorer("scripted", labeler="bogus")


def test_shared_scorer_uses_wraps_or_builds() -> None:
    from conflicteval.adapters._scorer import shared_scorer

    offline = build_scorer(decomposer="sentence", labeler="lexical")
    shared = SharedScorer(offline)
    assert shared_scorer(shared) is shared
    wrapped = shared_scorer(offline)
    assert isinstance(wrapped, SharedScorer) and wrapped.scorer is offline
    built = shared_scorer(None, decomposer="sentence", labeler="lexical")
    assert (built.scorer.decomposer.name, built.scorer.labeler.name) == ("sentence", "lexical")
    with pytest.raises(ValueError, match="need a model"):
        shared_scorer(None, labeler="llm", decomposer="sentence")
