"""``anthropic/<model>``: the Messages API as it is, against the rule-enforcing test server."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from conflicteval import get_model
from conflicteval.errors import ModelError, PendingCall, UsageError
from conflicteval.models.answerers import Count, Export, answer_with
from conflicteval.models.anthropic_wire import read_message_json
from conflicteval.models.base import ProviderError
from conflicteval.testing.anthropic_server import AnthropicServer
from conflicteval.testing.faults import Fault

KEY = "sk-ant-test-0123456789"


class Verdict(BaseModel):
    answer: str


def _model(srv: AnthropicServer, **options: Any) -> Any:
    options.setdefault("cache", False)
    options.setdefault("backoff_initial", 0.001)
    return get_model("anthropic/claude-sonnet-4-5", base_url=srv.base_url, api_key=KEY, **options)


def test_a_call_carries_the_headers_and_the_system_prompt_at_the_top() -> None:
    with AnthropicServer(["Paris"], api_key=KEY) as srv:
        out = _model(srv).generate_sync(
            [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital?"}]
        )
        (req,) = srv.messages()
    assert out.text == "Paris" and out.finish_reason == "stop"
    assert req.headers["x-api-key"] == KEY and req.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req.headers
    assert req.body == {
        "max_tokens": 250,
        "messages": [{"role": "user", "content": "Capital?"}],
        "model": "claude-sonnet-4-5",
        "system": "Be brief.",
        "temperature": 0.0,
    }  # no seed: the Messages API has none (the server refuses unknown fields)
    assert out.usage.prompt_tokens == 3 and out.usage.completion_tokens == 1


def test_max_tokens_is_always_sent() -> None:
    with AnthropicServer(["x"], api_key=KEY) as srv:
        _model(srv).generate_sync("hi", max_tokens=None)
        assert srv.messages()[0].body["max_tokens"] == 4096
        assert not srv.refused()


def test_structured_output_goes_through_a_forced_tool() -> None:
    with AnthropicServer([json.dumps({"answer": "SUPPORTS"})], api_key=KEY) as srv:
        out = _model(srv).generate_sync("label", response_schema=Verdict)
        body = srv.messages()[0].body
    assert out.parsed == Verdict(answer="SUPPORTS")
    assert body["tool_choice"] == {"type": "tool", "name": "Verdict"}
    assert body["tools"][0]["input_schema"]["properties"]["answer"]["type"] == "string"
    assert "response_format" not in body


def test_an_unreadable_structured_reply_is_reasked_once_then_a_parse_error() -> None:
    # the server sends a reply that is no JSON object as text: the same rules as the OpenAI path
    with AnthropicServer(["not json", "still not"], api_key=KEY) as srv:
        out = _model(srv).generate_sync("label", response_schema=Verdict)
        bodies = [r.body for r in srv.messages()]
    assert out.parsed is None and out.parse_error and "after one re-ask" in out.parse_error
    assert len(bodies) == 2 and bodies[1]["messages"][1] == {
        "role": "assistant",
        "content": "not json",
    }


def test_a_reply_cut_by_max_tokens_is_truncated_and_not_cached(tmp_path: Path) -> None:
    with AnthropicServer(["a long reply here"], api_key=KEY, faults=[Fault.truncate()]) as srv:
        model = _model(srv, cache=tmp_path)
        out = model.generate_sync("q")
        assert out.truncated and out.finish_reason == "length"
        assert not model.is_cached("q")


@pytest.mark.parametrize("fault", [Fault.rate_limit(0.01), Fault.status_code(529)])
def test_429_and_529_are_retried(fault: Fault) -> None:
    with AnthropicServer(["ok"], api_key=KEY, faults=[fault, None]) as srv:
        assert _model(srv).generate_sync("q").text == "ok"
        assert [r.status for r in srv.messages()] == [fault.status, 200]


def test_retry_after_is_honoured() -> None:
    with AnthropicServer(["ok"], api_key=KEY, faults=[Fault.rate_limit(7)]) as srv:
        model = _model(srv, max_attempts=1)
        with pytest.raises(ModelError) as info:
            model.generate_sync("q")
    assert info.value.status == 429 and info.value.retryable
    # the provider's error carries the server's wait (the wrapper waits that long)
    from conflicteval.models.anthropic_provider import read_reply

    with pytest.raises(ProviderError) as err:
        read_reply(
            429, b'{"type":"error","error":{"type":"rate_limit_error"}}', {"retry-after": "7"}, None
        )
    assert err.value.retry_after == 7.0


@pytest.mark.parametrize("status", [400, 403, 404])
def test_client_errors_are_not_retried(status: int) -> None:
    with AnthropicServer(["ok"], api_key=KEY, faults=[Fault.status_code(status)] * 3) as srv:
        with pytest.raises(ModelError):
            _model(srv).generate_sync("q")
        assert len(srv.messages()) == 1


def test_a_wrong_key_is_401_fatal_and_named() -> None:
    with AnthropicServer(["ok"], api_key=KEY) as srv:
        model = get_model(
            "anthropic/claude-sonnet-4-5",
            base_url=srv.base_url,
            api_key="wrong-key-123",
            cache=False,
        )
        with pytest.raises(ModelError) as info:
            model.generate_sync("q")
        assert len(srv.requests) == 1
    assert info.value.fatal and "authentication_error: invalid x-api-key" in str(info.value)
    assert "wrong-key-123" not in str(info.value)


def test_usage_counts_cache_tokens_as_prompt_and_maps_stop_reasons() -> None:
    reply = read_message_json(
        {
            "content": [{"type": "text", "text": "x"}],
            "stop_reason": "refusal",
            "usage": {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 3,
                      "cache_creation_input_tokens": 4},
        }
    )  # fmt: skip
    assert (reply.prompt_tokens, reply.completion_tokens) == (12, 2)
    assert reply.finish_reason == "content_filter"
    with pytest.raises(ProviderError, match="2 tool_use blocks"):
        read_message_json({"content": [{"type": "tool_use", "input": {}}] * 2})


def test_requests_the_messages_api_cannot_carry_are_refused_before_sending() -> None:
    with AnthropicServer(["ok"], api_key=KEY) as srv:
        model = _model(srv)
        late_system = [{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]
        with pytest.raises(ModelError, match="system message after the conversation"):
            model.generate_sync(late_system)
        with pytest.raises(ModelError, match="must be an object"):
            model.generate_sync("q", response_schema={"type": "array", "items": {}})
        assert srv.requests == []


def test_dry_run_and_export_count_and_write_message_batches_lines(tmp_path: Path) -> None:
    model = get_model("anthropic/claude-haiku-4-5", cache=tmp_path)  # no key needed: nothing sent
    with answer_with(Count()) as count:
        with pytest.raises(PendingCall):
            model.generate_sync("q")
    assert count.report().calls == 1
    with answer_with(Export()) as export:
        with pytest.raises(PendingCall):
            model.generate_sync("q", response_schema=Verdict)
    (req,) = export.requests.values()
    line = req.to_line()
    assert set(line) == {"custom_id", "params"} and len(line["custom_id"]) == 64
    assert line["params"]["model"] == "claude-haiku-4-5" and "tools" in line["params"]


def test_the_key_from_the_environment_is_not_pickled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env-key-999")
    model = get_model("anthropic/claude-sonnet-4-5", cache=False)
    data = pickle.dumps(model)
    assert b"sk-ant-env-key-999" not in data
    assert pickle.loads(data).provider._api_key == "sk-ant-env-key-999"


def test_no_key_for_anthropics_own_api_is_refused_before_any_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from argparse import Namespace

    from conflicteval.cli.common import model_from_args

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    with pytest.raises(UsageError, match="ANTHROPIC_API_KEY"):
        model_from_args(Namespace(model="anthropic/claude-sonnet-4-5"))


def test_the_cache_key_names_the_provider() -> None:
    a = get_model("anthropic/m", base_url="http://127.0.0.1:9/v1", cache=False)
    o = get_model("openai/m", base_url="http://127.0.0.1:9/v1", cache=False)
    assert a.cache_key("q") != o.cache_key("q")


def test_the_api_version_enters_the_cache_key_only_when_not_the_default() -> None:
    url = "http://127.0.0.1:9/v1"
    default = get_model("anthropic/m", base_url=url, cache=False)
    pinned = get_model("anthropic/m", base_url=url, cache=False, api_version="2023-06-01")
    newer = get_model("anthropic/m", base_url=url, cache=False, api_version="2026-10-21")
    assert default.cache_key("q") == pinned.cache_key("q") != newer.cache_key("q")
    schema_key = default.cache_key("q", response_schema=Verdict)
    assert schema_key != newer.cache_key("q", response_schema=Verdict)
