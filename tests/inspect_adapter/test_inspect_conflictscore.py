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
from conflicteval.conflictbench.metrics import binary_scores
from conflicteval.conflictbench.reports import REPORT_SETTINGS
from conflicteval.conflictscore import (
    ConflictScorer,
    LLMDecomposer,
    LLMLabeler,
    PerClaimLLMLabeler,
    PerDocumentLLMLabeler,
)
from conflicteval.conflictscore.decompose import DECOMPOSE_SETTINGS
from conflicteval.conflictscore.labelers import LABEL_SETTINGS
from conflicteval.inspect import conflict_score, conflictbench

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
    library = ConflictScorer(
        LLMDecomposer(get_model("scripted", replies=scripted_reply)),
        LIBRARY_LABELERS[labeler](get_model("scripted", replies=scripted_reply)),
    )
    outcomes: list[tuple[bool, float]] = []
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
        assert score.metadata["labels"] == [[p.label for p in row] for row in expected.labels]
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
    assert {"no claims", "cs_r undefined"} <= kinds, kinds
    if labeler == "llm":
        assert "failed pairs" in kinds, kinds

    # metrics: mean and stderr of CS-C / CS-R, and detection from "CS-C > 0"
    results = {s.name: s for s in log.results.scores}
    cs_c = [c for _, c in outcomes]
    assert results["cs_c"].metrics["mean"].value == pytest.approx(sum(cs_c) / len(cs_c))
    assert results["cs_c"].unscored_samples == LIMIT - len(outcomes)
    counts = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for gold, value in outcomes:
        pred = value > 0
        key = ("t" if pred == gold else "f") + ("p" if pred else "n")
        counts[key] += 1
    detection = results["conflict_score"].metrics
    for key, n in counts.items():
        assert detection[key].value == n
    expected_ratios = binary_scores(**counts)
    for key in ("accuracy", "precision", "recall", "f1"):
        if expected_ratios[key] is None:
            assert key not in detection
        else:
            assert detection[key].value == pytest.approx(expected_ratios[key])

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
