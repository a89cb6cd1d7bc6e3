"""The model layer against the real local HTTP server, through the real openai SDK."""

from __future__ import annotations

import asyncio
import time

import pytest
from pydantic import BaseModel

from conflicteval import ModelError, get_model
from conflicteval.testing import Fault, OpenAICompatServer


def fast_model(server: OpenAICompatServer, **options: object):
    opts: dict[str, object] = {
        "base_url": server.base_url,
        "api_key": "test-key",
        "cache": False,
        "backoff_initial": 0.01,
        "backoff_max": 0.05,
        "timeout": 5.0,
    }
    opts.update(options)
    return get_model("openai/test-model", **opts)


@pytest.mark.parametrize(
    "fault",
    [
        Fault.rate_limit(0.05),
        Fault.status_code(500),
        Fault.status_code(502),
        Fault.status_code(503),
        Fault.status_code(408),
        Fault.status_code(409),
        Fault.drop(),
        Fault.malformed(),
    ],
    ids=lambda f: f"{f.kind}-{f.status}",
)
def test_retryable_fault_is_retried_then_succeeds(fault: Fault) -> None:
    with OpenAICompatServer(replies=["answer"], faults=[fault, fault]) as server:
        out = fast_model(server).generate_sync("q")
        assert out.text == "answer"
        assert len(server.completions()) == 3
        assert [r.fault for r in server.completions()] == [fault.kind, fault.kind, None]


def test_timeout_is_retried() -> None:
    with OpenAICompatServer(replies=["late", "on time"], faults=[Fault.slow(3.0)]) as server:
        start = time.monotonic()
        out = fast_model(server, timeout=0.4).generate_sync("q")
        assert time.monotonic() - start < 2.5
        assert len(server.completions()) == 2
        assert out.text in {"late", "on time"}


@pytest.mark.parametrize("status", [400, 401, 403, 404])
def test_non_retryable_status_fails_fast(status: int) -> None:
    with OpenAICompatServer(faults=[Fault.status_code(status)] * 5) as server:
        with pytest.raises(ModelError) as info:
            fast_model(server).generate_sync("q")
        assert info.value.status == status
        assert info.value.attempts == 1
        assert f"HTTP {status}" in str(info.value)
        assert len(server.completions()) == 1


def test_insufficient_quota_is_never_retried() -> None:
    with OpenAICompatServer(faults=[Fault.quota()] * 3) as server:
        with pytest.raises(ModelError) as info:
            fast_model(server).generate_sync("q")
        assert info.value.status == 429
        assert "quota" in str(info.value)
        assert len(server.completions()) == 1


def test_retries_give_up_after_max_attempts() -> None:
    with OpenAICompatServer(faults=[Fault.status_code(500)] * 10) as server:
        with pytest.raises(ModelError) as info:
            fast_model(server, max_attempts=3).generate_sync("q")
        assert info.value.attempts == 3
        assert info.value.retryable
        assert len(server.completions()) == 3


@pytest.mark.parametrize("header", ["seconds", "ms"])
def test_retry_after_is_honoured(header: str) -> None:
    fault = Fault.rate_limit(0.6) if header == "seconds" else Fault.rate_limit(None, ms=600)
    with OpenAICompatServer(faults=[fault]) as server:
        fast_model(server).generate_sync("q")
        first, second = server.completions()
        # the jittered backoff alone would wait at most 0.05 s
        assert second.time - first.time >= 0.55


def test_truncated_reply_is_a_completion_with_length_finish() -> None:
    with OpenAICompatServer(replies=["one two three four"], faults=[Fault.truncate()]) as server:
        out = fast_model(server).generate_sync("q")
        assert out.finish_reason == "length"
        assert out.text == "one two t"
        assert len(server.completions()) == 1


def test_usage_and_settings_are_sent() -> None:
    with OpenAICompatServer(replies=["a b c"]) as server:
        model = fast_model(server)
        out = model.generate_sync(
            [{"role": "system", "content": ""}, {"role": "user", "content": "x y"}]
        )
        body = server.completions()[0].body
        assert body is not None
        assert body["temperature"] == 0 and body["max_tokens"] == 250 and body["seed"] == 5
        assert body["messages"][0] == {"role": "system", "content": ""}
        assert out.usage.prompt_tokens == 2 and out.usage.completion_tokens == 3
        assert model.usage.calls == 1 and model.usage.completion_tokens == 3


def test_concurrency_is_bounded_per_model() -> None:
    with OpenAICompatServer(latency=0.1) as server:
        model = fast_model(server, max_concurrency=3)

        async def many() -> None:
            await asyncio.gather(*(model.generate(f"q{i}") for i in range(12)))

        asyncio.run(many())
        assert len(server.completions()) == 12
        assert server.max_in_flight == 3


def test_empty_reply_is_a_model_error() -> None:
    with OpenAICompatServer(replies=[""]) as server:
        with pytest.raises(ModelError, match="empty completion"):
            fast_model(server).generate_sync("q")


class Verdict(BaseModel):
    answer: str
    score: int


def test_structured_output_sends_schema_and_parses() -> None:
    with OpenAICompatServer(replies=['```json\n{"answer": "yes", "score": 3}\n```']) as server:
        out = fast_model(server).generate_sync("q", response_schema=Verdict)
        assert isinstance(out.parsed, Verdict) and out.parsed.score == 3
        body = server.completions()[0].body
        assert body is not None and body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["schema"]["required"] == ["answer", "score"]


@pytest.mark.parametrize("status", [True, 500])
def test_structured_output_falls_back_when_server_rejects_schema(status: bool | int) -> None:
    schema = {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
    with OpenAICompatServer(
        replies=['Sure. {"label": "SUPPORTS"} Done.'], reject_response_format=status
    ) as server:
        model = fast_model(server)
        out = model.generate_sync("q", response_schema=schema)
        assert out.parsed == {"label": "SUPPORTS"}
        reqs = server.completions()
        assert "response_format" in (reqs[0].body or {})
        assert "response_format" not in (reqs[1].body or {})
        assert model.provider.supports_schema is False


def test_structured_output_reasks_once_with_the_error() -> None:
    schema = {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
    with OpenAICompatServer(replies=['{"lab": 1}', '{"label": "X"}']) as server:
        out = fast_model(server).generate_sync("q", response_schema=schema)
        assert out.parsed == {"label": "X"}
        reqs = server.completions()
        assert len(reqs) == 2
        last = (reqs[1].body or {})["messages"]
        assert last[-2] == {"role": "assistant", "content": '{"lab": 1}'}
        assert "missing required key 'label'" in last[-1]["content"]
        assert out.usage.calls == 2


def test_structured_output_records_parse_failure_with_raw_text() -> None:
    schema = {"type": "object", "required": ["label"]}
    with OpenAICompatServer(replies=["no json here", '{"label": "A"']) as server:
        out = fast_model(server).generate_sync("q", response_schema=schema)
        assert out.parsed is None
        assert out.parse_error is not None and "truncated" in out.parse_error
        assert out.text == '{"label": "A"'
        assert len(server.completions()) == 2


def test_generate_sync_works_inside_a_running_event_loop() -> None:
    with OpenAICompatServer(replies=["inside"]) as server:
        model = fast_model(server)

        async def notebook_cell() -> str:
            return model.generate_sync("q").text  # as a user would in Jupyter

        assert asyncio.run(notebook_cell()) == "inside"


def test_scripted_provider_records_requests_and_raises_scripted_errors() -> None:
    from conflicteval.models import ProviderError

    model = get_model(
        "scripted", replies=["first", ProviderError("boom", status=400)], backoff_initial=0.01
    )
    assert model.generate_sync("a").text == "first"
    with pytest.raises(ModelError, match="boom"):
        model.generate_sync("b")
    assert [r.messages[-1]["content"] for r in model.provider.requests] == ["a", "b"]  # type: ignore[attr-defined]
    mapped = get_model("scripted", replies={"hi": "hello"}, default="?")
    assert mapped.generate_sync("hi").text == "hello"
    assert mapped.generate_sync("other").text == "?"
    fn = get_model("scripted", replies=lambda msgs: msgs[-1]["content"].upper())
    assert fn.generate_sync("abc").text == "ABC"


def test_get_model_rejects_unknown_provider_and_options() -> None:
    with pytest.raises(ValueError, match="unknown model provider"):
        get_model("nope/x")
    with pytest.raises(ValueError, match="unknown option"):
        get_model("openai/x", colour="blue", cache=False)


def test_json_object_schema_format_for_llama_cpp_servers() -> None:
    schema = {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
    with OpenAICompatServer(replies=['{"label": "A"}']) as server:
        out = fast_model(server, schema_format="json_object").generate_sync(
            "q", response_schema=schema
        )
        assert out.parsed == {"label": "A"}
        body = server.completions()[0].body
        assert body is not None
        assert body["response_format"] == {"type": "json_object", "schema": schema}
    with pytest.raises(ValueError, match="schema_format"):
        get_model("openai/x", schema_format="xml", cache=False)


def test_max_retry_time_bounds_the_retrying() -> None:
    with OpenAICompatServer(faults=[Fault.status_code(500)] * 50) as server:
        model = fast_model(
            server, max_attempts=50, max_retry_time=0.5, backoff_initial=0.1, backoff_max=0.1
        )
        start = time.monotonic()
        with pytest.raises(ModelError) as info:
            model.generate_sync("q")
        assert time.monotonic() - start < 2.0
        assert 2 <= info.value.attempts < 50
        assert len(server.completions()) == info.value.attempts


def test_aclose_closes_the_client_of_the_loop() -> None:
    with OpenAICompatServer(replies=["x"]) as server:
        model = fast_model(server)

        async def once() -> str:
            try:
                return (await model.generate("q")).text
            finally:
                await model.aclose()

        assert asyncio.run(once()) == "x"
        assert asyncio.run(once()) == "x"
        assert len(model.provider._clients) == 0  # type: ignore[attr-defined]
