"""A Claude model (``anthropic/``) on the Ray executor: the same records as locally, the
provider pickled to the actors, every request accepted by the Messages API test server."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval import get_model
from conflicteval.conflictscore import ConflictScorer, LLMLabeler, SentenceDecomposer
from conflicteval.testing.anthropic_server import AnthropicServer

HAVE_RAY = all(importlib.util.find_spec(m) is not None for m in ("ray", "pyarrow"))
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (extra: pip install '.[ray]')"),
]

DOCS = ["The canal opened in 1847.", "The canal opened in 1851."]


def reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    _, _, doc = prompt.partition("\nDocument to evaluate against\n")
    answer = "CONTRADICTS" if "1851" in doc else "SUPPORTS"
    return json.dumps({"claim": "c", "document_snippet": "", "reasoning": "", "answer": answer})


def test_a_claude_labeler_on_ray_matches_local(ray_session: Any, tmp_path: Path) -> None:
    from conflicteval.runs.ray import RayExecutor

    items = [{"id": f"r{k}", "response": f"The canal opened in 1847. It has {k} locks.",
              "documents": DOCS} for k in range(6)]  # fmt: skip
    results = {}
    for executor in ("local", "ray"):
        with AnthropicServer(reply, api_key="sk-ant-test-key") as srv:
            model = get_model("anthropic/claude-haiku-4-5", base_url=srv.base_url,
                              api_key="sk-ant-test-key", cache=tmp_path / executor)  # fmt: skip
            scorer = ConflictScorer(SentenceDecomposer(), LLMLabeler(model))
            ex = None if executor == "local" else RayExecutor(actors=2)
            results[executor] = scorer.score_many(items, concurrency=4, executor=ex)
            assert srv.refused() == []
            results[executor + "-sent"] = len(srv.messages())
    # identical calls in flight at once are each sent: how many are sent depends on timing
    assert results["local-sent"] > 0 and results["ray-sent"] > 0
    local, on_ray = results["local"], results["ray"]
    assert local.counts == on_ray.counts and local.counts["ok"] == 6

    def scores(result: Any) -> list[tuple[Any, ...]]:  # usage (cached or sent) depends on timing
        keys = ("cs_c", "cs_r", "claims", "labels")
        return [(r.id, *(r.result[k] for k in keys)) for r in result.records]

    assert scores(local) == scores(on_ray)
    assert any(r.result["cs_c"] > 0 for r in local.records)  # conflicts found: a real comparison
