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
        "timeout": 60.0,  # generous: only the tests of timeouts set a short one
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
    # The slow fault answers only after ten minutes, so the first attempt can only end by
    # its timeout; the timeout is generous enough for the plain retry on a loaded machine.
    with OpenAICompatServer(replies=["late", "on time"], faults=[Fault.slow(600.0)]) as server:
        out = fast_model(server, timeout=3.0).generate_sync("q")
        assert [r.fault for r in server.completions()] == ["slow", None]
        assert out.text in {"late", "on time"}


@pytest.mark.timeout(120)
def test_a_dripping_server_cannot_hold_an_attempt_past_its_timeout() -> None:
    # Headers at once, then one byte every 0.2 s: each read is well within the timeout,
    # so only a deadline on the whole attempt ends it (the body alone would take ~60 s).
    reply = "x" * 200
    with OpenAICompatServer(replies=[reply], faults=[Fault.drip(0.2)] * 2) as server:
        start = time.monotonic()
        with pytest.raises(ModelError) as info:
            fast_model(server, timeout=1.0, max_attempts=2).generate_sync("q")
        # one body alone drips for at least 40 s (a loaded machine only makes it slower):
        # ending sooner than that proves the attempts were cut, without timing them
        assert time.monotonic() - start < 40.0
        assert info.value.attempts == 2 and info.value.retryable
        assert "timed out after 1.0s" in str(info.value)
        assert [r.fault for r in server.completions()] == ["drip", "drip"]


@pytest.mark.timeout(120)
def test_an_endless_drip_is_retried_and_the_retry_succeeds() -> None:
    # The endless body never ends (and announces a length under the reply bound), so only
    # the attempt's timeout ends it; the timeout is generous for the plain retry under load.
    with OpenAICompatServer(replies=["fine"], faults=[Fault.drip(0.1, endless=True)]) as server:
        out = fast_model(server, timeout=3.0).generate_sync("q")
        assert out.text == "fine"
        assert [r.fault for r in server.completions()] == ["drip", None]


def test_a_finite_drip_within_the_timeout_is_a_normal_reply() -> None:
    with OpenAICompatServer(replies=["ok"], faults=[Fault.drip(0.002)]) as server:
        assert fast_model(server, timeout=120.0).generate_sync("q").text == "ok"
        assert len(server.completions()) == 1


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
    # 0.5 s per reply: time enough to send three calls however loaded the machine is
    with OpenAICompatServer(latency=0.5) as server:
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
    with OpenAICompatServer(faults=[Fault.status_code(500)] * 200) as server:
        # each wait is drawn from [0, 0.1] s (exponential jitter), so 199 waits add up to about
        # 10 s and below 2 s practically never (49 waits, as before, did in about 1 run in 100):
        # fewer than 200 attempts proves the 2 s limit; no duration is asserted
        model = fast_model(
            server, max_attempts=200, max_retry_time=2.0, backoff_initial=0.1, backoff_max=0.1
        )
        with pytest.raises(ModelError) as info:
            model.generate_sync("q")
        assert 2 <= info.value.attempts < 200
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


def test_extra_parameters_the_sdk_does_not_name_still_reach_the_server() -> None:
    # vLLM, llama.cpp and TGI take sampling parameters OpenAI has not (top_k, min_p, ...)
    with OpenAICompatServer(replies=["x"]) as server:
        out = fast_model(server).generate_sync("q", top_k=40, top_p=0.5)
        assert out.text == "x"
        body = server.completions()[0].body
        assert body is not None and body["top_k"] == 40 and body["top_p"] == 0.5


def test_a_call_argument_the_sdk_refuses_fails_at_once_and_is_not_retried() -> None:
    with OpenAICompatServer(replies=["x"]) as server:
        with pytest.raises(ModelError) as info:
            fast_model(server).generate_sync("q", timeout=3)  # clashes with the wrapper's own
        assert info.value.attempts == 1 and not info.value.retryable
        assert "malformed" not in str(info.value)
        assert server.completions() == []


def test_an_empty_reply_still_counts_its_call_and_tokens() -> None:
    with OpenAICompatServer(replies=[""]) as server:
        model = fast_model(server)
        with pytest.raises(ModelError, match="empty completion"):
            model.generate_sync("three word prompt")
        # the server answered (and bills) the call: its usage is not lost
        assert model.usage.calls == 1 and model.usage.prompt_tokens == 3


def test_models_used_from_many_event_loops_keep_no_dead_loop_alive(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import gc
    import os
    import weakref

    with OpenAICompatServer(replies=["x"]) as server:
        model = fast_model(server, max_concurrency=2)
        loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

        async def once() -> None:  # no aclose(): a caller who forgot it
            loops.append(weakref.ref(asyncio.get_running_loop()))
            await asyncio.gather(*(model.generate(f"q{i}") for i in range(4)))

        def open_fds() -> int:
            return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0

        asyncio.run(once())
        gc.collect()
        before = open_fds()
        for _ in range(30):
            asyncio.run(once())
        gc.collect()
        # at most the last loop is still referenced (until the next call on a new loop)
        assert sum(ref() is not None for ref in loops) <= 1
        # the connections of dead loops are not kept open: 30 runs x 2 clients x 2 ends
        assert open_fds() - before < 20
        # nor is their closing attempted on another (running) loop, which cannot work
        assert "Event loop is closed" not in caplog.text


@pytest.mark.parametrize("form", ["imf-fixdate", "asctime"])
def test_retry_after_http_dates_are_read_as_gmt(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from conflicteval.models.openai_provider import parse_retry_after

    if not hasattr(time, "tzset"):
        pytest.skip("needs time.tzset")
    monkeypatch.setenv("TZ", "America/New_York")  # a machine whose clock is not on UTC
    time.tzset()
    try:
        when = time.gmtime(time.time() + 30)
        pattern = "%a, %d %b %Y %H:%M:%S GMT" if form == "imf-fixdate" else "%a %b %e %H:%M:%S %Y"
        wait = parse_retry_after({"retry-after": time.strftime(pattern, when)})
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert wait is not None and 25 <= wait <= 31


def test_a_wait_that_would_end_past_max_retry_time_is_not_begun() -> None:
    # a Retry-After longer than the time left: give up now instead of sleeping past the limit
    with OpenAICompatServer(faults=[Fault.rate_limit(600.0)] * 3) as server:
        start = time.monotonic()
        with pytest.raises(ModelError) as info:
            fast_model(server, max_retry_time=1.0).generate_sync("q")
        assert time.monotonic() - start < 300  # the 600 s wait was not begun
        assert info.value.status == 429 and info.value.attempts == 1
        assert len(server.completions()) == 1


def test_the_test_server_listens_as_soon_as_a_restart_returns() -> None:
    import socket

    server = OpenAICompatServer().start()
    try:
        for _ in range(10):
            server.stop()
            server.start()
            socket.create_connection(("127.0.0.1", server.port), timeout=30).close()
    finally:
        server.stop()


def test_a_reply_function_that_raises_is_a_500_naming_the_error_not_a_dropped_connection() -> None:
    def broken(body: dict) -> str:
        return body["no such key"]

    with OpenAICompatServer(replies=broken) as server:
        with pytest.raises(ModelError) as info:
            fast_model(server, max_attempts=1).generate_sync("q")
        assert info.value.status == 500 and "KeyError" in str(info.value)
        assert [r.status for r in server.completions()] == [500]


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no message")


@pytest.mark.parametrize(
    "error",
    [_Unprintable(), pytest.fail.Exception("failed"), SystemExit(3), KeyboardInterrupt()],
    ids=["unprintable", "pytest-fail", "system-exit", "keyboard-interrupt"],
)
def test_whatever_a_reply_function_raises_is_a_500_and_the_server_goes_on(
    error: BaseException,
) -> None:
    # an exception whose str() fails, or a BaseException, once dropped the connection (or
    # ended the server's event loop, so that every later request was refused)
    def broken(body: dict) -> str:
        raise error

    with OpenAICompatServer(replies=broken) as server:
        with pytest.raises(ModelError) as info:
            fast_model(server, max_attempts=1).generate_sync("q")
        assert info.value.status == 500 and type(error).__name__ in str(info.value)
        server.set_replies(["fine"])
        assert fast_model(server, max_attempts=1).generate_sync("q").text == "fine"
        assert [r.status for r in server.completions()] == [500, 200]


def test_stopping_the_server_ends_a_connection_waiting_for_its_reply() -> None:
    import socket

    server = OpenAICompatServer(faults=[Fault.slow(600.0)]).start()
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=120)
        body = b'{"model": "test-model", "messages": [{"role": "user", "content": "q"}]}'
        head = f"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {len(body)}\r\n\r\n"
        sock.sendall(head.encode() + body)
        while not server.completions():  # the request is in (its slow fault waits 600 s)
            time.sleep(0.01)
    finally:
        server.stop()
    with sock:
        assert sock.recv(1) == b""  # closed by the stop, not left to the client's timeout


def test_content_as_a_list_of_parts_is_joined() -> None:
    from conflicteval.models.openai_provider import _content_text

    parts = [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Paris"}, " !"]
    assert _content_text(parts) == "Paris !"
    assert _content_text(None) == "" and _content_text("x") == "x"
    with pytest.raises(TypeError):
        _content_text(42)


def test_short_placeholder_keys_are_not_masked_in_messages() -> None:
    with OpenAICompatServer(faults=[Fault.status_code(404)]) as server:
        model = fast_model(server, api_key="error")  # the server's message says "error 404"
        with pytest.raises(ModelError) as info:
            model.generate_sync("q")
        assert "error 404" in str(info.value) and "***" not in str(info.value)
