"""Titled documents: the ragas and deepeval adapters send the prompts `conflicteval score` sends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.conflictscore.shared import titled_context
from conflicteval.models import get_model
from conflicteval.testing import OpenAICompatServer

from .conftest import judge

RESPONSE = "The bridge opened in 1932. The tower rose in 1950."
DOCS = [
    {"id": "a", "title": "Bridge history", "text": "The bridge opened in 1932 after four years."},
    {"id": "b", "title": "Gazette", "text": "Local records say the bridge opened in 1934."},
    {"id": "c", "title": "Tower", "text": "Tower: the tower rose in 1950 beside the river."},
]


def _server() -> OpenAICompatServer:
    return OpenAICompatServer(lambda body: judge(body["messages"]))


def _prompts(server: OpenAICompatServer) -> list[str]:
    return sorted(r.prompt for r in server.completions())


def _score_cli_prompts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    response = tmp_path / "response.txt"
    response.write_text(RESPONSE, encoding="utf-8")
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    with _server() as server:
        code = main(
            ["score", "--response", str(response), "--documents", str(docs),
             "--model", "openai/judge", "--base-url", server.base_url, "--no-cache"]
        )  # fmt: skip
        assert code == 0
        return _prompts(server)


def _contexts() -> list[str]:
    return [titled_context(d["title"], d["text"]) for d in DOCS]


def test_titled_context_is_the_text_score_shows() -> None:
    assert titled_context("T", "body") == "T\n\nbody"
    assert titled_context(None, "body") == titled_context("", "body") == "body"
    assert titled_context("Tower", "Tower: it rose.") == "Tower: it rose."  # already starts with it


def test_ragas_prompts_equal_the_score_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ragas", reason="pip install '.[ragas]'", exc_type=ImportError)
    from ragas import EvaluationDataset, evaluate

    from conflicteval.adapters.ragas import conflict_score_metrics

    expected = _score_cli_prompts(tmp_path, monkeypatch)
    assert any("\nBridge history\n\nThe bridge opened in 1932" in p for p in expected)
    for contexts, same in ((_contexts(), True), ([d["text"] for d in DOCS], False)):
        with _server() as server:
            model = get_model("openai/judge", base_url=server.base_url, cache=False)
            cs_c, cs_r = conflict_score_metrics(model)
            data = EvaluationDataset.from_list(
                [{"user_input": "q", "response": RESPONSE, "retrieved_contexts": contexts}]
            )
            evaluate(data, metrics=[cs_c, cs_r], show_progress=False)
            assert (_prompts(server) == expected) is same


def test_deepeval_prompts_equal_the_score_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("deepeval", reason="pip install '.[deepeval]'", exc_type=ImportError)
    from deepeval.test_case import LLMTestCase

    from conflicteval.adapters.deepeval import ConflictScoreMetric

    expected = _score_cli_prompts(tmp_path, monkeypatch)
    monkeypatch.chdir(tmp_path)
    for contexts, same in ((_contexts(), True), ([d["text"] for d in DOCS], False)):
        with _server() as server:
            model = get_model("openai/judge", base_url=server.base_url, cache=False)
            metric: Any = ConflictScoreMetric(threshold=1.0, model=model)
            metric.measure(
                LLMTestCase(input="q", actual_output=RESPONSE, retrieval_context=contexts)
            )
            assert (_prompts(server) == expected) is same
