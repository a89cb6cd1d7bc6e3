"""The harness adapters take a Claude model as any other: ragas's ``evaluate`` with an
``anthropic/`` model against the Messages API test server gives the scores the same replies
give through the scripted model."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

ragas = pytest.importorskip(
    "ragas",
    reason="ragas is not installed (or does not import): pip install '.[ragas]'",
    exc_type=ImportError,
)

from ragas import EvaluationDataset, evaluate  # noqa: E402

from conflicteval import get_model  # noqa: E402
from conflicteval.adapters.ragas import conflict_score_metrics  # noqa: E402
from conflicteval.testing.anthropic_server import AnthropicServer  # noqa: E402


def _judge() -> Any:
    path = Path(__file__).parents[1] / "adapters" / "conftest.py"
    spec = importlib.util.spec_from_file_location("_adapter_judge", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.judge


JUDGE = _judge()
DOCS = [
    "The bridge opened in 1932 after four years of work.",
    "Local records say the bridge opened in 1934.",
    "The tower rose in 1950 beside the river.",
]
SAMPLES = [
    ("The bridge opened in 1932. The tower rose in 1950.", DOCS),
    ("The tower rose in 1950.", DOCS[2:]),
]


def _scores(model: Any) -> list[tuple[float, float]]:
    cs_c, cs_r = conflict_score_metrics(model)
    data = EvaluationDataset.from_list(
        [{"user_input": "When?", "response": r, "retrieved_contexts": c} for r, c in SAMPLES]
    )
    df = evaluate(data, metrics=[cs_c, cs_r], show_progress=False).to_pandas()
    return list(zip(df["conflict_score_count"], df["conflict_score_ratio"], strict=True))


def test_ragas_with_claude_gives_the_scripted_scores() -> None:
    expected = _scores(get_model("scripted", replies=JUDGE))
    with AnthropicServer(lambda body: JUDGE(body["messages"])) as srv:
        claude = get_model("anthropic/claude-haiku-4-5", base_url=srv.base_url, cache=False)
        got = _scores(claude)
        assert srv.refused() == [] and srv.messages()
    assert got == expected and expected[0][0] == pytest.approx(0.5)
