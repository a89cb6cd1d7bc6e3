"""The deepeval metric carries money, not only tokens: ``evaluation_cost`` and its reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip(
    "deepeval",
    reason="deepeval is not installed (or does not import): pip install '.[deepeval]'",
)

from deepeval.test_case import LLMTestCase

from conflicteval import pricing
from conflicteval.adapters.deepeval import ConflictScoreMetric

DOCS = ["The bridge opened in 1932.", "Local records say the bridge opened in 1934."]
CASE = LLMTestCase(
    input="When?", actual_output="The bridge opened in 1932.", retrieval_context=DOCS
)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)  # deepeval keeps run files in ./.deepeval
    yield
    pricing.set_prices(None)


def test_a_model_without_a_price_says_so(scripted_model: Any) -> None:
    metric = ConflictScoreMetric(model=scripted_model())
    metric.measure(CASE)
    assert metric.evaluation_cost is None  # unknown, never a silent 0
    assert metric.reason is not None and "no price known for scripted/scripted" in metric.reason


def test_a_priced_model_has_its_estimate(scripted_model: Any) -> None:
    pricing.set_prices({"scripted/scripted": {"input": 1.0, "output": 2.0}})
    metric = ConflictScoreMetric(model=scripted_model())
    metric.measure(CASE)
    assert metric.input_tokens is not None and metric.output_tokens is not None
    want = (metric.input_tokens * 1.0 + metric.output_tokens * 2.0) / 1_000_000
    assert metric.evaluation_cost == pytest.approx(want) and want > 0
    assert metric.reason is not None and "cost: est. $" in metric.reason
    assert "scripted/scripted: $1 prompt + $2 completion per 1M tokens" in metric.reason


def test_offline_stages_cost_nothing() -> None:
    metric = ConflictScoreMetric(decomposer="sentence", labeler="lexical")
    metric.measure(CASE)
    assert metric.evaluation_cost == 0.0
    assert metric.reason is not None and "cost: $0 (no model calls)" in metric.reason
