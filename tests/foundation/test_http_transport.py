"""The lean HTTP transport against the openai SDK path, through the real local test server.

Both transports of the ``openai/<model>`` provider must send the same request
bytes and end every fault the server can produce with the same outcome.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from conflicteval import ModelError, get_model
from conflicteval.models.http_transport import error_message, read_completion
from conflicteval.testing import Fault, OpenAICompatServer

TRANSPORTS = ("http", "sdk")


def model_on(server: OpenAICompatServer, transport: str, **options: Any):
    opts: dict[str, Any] = {
        "base_url": server.base_url,
        "api_key": "test-key",
        "cache": False,
        "backoff_initial": 0.01,
        "backoff_max": 0.02,
        "timeout": 60.0,  # generous: only the tests of timeouts set a short one
        "transport": transport,
    }
    opts.update(options)
    return get_model("openai/test-model", **opts)


class Verdict(BaseModel):
    answer: str
    score: int


CALLS: list[tuple[Any, dict[str, Any], dict[str, Any]]] = [
    ("plain prompt", {}, {}),
    ('ünïcödé — 東京 "quotes" \\ back\nslash', {}, {}),
    (
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "q"}],
        {"temperature": 0.7, "max_tokens": 12, "seed": None},
        {},
    ),
    ("defaults off", {"temperature": None, "max_tokens": None, "seed": None}, {}),
    ("a schema class", {"response_schema": Verdict}, {}),
    (
        "a schema dict",
        {"response_schema": {"type": "object", "properties": {"x": {"type": "number"}}}},
        {},
    ),
    ("json_object form", {"response_schema": Verdict}, {"schema_format": "json_object"}),
    ("known extras", {"top_p": 0.5, "stop": ["\n\n"], "user": "u1", "n": 1}, {}),
    ("unknown extras", {"top_k": 40, "min_p": 0.05, "repetition_penalty": 1.1}, {}),
    (
        "extra_body and both kinds",
        {"extra_body": {"a": 1, "top_k": 3}, "top_k": 7, "presence_penalty": 0.1},
        {},
    ),
]


@pytest.mark.parametrize("index", range(len(CALLS)))
def test_both_transports_send_byte_identical_bodies(index: int, http_client: str) -> None:
    messages, settings, model_options = CALLS[index]
    bodies: dict[str, bytes] = {}
    for transport in TRANSPORTS:
        reply = '{"answer": "yes", "score": 1, "x": 1}'
        with OpenAICompatServer(replies=[reply]) as server:
            out = model_on(server, transport, **model_options).generate_sync(messages, **settings)
            assert out.text == reply
            (logged,) = server.completions()
            bodies[transport] = logged.raw
            assert logged.headers["authorization"] == "Bearer test-key"
            assert logged.headers["content-type"] == "application/json"
    assert bodies["http"] and bodies["http"] == bodies["sdk"]


def _outcome(transport: str, faults: list[Fault], **options: Any) -> dict[str, Any]:
    with OpenAICompatServer(replies=["one two three four"], faults=faults) as server:
        model = model_on(server, transport, **options)
        result: dict[str, Any]
        try:
            out = model.generate_sync("q")
            result = {"text": out.text, "finish": out.finish_reason, "usage": out.usage}
        except ModelError as exc:
            result = {
                "error": str(exc),
                "status": exc.status,
                "retryable": exc.retryable,
                "attempts": exc.attempts,
                "fatal": exc.fatal,
            }
        result["requests"] = [(r.fault, r.status) for r in server.completions()]
        result["failures"] = model.failures
        return result


FAULTS = {
    "408": [Fault.status_code(408)],
    "409": [Fault.status_code(409)],
    "500": [Fault.status_code(500)] * 2,
    "502": [Fault.status_code(502)],
    "503-for-good": [Fault.status_code(503)] * 5,
    "400": [Fault.status_code(400)],
    "401": [Fault.status_code(401)],
    "403": [Fault.status_code(403)],
    "404": [Fault.status_code(404)],
    "422": [Fault.status_code(422)],
    "rate-limit": [Fault.rate_limit(0.05)],
    "rate-limit-ms": [Fault.rate_limit(None, ms=50)],
    "quota": [Fault.quota()],
    "drop": [Fault.drop(), Fault.drop()],
    "malformed": [Fault.malformed()],
    "malformed-for-good": [Fault.malformed()] * 5,
    "truncate": [Fault.truncate()],
    "slow": [Fault.slow(600.0)],  # only a timeout can end it
    "drip-past-timeout": [Fault.drip(0.1)] * 3,
}


@pytest.fixture(params=["builtin", "httpx2", "httpx"])
def http_client(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The lean transport on its built-in HTTP/1.1 client (the default), httpx2 and httpx."""
    from conflicteval.models import http_transport

    if request.param == "httpx2":
        pytest.importorskip("httpx2", reason="httpx2 is the optional 'fast' extra")
    if request.param != "builtin":
        monkeypatch.setenv(http_transport.HTTP_CLIENT_ENV, request.param)
    yield request.param


def test_the_http_client_can_be_chosen(http_client: str) -> None:
    from conflicteval.models import http_transport

    with OpenAICompatServer(replies=["fine"]) as server:
        model = model_on(server, "http")
        assert model.generate_sync("q").text == "fine"
        assert http_transport.http_client_choice() == http_client
    if http_client != "builtin":
        assert http_transport.http_module().__name__ == http_client
    with OpenAICompatServer(replies=["fine"]) as server:  # the option wins over the variable
        model = model_on(server, "http", http_client="builtin")
        assert model.provider.http_client == "builtin"
        assert model.generate_sync("q").text == "fine"
    with pytest.raises(ValueError, match="http_client must be one of"):
        get_model("openai/m", base_url="http://127.0.0.1:9/v1", http_client="curl")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", sorted(FAULTS))
def test_both_transports_end_every_fault_alike(name: str, http_client: str) -> None:
    options: dict[str, Any] = {"max_attempts": 3}
    if name == "slow":
        # the slow attempt can only time out; the retry after it, a plain reply, must not,
        # however loaded the machine (with a tight timeout it sometimes did, and the two
        # transports then differed by one request)
        options["timeout"] = 5.0
    if name == "drip-past-timeout":
        # every attempt drips past it (about 300 bytes at 0.1 s each); the HTTP client's own
        # per-read limit (the same seconds) must never fire first: with 0.6 s a loaded
        # machine sometimes left a gap that long between two bytes, and the two transports
        # then ended the attempt differently
        options["timeout"] = 2.0
    http = _outcome("http", FAULTS[name], **options)
    sdk = _outcome("sdk", FAULTS[name], **options)
    assert http == sdk


@pytest.mark.parametrize("status", [True, 500])
def test_both_transports_fall_back_alike_when_the_schema_is_refused(status: bool | int) -> None:
    schema = {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}
    seen = {}
    for transport in TRANSPORTS:
        with OpenAICompatServer(
            replies=['{"label": "SUPPORTS"}'], reject_response_format=status
        ) as server:
            model = model_on(server, transport)
            out = model.generate_sync("q", response_schema=schema)
            seen[transport] = (out.parsed, [r.raw for r in server.completions()])
            assert model.provider.supports_schema is False
    assert seen["http"] == seen["sdk"]
    assert seen["http"][0] == {"label": "SUPPORTS"}


def test_retry_after_is_honoured_on_the_lean_transport() -> None:
    with OpenAICompatServer(faults=[Fault.rate_limit(0.5)]) as server:
        model_on(server, "http").generate_sync("q")
        first, second = server.completions()
        assert second.time - first.time >= 0.45  # the jittered backoff alone: at most 0.02 s


def test_an_unreachable_server_is_a_retryable_connection_error_on_both() -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    errors, messages = {}, {}
    for transport in TRANSPORTS:
        model = get_model(
            "openai/m",
            base_url=f"http://127.0.0.1:{port}/v1",
            api_key="k",
            cache=False,
            max_attempts=2,
            backoff_initial=0.01,
            backoff_max=0.01,
            transport=transport,
        )
        with pytest.raises(ModelError) as info:
            model.generate_sync("q")
        errors[transport] = (info.value.retryable, info.value.attempts, info.value.status)
        assert "connection error" in str(info.value)
        messages[transport] = str(info.value)
    # the same on both; an endpoint that never answered is not retried call by call: a
    # refused connection before any reply fails fast (see models/endpoint.py)
    assert errors["http"] == errors["sdk"] == (True, 1, None)
    assert messages["http"] == messages["sdk"]


def test_the_timeout_option_is_refused_at_once_on_the_lean_transport() -> None:
    with OpenAICompatServer(replies=["x"]) as server:
        with pytest.raises(ModelError) as info:
            model_on(server, "http").generate_sync("q", timeout=3)
        assert info.value.attempts == 1 and not info.value.retryable
        assert server.completions() == []


def test_reading_replies_straight_into_the_library_types() -> None:
    body = (
        b'{"choices": [{"message": {"content": [{"type": "text", "text": "Pa"}, "ris"]},'
        b' "finish_reason": "length"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2}}'
    )
    reply = read_completion(body)
    assert (reply.text, reply.finish_reason, reply.prompt_tokens, reply.completion_tokens) == (
        "Paris",
        "length",
        3,
        2,
    )
    for bad in (b"{", b"[]", b'{"choices": []}', b'{"choices": [{}]}', b"null"):
        with pytest.raises(Exception) as info:
            read_completion(bad)
        assert getattr(info.value, "retryable", False), bad
    assert error_message(503, b"")[0] == "Error code: 503"


def test_the_lean_transport_imports_no_openai_sdk() -> None:
    code = (
        "import sys\n"
        "from conflicteval import get_model\n"
        "from conflicteval.testing import OpenAICompatServer\n"
        "with OpenAICompatServer(replies=['fine']) as srv:\n"
        "    m = get_model('openai/m', base_url=srv.base_url, api_key='k', cache=False)\n"
        "    assert m.generate_sync('q').text == 'fine'\n"
        "print('openai' in sys.modules)\n"
    )
    start = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "False", (out.stdout, out.stderr, time.monotonic() - start)


def test_a_batch_export_imports_no_openai_sdk(tmp_path: Path) -> None:
    """The request lines are written without importing the SDK (about a second a process): its
    parameters are looked up only for a call with extra parameters."""
    items = tmp_path / "items.jsonl"
    row = {"id": "r1", "response": "The bridge opened in 1932.", "documents": ["It opened 1932."]}
    items.write_text(json.dumps(row) + "\n", encoding="utf-8")
    requests = tmp_path / "requests.jsonl"
    code = (
        "import sys\n"
        "from conflicteval.cli import main\n"
        f"argv = ['score', '--input', {str(items)!r}, '--out', {str(tmp_path / 'out')!r},\n"
        "        '--labeler', 'llm', '--model', 'openai/m', '--base-url',\n"
        f"        'http://127.0.0.1:9/v1', '--quiet', '--batch-export', {str(requests)!r}]\n"
        "assert main(argv) == 3\n"
        "print('openai' in sys.modules)\n"
    )
    env = {**os.environ, "OPENAI_API_KEY": "k"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False", out.stderr[-2000:]
    lines = requests.read_text(encoding="utf-8").splitlines()
    assert lines and json.loads(lines[0])["body"]["model"] == "m"


def test_the_body_order_rule_and_parameter_names_match_the_installed_sdk() -> None:
    """The pinned rule (head keys by release, then alphabetical) orders the installed SDK's own
    ``create`` keywords as its source writes them, and its parameter names are the signature's."""
    pytest.importorskip("openai")
    import inspect as _inspect

    from openai.resources.chat.completions import AsyncCompletions

    from conflicteval.models import http_transport as ht

    names = [n for n in _inspect.signature(AsyncCompletions.create).parameters if n != "self"]
    body = [n for n in names if n not in ht.SDK_CALL_OPTIONS]
    assert set(names) <= ht.known_parameters()
    # the source's body literal lists the same keys; the rule must give its order
    text = _inspect.getsource(AsyncCompletions.create)
    literal = text[text.index("async_maybe_transform(") :]
    written = [k for k in re.findall(r'"(\w+)"\s*:', literal) if k in body]
    assert written and sorted(written, key=ht._body_key) == written
