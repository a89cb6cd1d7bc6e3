"""The ``openai/…`` provider against a real third-party server: llama-cpp-python.

The server runs a tiny random-weight llama model (see ``conftest.py``), so the
words are meaningless; what is tested is the protocol: chat completions, usage
figures, queueing beyond the server's parallelism, JSON-schema constrained
decoding and the response cache. Decoding is greedy (temperature 0, seed 5).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest
from pydantic import BaseModel

from conflicteval import get_model
from conflicteval.models import Model, ProviderRequest, ProviderResponse
from conflicteval.types import Completion

if TYPE_CHECKING:  # the fixture's type; conftest is not importable under --import-mode=importlib
    from tests.integration.conftest import LlamaServer

pytestmark = pytest.mark.integration

QUESTION = [
    {"role": "system", "content": "You answer questions about two documents."},
    {"role": "user", "content": "Do the documents agree on the year the bridge opened?"},
]

LABEL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": ["agree", "conflict", "unrelated"]},
        "confident": {"type": "boolean"},
    },
    "required": ["label", "confident"],
    "additionalProperties": False,
}


class Verdict(BaseModel):
    """A pydantic response schema (sent as its JSON schema)."""

    relation: Literal["supports", "refutes", "not_enough_info"]
    evidence_count: int
    final: bool


def make_model(server: LlamaServer, **options: Any) -> Model:
    """A library model on the llama server; no cache unless the test passes one."""
    options.setdefault("cache", False)
    options.setdefault("timeout", 60.0)
    return get_model(f"openai/{server.model_alias}", base_url=server.base_url, **options)


def test_chat_completion_returns_text_and_usage(llama_server: LlamaServer) -> None:
    model = make_model(llama_server)
    before = llama_server.completion_requests()

    out = model.generate_sync(QUESTION, temperature=0, max_tokens=12, seed=5)

    assert isinstance(out, Completion)
    assert out.text.strip()
    assert out.cached is False
    assert out.model == f"openai/{llama_server.model_alias}"
    # The output rows of the special tokens are zero, so greedy decoding never
    # picks end-of-sequence: the reply always runs to the token limit.
    assert out.finish_reason == "length"
    assert out.usage.prompt_tokens > 0
    assert out.usage.completion_tokens == 12
    assert out.usage.calls == 1 and out.usage.cached_calls == 0
    assert model.usage.prompt_tokens == out.usage.prompt_tokens
    assert model.usage.completion_tokens == out.usage.completion_tokens
    assert llama_server.wait_for_requests(before + 1) == before + 1


def test_prompt_tokens_grow_with_the_prompt(llama_server: LlamaServer) -> None:
    model = make_model(llama_server)
    short = model.generate_sync("Hi.", max_tokens=4)
    long = model.generate_sync(
        "Hi. " + "The bridge opened in 1932 and again in 1951. " * 5, max_tokens=4
    )
    assert 0 < short.usage.prompt_tokens < long.usage.prompt_tokens
    assert short.usage.completion_tokens == long.usage.completion_tokens == 4


def test_greedy_decoding_is_deterministic(llama_server: LlamaServer) -> None:
    model = make_model(llama_server)
    first = model.generate_sync(QUESTION, temperature=0, max_tokens=20, seed=5)
    second = model.generate_sync(QUESTION, temperature=0, max_tokens=20, seed=5)
    assert first.cached is False and second.cached is False
    assert first.text == second.text
    assert first.usage == second.usage


def test_concurrency_above_server_parallelism(llama_server: LlamaServer) -> None:
    """8 calls in flight at once; the server runs one at a time and queues the rest."""
    model = make_model(llama_server, max_concurrency=8, max_attempts=1)
    provider = model.provider
    original = provider.complete
    in_flight = 0
    peak = 0

    async def counting(request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await original(request, timeout)
        finally:
            in_flight -= 1

    provider.complete = counting  # type: ignore[method-assign]
    before = llama_server.completion_requests()

    async def many() -> list[Completion]:
        calls = [
            model.generate(
                f"Question {i}: which document is right about the bridge?", max_tokens=24
            )
            for i in range(8)
        ]
        return await asyncio.gather(*calls)

    outs = asyncio.run(many())

    assert len(outs) == 8
    assert all(out.text.strip() and not out.cached for out in outs)
    assert all(out.usage.completion_tokens == 24 for out in outs)
    assert peak == 8, f"only {peak} requests were in flight at once"
    assert model.failures == 0
    assert model.usage.calls == 8
    assert llama_server.wait_for_requests(before + 8) == before + 8


def test_json_schema_output_is_schema_valid(llama_server: LlamaServer) -> None:
    """llama-cpp-python enforces ``{"type": "json_object", "schema": ...}`` with a grammar."""
    model = make_model(llama_server, schema_format="json_object")
    before = llama_server.completion_requests()

    out = model.generate_sync(QUESTION, response_schema=LABEL_SCHEMA)

    assert out.parse_error is None, out.text
    assert isinstance(out.parsed, dict)
    assert set(out.parsed) == {"label", "confident"}
    assert out.parsed["label"] in {"agree", "conflict", "unrelated"}
    assert isinstance(out.parsed["confident"], bool)
    assert json.loads(out.text) == out.parsed  # the raw reply is the JSON itself
    assert out.finish_reason == "stop"
    # valid at the first try: no re-ask was needed
    assert llama_server.wait_for_requests(before + 1) == before + 1


def test_pydantic_schema_output_validates(llama_server: LlamaServer) -> None:
    model = make_model(llama_server, schema_format="json_object")
    out = model.generate_sync(
        "Does the claim hold? Give your verdict.", response_schema=Verdict, max_tokens=250
    )
    assert out.parse_error is None, out.text
    assert isinstance(out.parsed, Verdict)
    assert out.parsed.relation in {"supports", "refutes", "not_enough_info"}


def test_without_the_grammar_the_random_model_writes_no_json(llama_server: LlamaServer) -> None:
    """The control: with the schema not sent, the same model's reply does not parse."""
    model = make_model(llama_server, supports_schema=False)
    out = model.generate_sync(QUESTION, response_schema=LABEL_SCHEMA, max_tokens=40)
    assert out.parsed is None
    assert out.parse_error is not None


def test_openai_json_schema_form_is_rejected_and_the_library_falls_back(
    llama_server: LlamaServer,
) -> None:
    """llama-cpp-python 0.3.x only accepts ``type`` "text" or "json_object".

    It answers OpenAI's ``{"type": "json_schema", ...}`` (the provider's
    default) with HTTP 500 naming ``response_format``. The library takes that
    as a rejected schema parameter: it stops sending it and extracts JSON from
    plain text instead (which this random model cannot write, so the result is
    a recorded parse failure, not a guess). With this server, use
    ``schema_format="json_object"``. If this test starts failing, the server
    has learned the ``json_schema`` form.
    """
    model = make_model(llama_server, max_attempts=1)
    out = model.generate_sync(QUESTION, response_schema=LABEL_SCHEMA, max_tokens=16)
    assert model.provider.supports_schema is False
    assert out.parsed is None
    assert out.parse_error is not None
    if out.finish_reason == "length":  # cut off: a failure at once, no re-ask
        assert out.parse_error == "reply cut off by max_tokens"
    else:
        assert "after one re-ask" in out.parse_error


def test_second_identical_call_is_served_from_cache(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    # The grammar makes the random model finish its reply ("stop"): a reply cut off by
    # max_tokens is never cached (see the next test).
    cache_dir = tmp_path / "cache"
    model = make_model(llama_server, cache=cache_dir, schema_format="json_object")
    settings: dict[str, Any] = {"response_schema": LABEL_SCHEMA, "max_tokens": 120}
    before = llama_server.completion_requests()

    first = model.generate_sync(QUESTION, **settings)
    assert first.cached is False and first.finish_reason == "stop"
    after_first = llama_server.wait_for_requests(before + 1)
    assert after_first == before + 1

    second = model.generate_sync(QUESTION, **settings)
    assert second.cached is True
    assert second.text == first.text
    assert second.finish_reason == first.finish_reason
    assert second.usage.prompt_tokens == first.usage.prompt_tokens
    assert second.usage.completion_tokens == first.usage.completion_tokens
    assert second.usage.cached_calls == 1

    # A new model object on the same cache directory (a re-run) is served from disk too.
    rerun = make_model(llama_server, cache=cache_dir, schema_format="json_object")
    assert rerun.is_cached(QUESTION, **settings)
    third = rerun.generate_sync(QUESTION, **settings)
    assert third.cached is True and third.text == first.text

    # A different setting is a different key: it goes to the server.
    other = model.generate_sync(QUESTION, response_schema=LABEL_SCHEMA, max_tokens=121)
    assert other.cached is False

    # Only the two uncached calls reached the server.
    assert llama_server.wait_for_requests(before + 2) == before + 2
    assert llama_server.completion_requests() == before + 2
    assert model.usage.calls == 3 and model.usage.cached_calls == 1


def test_a_reply_cut_off_by_max_tokens_is_counted_and_not_cached(
    llama_server: LlamaServer, tmp_path: Path
) -> None:
    model = make_model(llama_server, cache=tmp_path / "cache")
    before = llama_server.completion_requests()
    first = model.generate_sync(QUESTION, max_tokens=16)
    second = model.generate_sync(QUESTION, max_tokens=16)
    assert first.finish_reason == "length" and first.truncated
    assert not second.cached and second.text == first.text
    assert model.usage.truncated == 2
    assert llama_server.wait_for_requests(before + 2) == before + 2


def test_schema_replies_are_cached_too(llama_server: LlamaServer, tmp_path: Path) -> None:
    model = make_model(llama_server, cache=tmp_path / "cache", schema_format="json_object")
    first = model.generate_sync(QUESTION, response_schema=LABEL_SCHEMA)
    before = llama_server.completion_requests()
    second = model.generate_sync(QUESTION, response_schema=LABEL_SCHEMA)
    assert second.cached is True
    assert second.parsed == first.parsed and second.parse_error is None
    assert llama_server.completion_requests() == before
