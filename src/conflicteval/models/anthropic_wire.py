"""Anthropic's Messages API as data: the request body of a call, and a reply read back.

Shared by the online provider (:mod:`conflicteval.models.anthropic_provider`) and the
batch layer (Message Batches request lines and result files), so one call is one
body whichever way it travels, and one reply is one cache value whichever way it came.

The mapping, one place for every decoding setting:

* system messages at the start of the conversation become the top-level ``system``
  field (joined by a blank line); a system message later in the conversation has no
  place in the Messages API and is refused;
* ``max_tokens`` is required by the API: the protocol's value is sent, and
  :data:`DEFAULT_MAX_TOKENS` when a protocol leaves it unset (None);
* ``temperature`` is sent as given (the API takes 0 to 1) under the default API version
  2023-06-01; API version 2026-10-21 refuses it, so it is not sent there (see
  :data:`API_VERSION`);
* ``seed`` is not sent: the Messages API has no seed (the setting still enters the
  cache key, like every setting);
* a response schema is sent as one forced tool (``tools`` with the schema as its
  ``input_schema``, ``tool_choice {"type": "tool", "name": ...}``); the tool call's
  ``input`` is the reply, as JSON text, read by the same parser (and re-ask) as any
  JSON reply;
* further request parameters (``top_p``, ``top_k``, ``stop_sequences``, ``metadata``)
  go into the body as given; ``stop`` (the OpenAI name) is sent as ``stop_sequences``.

A reply's ``stop_reason`` is mapped to the library's finish reasons
(:data:`STOP_REASONS`): ``max_tokens`` becomes ``length`` (cut off: never cached
online, no re-ask of a cut-off structured reply), ``refusal`` becomes
``content_filter``; ``end_turn``, ``stop_sequence`` and ``tool_use`` become ``stop``.
Usage (required, as for a chat completion: a reply without it would be a call counted
as free): ``input_tokens`` plus the cache read and cache creation input tokens are the
prompt tokens (the library sends no ``cache_control``, so these are 0 unless a
caller asks for prompt caching; they are then priced at the input price),
``output_tokens`` the completion tokens.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from conflicteval.cache_values import token_count
from conflicteval.models.base import (
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    malformed_response,
)
from conflicteval.models.call import MESSAGES_URL

__all__ = [
    "API_VERSION",
    "BATCHES_URL",
    "DEFAULT_MAX_TOKENS",
    "MESSAGES_URL",
    "STOP_REASONS",
    "message_body",
    "read_message",
    "read_message_json",
]

API_VERSION = "2023-06-01"
"""The ``anthropic-version`` header sent by default.

API version 2026-10-21 (the default of the anthropic SDK from 2.0) removed ``temperature``,
``top_p`` and ``top_k``: a request carrying any of them is refused. The protocols this
library reproduces decode at temperature 0, so it keeps 2023-06-01, where Claude 4.x
models take it. With ``api_version="2026-10-21"`` no sampling setting is sent (the
provider says so once per run)."""

SAMPLING_REMOVED_IN = "2026-10-21"
"""The API version from which ``temperature``, ``top_p`` and ``top_k`` are refused."""


BATCHES_URL = "/v1/messages/batches"
"""The Message Batches endpoint's path."""

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` sent when a call leaves it unset: the Messages API requires one."""

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}
"""The Messages API's ``stop_reason`` as the library's finish reason (others kept as they are)."""

_TOOL_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def tool_name(schema_name: str) -> str:
    """The forced tool's name for a schema (the API takes ``[a-zA-Z0-9_-]{1,64}``)."""
    return (_TOOL_NAME.sub("_", schema_name) or "response")[:64]


def _system_and_turns(messages: list[Any]) -> tuple[str | None, list[dict[str, Any]]]:
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "system":
            if turns:
                raise ProviderError(
                    f"invalid request: message {i} is a system message after the conversation "
                    "began; the Messages API takes a system prompt only at the start"
                )
            system.append(str(message.get("content", "")))
        elif role in ("user", "assistant"):
            turns.append({"role": role, "content": message.get("content", "")})
        else:
            raise ProviderError(
                f"invalid request: message {i} has role {role!r}; the Messages API takes "
                "user and assistant messages (and a system prompt)"
            )
    return ("\n\n".join(system) if system else None), turns


def message_body(
    model: str, request: ProviderRequest, api_version: str = API_VERSION
) -> dict[str, Any]:
    """The Messages API body of ``request`` (online, and a batch line's ``params``).

    From API version :data:`SAMPLING_REMOVED_IN` on, ``temperature`` (and ``top_p`` /
    ``top_k`` given as extra parameters) are left out: that version refuses them.

    Raises:
        ProviderError: A request the Messages API cannot carry (a system message
            after the first turn, another role, a schema that is not an object);
            not retryable.
    """
    system, turns = _system_and_turns(list(request.messages))
    body: dict[str, Any] = {
        "max_tokens": request.max_tokens if request.max_tokens is not None else DEFAULT_MAX_TOKENS,
        "messages": turns,
        "model": model,
    }
    if system is not None:
        body["system"] = system
    sampling = api_version < SAMPLING_REMOVED_IN
    if request.temperature is not None and sampling:
        body["temperature"] = request.temperature
    if request.response_schema is not None:
        schema = request.response_schema
        if schema.get("type", "object") != "object":
            raise ProviderError(
                "invalid request: the Messages API returns structured output through a tool, "
                f"whose input schema must be an object, not {schema.get('type')!r}"
            )
        name = tool_name(request.schema_name)
        body["tool_choice"] = {"type": "tool", "name": name}
        body["tools"] = [
            {
                "name": name,
                "description": "Record the answer in the requested format.",
                "input_schema": schema,
            }
        ]
    for key, value in request.extra.items():
        if sampling or key not in ("top_p", "top_k"):
            body["stop_sequences" if key == "stop" else key] = value
    return body


def _count(usage: Mapping[str, Any], name: str, *, required: bool = True) -> int:
    raw = usage.get(name)
    if raw is None:
        if required:
            raise malformed_response(f"no usage.{name}")
        return 0
    count = token_count(raw)
    if count is None:
        raise malformed_response(f"usage.{name} is not a token count ({str(raw)[:20]})")
    return count


def read_message_json(data: Any) -> ProviderResponse:
    """A Messages API reply (parsed JSON) as a ProviderResponse: the one reader of a Message.

    Online replies (:func:`read_message`) and the ``message`` of a succeeded Message
    Batches result line are read by it; the batch layer adds only the line's envelope.
    The text is the text blocks joined; a reply with one ``tool_use`` block (the forced
    tool of a structured call) has that tool's ``input`` as its text, as compact JSON.
    Usage follows the chat-completion reader's rule
    (:mod:`conflicteval.models.completion_body`): ``input_tokens`` and ``output_tokens``
    are required, each a whole number from 0 to 10**12; the cache input counts may be
    absent (0).

    Raises:
        ProviderError: Retryable, ``malformed response: ...`` naming what is wrong.
    """
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        raise malformed_response("no content blocks")
    texts: list[str] = []
    tool_inputs: list[Any] = []
    for block in data["content"]:
        if not isinstance(block, dict):
            raise malformed_response("a content block is not an object")
        kind = block.get("type")
        if kind == "text":
            if not isinstance(block.get("text"), str):
                raise malformed_response("a text block without text")
            texts.append(block["text"])
        elif kind == "tool_use":
            tool_inputs.append(block.get("input"))
    if len(tool_inputs) > 1:
        raise malformed_response(f"{len(tool_inputs)} tool_use blocks where one was asked for")
    if tool_inputs:
        if not isinstance(tool_inputs[0], dict):
            raise malformed_response("the tool_use block's input is not an object")
        text = json.dumps(tool_inputs[0], ensure_ascii=False)
    else:
        text = "".join(texts)
    stop = data.get("stop_reason")
    if stop is not None and not isinstance(stop, str):
        raise malformed_response(f"stop_reason is not a string ({str(stop)[:20]})")
    usage = data.get("usage")
    if usage is None:  # read as 0 tokens, the call would be counted as free
        raise malformed_response("no usage (token counts)")
    if not isinstance(usage, dict):
        raise malformed_response("usage is not an object")
    prompt = (
        _count(usage, "input_tokens")
        + _count(usage, "cache_creation_input_tokens", required=False)
        + _count(usage, "cache_read_input_tokens", required=False)
    )
    return ProviderResponse(
        text=text,
        finish_reason=STOP_REASONS.get(stop, stop) if stop is not None else None,
        prompt_tokens=prompt,
        completion_tokens=_count(usage, "output_tokens"),
    )


def read_message(content: bytes) -> ProviderResponse:
    """A Messages API reply body read into a ProviderResponse; ProviderError when malformed."""
    try:
        data = json.loads(content)
    except (ValueError, RecursionError) as exc:
        raise malformed_response(f"{type(exc).__name__}: {str(exc)[:200]}") from None
    return read_message_json(data)
