"""The lean transport's HTTP clients and the openai SDK against llama-cpp-python's server.

The same calls go through the built-in HTTP/1.1 client (the default), httpx and the
SDK; each must end alike: the same text, usage and finish reason, or the same error
(status, wording, attempts). Among the calls are the server's own faults: a 500 naming
``response_format`` (the OpenAI schema form it refuses), a 500 for a body it cannot
validate (it does not answer 422), a 404 for a wrong path, and a reply cut off by ``max_tokens``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from conflicteval import ModelError, get_model

if TYPE_CHECKING:  # the fixture's type; conftest is not importable under --import-mode=importlib
    from tests.integration.conftest import LlamaServer

pytestmark = pytest.mark.integration

CLIENTS: dict[str, dict[str, Any]] = {
    "builtin": {"transport": "http", "http_client": "builtin"},
    "httpx": {"transport": "http", "http_client": "httpx"},
    "sdk": {"transport": "sdk"},
}
SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}

CALLS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "plain": ({}, {"max_tokens": 12}),
    "cut-off": ({}, {"max_tokens": 2}),
    "json_object schema": ({"schema_format": "json_object"}, {"response_schema": SCHEMA}),
    "json_schema refused with 500": ({}, {"response_schema": SCHEMA, "max_tokens": 8}),
    "500 for a body it cannot validate": ({}, {"temperature": "hot"}),
    "404 wrong path": ({"base_url_suffix": "/nowhere"}, {}),
}


def _outcome(server: LlamaServer, client: str, name: str) -> dict[str, Any]:
    model_options, settings = CALLS[name]
    model_options = dict(model_options)
    base_url = server.base_url + model_options.pop("base_url_suffix", "")
    model = get_model(
        f"openai/{server.model_alias}",
        base_url=base_url,
        cache=False,
        timeout=60.0,
        max_attempts=1,
        **model_options,
        **CLIENTS[client],
    )
    try:
        out = model.generate_sync("Say something.", **{"temperature": 0.0, "seed": 5, **settings})
        return {"text": out.text, "finish": out.finish_reason, "usage": out.usage}
    except ModelError as exc:
        return {"error": str(exc), "status": exc.status, "attempts": exc.attempts}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_client_ends_each_call_alike(llama_server: LlamaServer, name: str) -> None:
    outcomes = {client: _outcome(llama_server, client, name) for client in CLIENTS}
    assert outcomes["builtin"] == outcomes["sdk"], outcomes
    assert outcomes["httpx"] == outcomes["sdk"], outcomes


def test_the_calls_above_are_the_faults_they_name(llama_server: LlamaServer) -> None:
    seen = {name: _outcome(llama_server, "builtin", name) for name in CALLS}
    assert seen["plain"]["usage"].completion_tokens > 0
    assert seen["cut-off"]["finish"] == "length"
    assert seen["500 for a body it cannot validate"]["status"] == 500
    assert "validation error" in seen["500 for a body it cannot validate"]["error"]
    assert seen["404 wrong path"]["status"] == 404
