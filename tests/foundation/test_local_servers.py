"""Local OpenAI-compatible servers as a new user meets them: a refused schema, an unlisted name."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from conflicteval import get_model
from conflicteval.cli import main
from conflicteval.models.base import ProviderRequest
from conflicteval.testing import OpenAICompatServer

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}}


def test_a_refused_schema_is_learned_once_per_endpoint_and_said_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    reply = json.dumps({"answer": "yes"})
    with OpenAICompatServer([reply], reject_response_format=500) as srv:
        first = get_model("openai/a", base_url=srv.base_url, api_key="k", cache=False)
        second = get_model("openai/b", base_url=srv.base_url, api_key="k", cache=False)
        with caplog.at_level(logging.WARNING, "conflicteval"):
            for k in range(3):
                for model in (first, second):
                    out = model.generate_sync(f"q{k}", response_schema=SCHEMA)
                    assert out.parsed == {"answer": "yes"}
        bodies = [r.body or {} for r in srv.completions()]
        # a later batch export of either model writes no schema either
        request = ProviderRequest(
            messages=[{"role": "user", "content": "q"}], response_schema=SCHEMA
        )
        body = second.provider.request_body(request)  # type: ignore[attr-defined]
    said = [r for r in caplog.records if "refused the JSON schema" in r.getMessage()]
    assert len(said) == 1
    assert sum("response_format" in b for b in bodies) == 1  # only the very first request
    assert "response_format" not in body


def test_a_model_the_server_does_not_list_gets_one_warning_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    docs = [{"id": "a", "text": "It opened in 1847."}]
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "r", "response": "It opened.", "documents": docs}) + "\n")
    answer = json.dumps(
        {"claim": "c", "document_snippet": "", "reasoning": "", "answer": "SUPPORTS"}
    )

    def run(spec: str) -> list[str]:
        caplog.clear()
        with caplog.at_level(logging.WARNING, "conflicteval"):
            main(["score", "--input", str(items), "--out", str(tmp_path / spec.replace("/", "-")),
                  "--model", spec, "--labeler", "llm", "--decomposer", "sentence",
                  "--base-url", srv.base_url])  # fmt: skip
        return [
            r.getMessage() for r in caplog.records if "is not among the models" in r.getMessage()
        ]

    with OpenAICompatServer([answer]) as srv:
        unlisted = run("openai/llama-3-8b")
        listed = run("openai/test-model")
        models_asked = [r for r in srv.requests if r.path.endswith("/models")]
    assert len(unlisted) == 1 and "'llama-3-8b'" in unlisted[0] and "test-model" in unlisted[0]
    assert listed == []
    assert len(models_asked) == 1  # the listing is asked once per server


def test_a_refusal_learned_online_is_kept_beside_the_cache_for_a_later_batch_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conflicteval.models import endpoint

    reply = json.dumps({"answer": "yes"})
    with OpenAICompatServer([reply], reject_response_format=True) as srv:
        online = get_model("openai/a", base_url=srv.base_url, api_key="k", cache=tmp_path / "c")
        assert online.generate_sync("q", response_schema=SCHEMA).parsed == {"answer": "yes"}
        base_url = srv.base_url
    kept = json.loads((tmp_path / "c" / endpoint.ENDPOINTS_FILE).read_text())
    assert kept == {base_url: {"json_schema": False}}
    # a later run (another process: nothing learned in memory) writing a batch file
    monkeypatch.setattr(endpoint, "_no_schema", set())
    later = get_model("openai/a", base_url=base_url, api_key="k", cache=tmp_path / "c")
    request = ProviderRequest(messages=[{"role": "user", "content": "q"}], response_schema=SCHEMA)
    assert "response_format" not in later.provider.request_body(request)  # type: ignore[attr-defined]
    other_cache = get_model("openai/a", base_url=base_url, api_key="k", cache=tmp_path / "d")
    monkeypatch.setattr(endpoint, "_no_schema", set())
    assert "response_format" in other_cache.provider.request_body(request)  # type: ignore[attr-defined]
