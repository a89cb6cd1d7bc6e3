"""conflicteval.adapters.deepeval: ConflictScoreMetric in deepeval's real ``evaluate``, offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

deepeval = pytest.importorskip(
    "deepeval",
    reason="deepeval is not installed (or does not import): pip install '.[deepeval]'",
    exc_type=ImportError,
)

from deepeval import evaluate  # noqa: E402
from deepeval.errors import MissingTestCaseParamsError  # noqa: E402
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig, ErrorConfig  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402

from conflicteval.adapters.deepeval import ConflictScoreMetric  # noqa: E402
from conflicteval.errors import ParseFailure  # noqa: E402

DOCS = [
    "The bridge opened in 1932 after four years of work.",
    "Local records say the bridge opened in 1934.",
    "The tower rose in 1950 beside the river.",
]
SCORED = [
    ("The bridge opened in 1932. The tower rose in 1950.", DOCS),
    ("The bridge opened in 1934. The tower rose in 1950.", DOCS),
    ("The tower rose in 1950.", DOCS[2:]),
    ("The harbour froze in 1900.", DOCS),
]
QUIET = DisplayConfig(print_results=False, show_indicator=False, inspect_after_run=False)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """deepeval keeps its run files in ./.deepeval: keep them out of the checkout."""
    monkeypatch.chdir(tmp_path)


def case(response: str, docs: list[str] | None) -> LLMTestCase:
    return LLMTestCase(input="When?", actual_output=response, retrieval_context=docs)


@pytest.mark.parametrize("run_async", [True, False], ids=["async", "sync"])
def test_evaluate_matches_the_library_scorer(
    run_async: bool, scripted_model: Any, reference: Any, no_network: Any
) -> None:
    model = scripted_model()
    metric = ConflictScoreMetric(threshold=0.3, model=model)
    cases = [case(r, d) for r, d in SCORED]
    result = evaluate(
        cases, [metric], async_config=AsyncConfig(run_async=run_async), display_config=QUIET
    )
    by_output = {t.actual_output: t for t in result.test_results}
    for response, docs in SCORED:
        ref = reference(response, docs)
        assert ref.cs_c is not None
        data = by_output[response].metrics_data[0]
        assert data.name == "ConflictScore"
        assert data.error is None
        assert data.score == pytest.approx(ref.cs_c)
        assert data.success is (ref.cs_c <= 0.3)
        assert data.threshold == 0.3
        assert data.evaluation_model == "scripted/scripted"
    first = by_output[SCORED[0][0]].metrics_data[0]
    assert first.score == pytest.approx(0.5) and first.success is False
    assert "'The bridge opened in 1932.' is supported by document(s) 0" in first.reason
    assert "contradicted by document(s) 1" in first.reason
    assert "CS-R 0.25" in first.reason
    assert by_output[SCORED[2][0]].metrics_data[0].success is True
    assert [t.success for t in result.test_results].count(True) == 2
    assert not list(Path.cwd().glob("*.env*"))


def test_measure_sets_score_breakdown_and_result(scripted_model: Any, reference: Any) -> None:
    metric = ConflictScoreMetric(threshold=0.5, model=scripted_model(), include_reason=False)
    score = metric.measure(case(*SCORED[1]))
    ref = reference(*SCORED[1])
    assert score == pytest.approx(ref.cs_c) == pytest.approx(0.5)
    assert metric.is_successful() is True  # at the threshold passes
    assert metric.reason is None
    assert metric.score_breakdown["cs_r"] == pytest.approx(ref.cs_r)
    assert metric.score_breakdown["conflicted_claims"] == 1
    assert metric.result is not None and metric.result.claims == ref.claims
    assert metric.input_tokens and metric.output_tokens


def test_strict_mode_allows_no_conflicted_claim(scripted_model: Any) -> None:
    metric = ConflictScoreMetric(threshold=0.9, model=scripted_model(), strict_mode=True)
    assert metric.threshold == 0.0
    metric.measure(case(*SCORED[0]))
    assert metric.success is False
    metric.measure(case(*SCORED[2]))
    assert metric.score == 0.0 and metric.success is True


def test_a_failing_sample_is_an_error_not_a_score(scripted_model: Any, no_network: Any) -> None:
    metric = ConflictScoreMetric(threshold=0.3, model=scripted_model())
    bad = case("NOCLAIMS in this report.", DOCS)
    result = evaluate(
        [bad, case(*SCORED[2])],
        [metric],
        display_config=QUIET,
        error_config=ErrorConfig(ignore_errors=True),
    )
    by_output = {t.actual_output: t.metrics_data[0] for t in result.test_results}
    failed = by_output[bad.actual_output]
    assert failed.score is None and failed.success is False
    assert "no claims in the decomposition reply" in failed.error
    assert by_output[SCORED[2][0]].score == 0.0

    with pytest.raises(ParseFailure, match="no claims"):
        ConflictScoreMetric(model=scripted_model()).measure(bad)


async def _a_measure(metric: ConflictScoreMetric, test_case: LLMTestCase) -> float:
    return await metric.a_measure(test_case, _show_indicator=False)


@pytest.mark.parametrize("docs", [[], None], ids=["empty", "none"])
def test_a_case_without_retrieval_context_is_refused(scripted_model: Any, docs: Any) -> None:
    model = scripted_model()
    metric = ConflictScoreMetric(model=model)
    with pytest.raises(MissingTestCaseParamsError, match="retrieval_context"):
        metric.measure(case("The tower rose in 1950.", docs))
    assert metric.error and "retrieval_context" in metric.error
    assert metric.is_successful() is False
    assert model.provider.requests == []

    result = evaluate(
        [case("The tower rose in 1950.", docs)],
        [metric],
        display_config=QUIET,
        error_config=ErrorConfig(ignore_errors=True),
    )
    data = result.test_results[0].metrics_data[0]
    assert data.success is False and "retrieval_context" in data.error


def test_a_measure_in_a_running_loop(scripted_model: Any, reference: Any) -> None:
    import asyncio

    metric = ConflictScoreMetric(threshold=0.0, model=scripted_model())
    score = asyncio.run(_a_measure(metric, case(*SCORED[0])))
    assert score == pytest.approx(reference(*SCORED[0]).cs_c)
    assert metric.success is False


def test_offline_stages_need_no_model() -> None:
    metric = ConflictScoreMetric(decomposer="sentence", labeler="lexical")
    assert metric.evaluation_model == "sentence+lexical"
    assert metric.__name__ == "ConflictScore"
    with pytest.raises(ValueError, match="need a model"):
        ConflictScoreMetric()


def test_documents_are_named_by_their_source(scripted_model: Any, reference: Any) -> None:
    from deepeval.test_case.llm_test_case import RetrievedContextData

    sources = ["archive", "gazette", "archive"]
    contexts = [
        RetrievedContextData(context=d, source=s) for d, s in zip(DOCS, sources, strict=True)
    ]
    metric = ConflictScoreMetric(threshold=0.3, model=scripted_model())
    score = metric.measure(
        LLMTestCase(input="q", actual_output=SCORED[0][0], retrieval_context=contexts)
    )
    assert score == pytest.approx(reference(*SCORED[0]).cs_c)
    assert metric.result is not None and metric.result.document_ids == ["archive", "gazette", "2"]
    assert "supported by document(s) archive and contradicted by document(s) gazette" in (
        metric.reason or ""
    )


def test_evaluate_keeps_cs_r_at_full_precision(
    scripted_model: Any, reference: Any, no_network: Any
) -> None:
    """CS-R reaches deepeval.evaluate's results as a score, not only rounded in the reason."""
    from conflicteval.adapters.deepeval import ConflictScoreRatioMetric, conflict_score_metrics

    response = "The bridge opened in 1932. The tower rose in 1950. The tower rose in 1950 too."
    model = scripted_model()
    cs_c, cs_r = conflict_score_metrics(model, threshold=0.5, ratio_threshold=0.1)
    assert isinstance(cs_r, ConflictScoreRatioMetric) and cs_r.scorer is cs_c.scorer
    result = evaluate([case(response, DOCS)], [cs_c, cs_r], display_config=QUIET)
    ref = reference(response, DOCS)
    assert ref.cs_r == pytest.approx(1 / 6)
    data = {d.name: d for d in result.test_results[0].metrics_data}
    assert data["ConflictScore"].score == ref.cs_c
    assert data["ConflictScore-Ratio"].score == ref.cs_r  # exact: not the reason's "0.17"
    assert data["ConflictScore-Ratio"].success is False  # 1/6 > 0.1
    assert data["ConflictScore-Ratio"].threshold == 0.1
    assert "CS-R 0.17" in data["ConflictScore-Ratio"].reason
    # One scoring for both metrics: the calls of one library scoring, no more.
    assert len(model.provider.requests) == ref.calls


def test_cs_r_metric_errors_when_no_claim_has_evidence(scripted_model: Any) -> None:
    from conflicteval.adapters.deepeval import ConflictScoreRatioMetric

    metric = ConflictScoreRatioMetric(threshold=0.5, model=scripted_model())
    with pytest.raises(ParseFailure, match="CS-R undefined"):
        metric.measure(case(*SCORED[3]))
    assert metric.score is None and metric.success is False
    assert metric.__name__ == "ConflictScore-Ratio"
