"""The bodies the ``anthropic/`` provider sends are the bodies the official anthropic SDK sends.

The SDK is no dependency of the library: this test skips without it. Both talk to
the same rule-enforcing test server; the server's log holds the bytes each sent.

The SDK from 2.0 speaks API version 2026-10-21, which removed ``temperature``,
``top_p`` and ``top_k`` (its ``create`` refuses them as arguments). The provider
keeps 2023-06-01 by default (the protocols decode at temperature 0), so the SDK is
asked for that version, with the sampling settings as ``extra_body`` as its
migration guide says; with ``api_version="2026-10-21"`` the provider's body is the
SDK's default body.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from pydantic import BaseModel

from conflicteval import get_model
from conflicteval.models.anthropic_wire import tool_name
from conflicteval.models.schemas import class_schema
from conflicteval.testing.anthropic_server import AnthropicServer

anthropic = pytest.importorskip("anthropic", reason="the anthropic SDK (test-only check)")

KEY = "sk-ant-test-0123456789"


class Labels(BaseModel):
    labels: list[str]


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("plain", {"messages": "Capital of France?"}, {}),
    (
        "system and turns",
        {
            "messages": [
                {"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": "Q1"},
                {"role": "assistant", "content": "A1"},
                {"role": "user", "content": "Q2 ünïcode"},
            ],
            "max_tokens": 32,
        },
        {},
    ),
    ("structured", {"messages": "Label these.", "response_schema": Labels}, {}),
    ("extra", {"messages": "Stop early.", "stop": ["\n"], "top_k": 5}, {}),
]


def _sdk_kwargs(call: dict[str, Any], sampling: bool = True) -> dict[str, Any]:
    """The same call as keyword arguments of ``client.messages.create``."""
    messages = call["messages"]
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    system = [m["content"] for m in messages if m["role"] == "system"]
    kwargs: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": call.get("max_tokens", 250),
        "messages": [m for m in messages if m["role"] != "system"],
    }
    extra: dict[str, Any] = {"temperature": 0.0} if sampling else {}
    if system:
        kwargs["system"] = "\n\n".join(system)
    schema = call.get("response_schema")
    if schema is not None:
        name = tool_name(schema.__name__)
        kwargs["tools"] = [
            {
                "name": name,
                "description": "Record the answer in the requested format.",
                "input_schema": class_schema(schema),
            }
        ]
        kwargs["tool_choice"] = {"type": "tool", "name": name}
    if "stop" in call:
        kwargs["stop_sequences"] = call["stop"]
    if "top_k" in call and sampling:
        extra["top_k"] = call["top_k"]
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


@pytest.mark.parametrize("version", ["2023-06-01", "2026-10-21"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_provider_sends_the_sdks_body(
    case: tuple[str, dict[str, Any], dict[str, Any]], version: str
) -> None:
    _, call, _ = case
    reply = json.dumps({"labels": ["a"]}) if "response_schema" in call else "ok"
    with AnthropicServer([reply], api_key=KEY) as srv:
        model = get_model(
            "anthropic/claude-sonnet-4-5",
            base_url=srv.base_url,
            api_key=KEY,
            cache=False,
            api_version=version,
        )
        settings = {k: v for k, v in call.items() if k != "messages"}
        ours = model.generate_sync(call["messages"], **settings)
        client = anthropic.Anthropic(
            api_key=KEY,
            base_url=srv.base_url.removesuffix("/v1"),
            max_retries=0,
            default_headers={"anthropic-version": version},
        )
        with warnings.catch_warnings():  # the SDK warns of the model's retirement date
            warnings.simplefilter("ignore", DeprecationWarning)
            theirs = client.messages.create(**_sdk_kwargs(call, sampling=version < "2026-10-21"))
        mine, sdk = srv.messages()
        assert not srv.refused()  # each version's rules: 2026-10-21 refuses temperature
    assert json.loads(mine.raw) == json.loads(sdk.raw)
    assert ("temperature" in json.loads(mine.raw)) == (version == "2023-06-01")
    for header in ("anthropic-version", "content-type"):
        assert mine.headers[header] == sdk.headers[header]
    # and the SDK reads the reply as the provider does
    block = theirs.content[0]
    text = json.dumps(block.input) if block.type == "tool_use" else block.text
    assert (
        json.loads(text) == json.loads(ours.text) if block.type == "tool_use" else text == ours.text
    )
