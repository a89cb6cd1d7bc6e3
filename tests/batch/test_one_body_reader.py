"""One verdict per chat-completion body, online and in batch import.

The same hostile bodies are answered by the real local test server (online, through
both transports) and written as the body of a Batch API result line (imported): each
body gets the same verdict on every path, and an accepted body the same reply.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.export import batch_export
from conflicteval.batch.files import import_results, read_requests
from conflicteval.cache import ResponseCache
from conflicteval.errors import ModelError, PendingCall
from conflicteval.models import get_model
from conflicteval.testing import Fault, OpenAICompatServer

USAGE = '"usage": {"prompt_tokens": 3, "completion_tokens": 2}'


def _body(content: str = '"Paris"', finish: str = '"stop"', usage: str = USAGE) -> str:
    message = f'{{"role": "assistant", "content": {content}}}'
    choice = f'{{"index": 0, "message": {message}, "finish_reason": {finish}}}'
    return f'{{"object": "chat.completion", "model": "test-model", "choices": [{choice}], {usage}}}'


def _usage(prompt: str, completion: str = "2", extra: str = "") -> str:
    return f'"usage": {{"prompt_tokens": {prompt}, "completion_tokens": {completion}{extra}}}'


# body -> the verdict every path must give: ("ok", text, finish, prompt, completion,
# reasoning) or ("refused", the reason's words)
BODIES: dict[str, tuple[str, tuple[Any, ...]]] = {
    "good": (_body(), ("ok", "Paris", "stop", 3, 2, 0)),
    "content as text parts": (
        _body('[{"type": "text", "text": "Pa"}, "ris"]'),
        ("ok", "Paris", "stop", 3, 2, 0),
    ),
    "counts written as floats": (
        _body(usage=_usage("3.0", "2.0")),
        ("ok", "Paris", "stop", 3, 2, 0),
    ),
    "reasoning tokens": (
        _body(usage=_usage("3", "2", ', "completion_tokens_details": {"reasoning_tokens": 1}')),
        ("ok", "Paris", "stop", 3, 2, 1),
    ),
    "prompt_tokens 1e400": (_body(usage=_usage("1e400")), ("refused", "usage.prompt_tokens")),
    "prompt_tokens -5": (_body(usage=_usage("-5")), ("refused", "usage.prompt_tokens")),
    "prompt_tokens 10**13": (_body(usage=_usage("1" + "0" * 13)), ("refused", "prompt_tokens")),
    "completion_tokens true": (_body(usage=_usage("3", "true")), ("refused", "completion_tokens")),
    'completion_tokens "12"': (_body(usage=_usage("3", '"12"')), ("refused", "completion_tokens")),
    "prompt_tokens null": (_body(usage=_usage("null")), ("refused", "no usage.prompt_tokens")),
    "no prompt_tokens": (
        _body(usage='"usage": {"completion_tokens": 2}'),
        ("refused", "no usage.prompt_tokens"),
    ),
    "no usage": (_body(usage='"id": "x"'), ("refused", "no usage")),
    "usage null": (_body(usage='"usage": null'), ("refused", "no usage")),
    "usage a list": (_body(usage='"usage": [1, 2]'), ("refused", "usage is not an object")),
    "reasoning_tokens 1e400": (
        _body(usage=_usage("3", "2", ', "completion_tokens_details": {"reasoning_tokens": 1e400}')),
        ("refused", "reasoning_tokens"),
    ),
    "no choices": ('{"object": "chat.completion", ' + USAGE + "}", ("refused", "no choices")),
    "empty choices": ('{"choices": [], ' + USAGE + "}", ("refused", "no choices")),
    "a choice without message": ('{"choices": [{}], ' + USAGE + "}", ("refused", "no choices")),
    "body a list": ("[1, 2]", ("refused", "no choices")),
    "content a number": (_body("5"), ("refused", "content of type int")),
    "content an object": (_body('{"text": "Paris"}'), ("refused", "content of type dict")),
    "tool calls only": (
        _body("null", '"tool_calls"').replace(
            '"content": null', '"content": null, "tool_calls": [{"id": "c", "type": "function"}]'
        ),
        ("refused", "empty completion"),
    ),
    "finish_reason an object": (_body(finish='{"why": "x"}'), ("refused", "finish_reason")),
}


def _online(srv: OpenAICompatServer, transport: str) -> tuple[Any, ...]:
    model = get_model(
        "openai/test-model",
        base_url=srv.base_url,
        api_key="k",
        cache=False,
        transport=transport,
        max_attempts=2,
        backoff_initial=0.01,
        backoff_max=0.02,
    )
    try:
        out = model.generate_sync("q")
    except ModelError as exc:
        return ("refused", str(exc))
    u = out.usage
    return ("ok", out.text, out.finish_reason, u.prompt_tokens, u.completion_tokens,
            u.reasoning_tokens)  # fmt: skip


def _imported(srv: OpenAICompatServer, body: str, tmp_path: Path) -> tuple[Any, ...]:
    model = get_model("openai/test-model", base_url=srv.base_url, api_key="k", cache=tmp_path)
    req = tmp_path / "req.jsonl"
    with batch_export(req), pytest.raises(PendingCall):
        model.generate_sync("q")
    (line,) = read_requests(req)
    cid = json.dumps(line["custom_id"])
    out = tmp_path / "out.jsonl"
    out.write_text(
        f'{{"custom_id": {cid}, "response": {{"status_code": 200, "body": {body}}}, '
        '"error": null}\n'
    )
    cache = ResponseCache(tmp_path / "imported")
    report = import_results([out], cache, [req])
    if report.imported != 1:
        assert report.n_failed == 1, report.summary()
        return ("refused", report.summary())
    v = cache.get(line["custom_id"])
    assert v is not None
    return ("ok", v["text"], v["finish_reason"], v["prompt_tokens"], v["completion_tokens"],
            v.get("reasoning_tokens", 0))  # fmt: skip


@pytest.mark.parametrize("name", list(BODIES))
def test_a_body_gets_the_same_verdict_online_and_in_batch_import(name: str, tmp_path: Path) -> None:
    body, expected = BODIES[name]
    with OpenAICompatServer(faults=lambda n, b: Fault.raw(body.encode())) as srv:
        verdicts = {t: _online(srv, t) for t in ("http", "sdk")}
        verdicts["batch"] = _imported(srv, body, tmp_path)
    for path, verdict in verdicts.items():
        if expected[0] == "ok":
            assert verdict == expected, (path, verdict)
        else:
            assert verdict[0] == "refused" and expected[1] in verdict[1], (path, verdict)
