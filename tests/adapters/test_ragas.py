"""conflicteval.adapters.ragas: CS-C and CS-R through ragas's real ``evaluate``, offline."""

from __future__ import annotations

import logging
import math
from typing import Any

import pytest

ragas = pytest.importorskip(
    "ragas",
    reason="ragas is not installed (or does not import): pip install '.[ragas]'",
    exc_type=ImportError,
)

from ragas import EvaluationDataset, evaluate  # noqa: E402
from ragas.dataset_schema import SingleTurnSample  # noqa: E402

from conflicteval.adapters.ragas import (  # noqa: E402
    ConflictScoreCount,
    ConflictScoreRatio,
    conflict_score_metrics,
)
from conflicteval.conflictscore import ConflictScorer, SentenceDecomposer  # noqa: E402

DOCS = [
    "The bridge opened in 1932 after four years of work.",
    "Local records say the bridge opened in 1934.",
    "The tower rose in 1950 beside the river.",
]
SCORED = [
    ("The bridge opened in 1932. The tower rose in 1950.", DOCS),
    ("The bridge opened in 1934.", DOCS),
    ("The tower rose in 1950.", DOCS[2:]),
    ("The tower rose in 1950. The bridge opened in 1932.", [DOCS[0], DOCS[2]]),
]
FAILING = ("NOCLAIMS in this report.", DOCS)
NO_CONTEXTS = ("The bridge opened in 1932.", [])
NO_EVIDENCE = ("The harbour froze in 1900.", DOCS)


def rows(samples: list[tuple[str, list[str]]]) -> EvaluationDataset:
    return EvaluationDataset.from_list(
        [{"user_input": "When?", "response": r, "retrieved_contexts": c} for r, c in samples]
    )


def run(metrics: list[Any], samples: list[tuple[str, list[str]]]) -> Any:
    return evaluate(rows(samples), metrics=metrics, show_progress=False).to_pandas()


def test_evaluate_matches_the_library_scorer(
    scripted_model: Any, reference: Any, no_network: Any, caplog: pytest.LogCaptureFixture
) -> None:
    model = scripted_model()
    cs_c, cs_r = conflict_score_metrics(model)
    samples = [*SCORED, FAILING, NO_CONTEXTS]
    with caplog.at_level(logging.WARNING, logger="conflicteval.ragas"):
        df = run([cs_c, cs_r], samples)

    assert list(df["response"]) == [r for r, _ in samples]
    expected_calls = 0
    for i, (response, docs) in enumerate(SCORED):
        ref = reference(response, docs)
        assert ref.error is None and ref.cs_c is not None and ref.cs_r is not None
        assert df["conflict_score_count"][i] == pytest.approx(ref.cs_c)
        assert df["conflict_score_ratio"][i] == pytest.approx(ref.cs_r)
        expected_calls += ref.calls
    # the samples differ: some have conflicts, some not
    assert df["conflict_score_count"][0] == pytest.approx(0.5)
    assert df["conflict_score_count"][2] == 0.0

    # the failing sample and the sample without contexts: ragas's missing value, with reasons
    for i in (4, 5):
        assert math.isnan(df["conflict_score_count"][i])
        assert math.isnan(df["conflict_score_ratio"][i])
    reasons = {(u.metric, u.response): u.reason for u in [*cs_c.unscored, *cs_r.unscored]}
    assert reasons[("conflict_score_count", FAILING[0])] == (
        "not scored: no claims in the decomposition reply"
    )
    assert reasons[("conflict_score_ratio", FAILING[0])] == (
        "not scored: no claims in the decomposition reply"
    )
    assert "no retrieved contexts" in reasons[("conflict_score_count", NO_CONTEXTS[0])]
    assert "no retrieved contexts" in reasons[("conflict_score_ratio", NO_CONTEXTS[0])]
    assert len(cs_c.unscored) == len(cs_r.unscored) == 2
    assert sum("sample not scored" in r.getMessage() for r in caplog.records) == 4

    # one scoring per sample: CS-R made no call of its own (the failing sample: one call;
    # the sample without contexts: none)
    assert len(model.provider.requests) == expected_calls + 1
    assert cs_c.shared is cs_r.shared and cs_c.shared.scored == len(SCORED) + 1

    # the full result of a sample stays at hand
    table = cs_c.result(*SCORED[0])
    assert table is not None and table.claims == [
        "The bridge opened in 1932.",
        "The tower rose in 1950.",
    ]


def test_cs_r_undefined_without_evidence_is_missing_not_zero(
    scripted_model: Any, reference: Any, no_network: Any
) -> None:
    cs_c, cs_r = conflict_score_metrics(scripted_model())
    df = run([cs_c, cs_r], [NO_EVIDENCE])
    ref = reference(*NO_EVIDENCE)
    assert ref.cs_c == 0.0 and ref.cs_r is None
    assert df["conflict_score_count"][0] == 0.0
    assert math.isnan(df["conflict_score_ratio"][0])
    assert cs_c.unscored == []
    assert [u.reason for u in cs_r.unscored] == [
        "CS-R undefined: no claim is supported or contradicted by any document"
    ]


def test_a_failed_model_call_is_recorded_and_made_once(
    scripted_model: Any, no_network: Any
) -> None:
    model = scripted_model()
    cs_c, cs_r = conflict_score_metrics(model)
    df = run([cs_c, cs_r], [("BROKEN report here.", DOCS), SCORED[2]])
    assert math.isnan(df["conflict_score_count"][0]) and math.isnan(df["conflict_score_ratio"][0])
    assert df["conflict_score_count"][1] == 0.0
    for metric in (cs_c, cs_r):
        assert len(metric.unscored) == 1
        assert metric.unscored[0].reason.startswith("model call failed:")
        assert "breaks the model" in metric.unscored[0].reason
    decompositions = [r for r in model.provider.requests if "BROKEN" in r.messages[-1]["content"]]
    assert len(decompositions) == 1  # not retried (non-retryable), not repeated by CS-R


def test_ragas_rejects_a_dataset_without_retrieved_contexts(scripted_model: Any) -> None:
    cs_c, cs_r = conflict_score_metrics(scripted_model())
    data = EvaluationDataset.from_list([{"user_input": "q", "response": "The tower rose in 1950."}])
    with pytest.raises(ValueError, match="retrieved_contexts"):
        evaluate(data, metrics=[cs_c, cs_r], show_progress=False)


def test_ragas_sync_single_sample_api(scripted_model: Any, reference: Any) -> None:
    cs_c, cs_r = conflict_score_metrics(scripted_model())
    sample = SingleTurnSample(response=SCORED[0][0], retrieved_contexts=SCORED[0][1])
    ref = reference(*SCORED[0])
    assert cs_c.single_turn_score(sample) == pytest.approx(ref.cs_c)
    assert cs_r.single_turn_score(sample) == pytest.approx(ref.cs_r)


def test_offline_stages_and_names() -> None:
    cs_c, cs_r = conflict_score_metrics(decomposer="sentence", labeler="lexical")
    assert (cs_c.name, cs_r.name) == ("conflict_score_count", "conflict_score_ratio")
    assert cs_c.shared.model is None
    lone = ConflictScoreRatio(scorer=ConflictScorer(SentenceDecomposer()))
    assert lone.shared.scorer.decomposer.name == "sentence"
    with pytest.raises(ValueError, match="needs a scorer"):
        ConflictScoreCount().init(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="need a model"):
        conflict_score_metrics()
