"""The conflictbench task and conflict_score scorer inside the real inspect_ai.eval()."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra")

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample

from conflicteval import get_model
from conflicteval.adapters.inspect import conflict_score, conflictbench
from conflicteval.conflictbench.metrics import metrics_from_predictions, predict_response_conflict
from conflicteval.conflictbench.report_benchmark import REPORT_SETTINGS
from conflicteval.conflictscore import (
    ConflictScorer,
    LLMDecomposer,
    LLMLabeler,
    PerClaimLLMLabeler,
    PerDocumentLLMLabeler,
)
from conflicteval.conflictscore.decompose import DECOMPOSE_SETTINGS
from conflicteval.conflictscore.labelers import LABEL_SETTINGS

LIMIT = 10
LIBRARY_LABELERS = {
    "llm": LLMLabeler,
    "llm-per-document": PerDocumentLLMLabeler,
    "llm-per-claim": PerClaimLLMLabeler,
}


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


@pytest.mark.parametrize("labeler", ["llm", "llm-per-document", "llm-per-claim"])
def test_conflictbench_scores_equal_the_library(
    labeler: str,
    bench_file: Path,
    inspect_env: Path,
    mock_model: Any,
    mock_replies: Any,
    scripted_reply: Any,
) -> None:
    [log] = eval(
        conflictbench(str(bench_file), labeler=labeler),
        model=mock_model,
        model_roles={"grader": mock_model},
        limit=LIMIT,
        display="none",
    )
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == LIMIT
    # An Inspect run sends no JSON schema and re-asks nothing: it equals the library's
    # plain mode (`conflicteval score --plain-json`, structured=False), calls included.
    lib_model = get_model("scripted", replies=scripted_reply)
    library = ConflictScorer(
        LLMDecomposer(lib_model), LIBRARY_LABELERS[labeler](lib_model, structured=False)
    )
    outcomes: list[tuple[bool, float]] = []
    predictions: list[tuple[bool | None, bool]] = []
    kinds = set()
    for sample in log.samples:
        score = sample.scores["conflict_score"]
        docs = sample.metadata["documents"]
        expected = library.score(sample.output.completion, docs)
        if expected.error:  # no claim: not scored, with the reason
            assert _is_nan(score.value)
            assert score.metadata["unscored_reason"] == "grader_failed"
            assert expected.error in (score.explanation or "")
            kinds.add("no claims")
            continue
        assert score.metadata["claims"] == expected.claims
        table = [[p.label for p in row] for row in expected.labels]
        assert score.metadata["labels"] == table
        failed = [(p.claim_index, p.doc_index) for row in expected.labels for p in row if p.error]
        assert [(f["claim"], f["document"]) for f in score.metadata["failed_pairs"]] == failed
        assert all(f["raw"] for f in score.metadata["failed_pairs"])
        if failed:
            kinds.add("failed pairs")
        assert score.value["cs_c"] == pytest.approx(expected.cs_c)
        if expected.cs_r is None:
            assert _is_nan(score.value["cs_r"])
            kinds.add("cs_r undefined")
        else:
            assert score.value["cs_r"] == pytest.approx(expected.cs_r)
        outcomes.append((sample.metadata["conflict"], expected.cs_c))
        predictions.append((predict_response_conflict(table), sample.metadata["conflict"]))
    assert {"no claims", "cs_r undefined"} <= kinds, kinds
    if labeler == "llm":
        assert "failed pairs" in kinds, kinds

    grading = [c for c in mock_replies.calls if not c[0].startswith("Instruction: Write a report")]
    assert len(grading) == len(lib_model.provider.requests)

    # metrics: mean and stderr of CS-C / CS-R, and detection by the library's metrics
    results = {s.name: s for s in log.results.scores}
    cs_c = [c for _, c in outcomes]
    assert results["cs_c"].metrics["mean"].value == pytest.approx(sum(cs_c) / len(cs_c))
    assert results["cs_c"].unscored_samples == LIMIT - len(outcomes)
    library_detection = metrics_from_predictions(predictions)  # of the library's own labels
    detection = results["conflict_score"].metrics
    for key in ("tp", "fp", "fn", "tn", "failed_items"):
        assert detection[key].value == getattr(library_detection, key)
    assert library_detection.n_items == len(outcomes)
    for key in ("accuracy", "precision", "recall", "f1", "acc_conf", "acc_noconf"):
        value = getattr(library_detection, key)
        if value is None:
            assert key not in detection
        else:
            assert detection[key].value == pytest.approx(value)

    # decoding: the report writer, the decomposer and the labeler use the library's settings
    for prompt, config, _ in mock_replies.calls:
        if prompt.startswith("Instruction: Write a report"):
            want = REPORT_SETTINGS
        elif "Break down the following report" in prompt:
            want = DECOMPOSE_SETTINGS
        else:
            want = LABEL_SETTINGS
        assert (config.temperature, config.seed) == (want["temperature"], want.get("seed"))
        if labeler == "llm" or want is not LABEL_SETTINGS:
            assert config.max_tokens == want["max_tokens"]


def _documents_task(metadata: dict[str, Any]) -> Task:
    return Task(
        dataset=[Sample(id="item-7", input="Write.", metadata=metadata)],
        scorer=conflict_score(),
    )


@pytest.mark.parametrize(
    ("metadata", "words"),
    [
        ({}, ["item-7", "documents"]),
        ({"documents": []}, ["item-7", "non-empty list"]),
        ({"documents": ["ok text", {"id": "d2", "text": "  "}]}, ["item-7", "d2", "no text"]),
    ],
)
def test_missing_documents_name_the_sample(
    metadata: dict[str, Any], words: list[str], inspect_env: Path, mock_model: Any
) -> None:
    [log] = eval(_documents_task(metadata), model=mock_model, display="none")
    assert log.status == "error"
    for word in words:
        assert word in str(log.error)


def test_unknown_labeler_is_refused() -> None:
    from conflicteval.errors import ConflictEvalError

    with pytest.raises(ConflictEvalError, match="unknown labeler"):
        conflict_score(labeler="magic")
    with pytest.raises(ConflictEvalError, match="unknown report prompt"):
        conflictbench("unused.jsonl", report_prompt="fancy")


def test_detection_counts_an_undetermined_sample_as_failed_not_no_conflict() -> None:
    """CS-C 0 with a failed pair that could have made the claim conflicted: no prediction."""
    from inspect_ai.scorer import SampleScore, Score

    from conflicteval.adapters.inspect import conflict_detection

    S, C, IRR = "SUPPORTS", "CONTRADICTS", "IRRELEVANT"
    tables = {
        "conflicted": ([[S, C, IRR]], True),  # tp
        "undetermined": ([[S, None, IRR]], True),  # CS-C 0, but the failed pair may be C
        "clean": ([[S, IRR], [IRR, IRR]], False),  # tn
        "wrong": ([[S, C]], False),  # fp
    }
    scores = [
        SampleScore(
            score=Score(value={"cs_c": 0.0}, metadata={"labels": table}),
            sample_id=name,
            sample_metadata={"conflict": gold},
        )
        for name, (table, gold) in tables.items()
    ]
    out = conflict_detection()(scores)
    assert (out["tp"], out["fp"], out["fn"], out["tn"], out["failed_items"]) == (1, 1, 0, 1, 1)
    assert out["accuracy"] == pytest.approx(2 / 3)
    assert out["precision"] == pytest.approx(0.5) and out["recall"] == pytest.approx(1.0)
    assert out["acc_noconf"] == pytest.approx(0.5)
