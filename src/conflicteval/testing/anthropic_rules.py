"""What Anthropic's Messages API refuses, as the test server checks it.

Each check returns ``(status, error type, message)`` for a request the real API
would refuse, or None. The rules are those of the API reference: the ``x-api-key``
and ``anthropic-version`` headers; ``model``, ``messages`` and ``max_tokens``
required; no fields the API does not know (``seed``, ``response_format``,
``max_completion_tokens`` among them); only ``user`` and ``assistant`` roles in
``messages`` (the system prompt is the top-level ``system``); non-empty text;
``temperature`` from 0 to 1 (and, from API version 2026-10-21, no ``temperature``,
``top_p`` or ``top_k`` at all); a forced tool that is one of ``tools``, each tool with
a name and an object ``input_schema``; and, for Message Batches, ``custom_id`` of 1
to 64 letters, digits, ``_`` or ``-``, unique within a batch.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "API_VERSIONS",
    "MESSAGE_FIELDS",
    "Refusal",
    "check_batch_create",
    "check_headers",
    "check_message_body",
    "error_body",
]

Refusal = tuple[int, str, str]
"""An HTTP status, the API's error type and its message."""

API_VERSIONS = frozenset({"2023-01-01", "2023-06-01", "2026-10-21"})

SAMPLING = ("temperature", "top_p", "top_k")
"""Removed by API version 2026-10-21: a request sending any of them is refused (400)."""

MESSAGE_FIELDS = frozenset(
    {
        "model",
        "messages",
        "max_tokens",
        "system",
        "temperature",
        "top_p",
        "top_k",
        "stop_sequences",
        "stream",
        "metadata",
        "tools",
        "tool_choice",
        "thinking",
        "service_tier",
        "container",
        "mcp_servers",
        "context_management",
    }
)
"""The top-level fields of a Messages API request body."""

_CUSTOM_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def error_body(kind: str, message: str) -> dict[str, Any]:
    """The Messages API's error body."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def check_headers(headers: dict[str, str], api_key: str | None) -> Refusal | None:
    """The headers every request needs (lower-cased names).

    The key comes in ``x-api-key`` or, as the anthropic SDK from 2.0 sends it, as
    ``Authorization: Bearer``; with both, ``x-api-key`` counts (as the API does).
    """
    bearer = headers.get("authorization", "")
    key = headers.get("x-api-key") or (bearer[7:] if bearer.startswith("Bearer ") else "")
    if not key:
        return 401, "authentication_error", "x-api-key header is required"
    if api_key is not None and key != api_key:
        return 401, "authentication_error", "invalid x-api-key"
    version = headers.get("anthropic-version")
    if not version:
        return 400, "invalid_request_error", "anthropic-version: header is required"
    if version not in API_VERSIONS:
        return 400, "invalid_request_error", f"anthropic-version: invalid version {version!r}"
    return None


def _bad(message: str) -> Refusal:
    return 400, "invalid_request_error", message


def _check_content(content: Any, where: str) -> Refusal | None:
    if isinstance(content, str):
        return None if content.strip() else _bad(f"{where}: text content must be non-empty")
    if not isinstance(content, list) or not content:
        return _bad(f"{where}: content must be a string or a non-empty list of blocks")
    for k, block in enumerate(content):
        if not isinstance(block, dict) or "type" not in block:
            return _bad(f"{where}.{k}: a content block needs a type")
        if block["type"] == "text" and not str(block.get("text", "")).strip():
            return _bad(f"{where}.{k}: text content blocks must be non-empty")
    return None


def _check_tools(body: dict[str, Any]) -> Refusal | None:
    tools = body.get("tools")
    names: set[str] = set()
    if tools is not None:
        if not isinstance(tools, list):
            return _bad("tools: Input should be a valid list")
        for k, tool in enumerate(tools):
            if not isinstance(tool, dict) or not _TOOL_NAME.fullmatch(str(tool.get("name", ""))):
                return _bad(
                    f"tools.{k}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"
                )
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                return _bad(f"tools.{k}.input_schema: Input schema must be of type 'object'")
            names.add(tool["name"])
    choice = body.get("tool_choice")
    if choice is not None:
        if not isinstance(choice, dict) or choice.get("type") not in (
            "auto",
            "any",
            "tool",
            "none",
        ):
            return _bad("tool_choice: Input tag does not match any of the expected tags")
        if choice["type"] == "tool" and choice.get("name") not in names:
            return _bad(f"tool_choice: tool {choice.get('name')!r} is not one of tools")
    return None


def check_message_body(body: Any, version: str = "2023-06-01") -> Refusal | None:
    """A Messages API request body, checked as the API of ``version`` checks it."""
    if not isinstance(body, dict):
        return _bad("request body must be a JSON object")
    for name in sorted(body):
        if name not in MESSAGE_FIELDS or (version >= "2026-10-21" and name in SAMPLING):
            return _bad(f"{name}: Extra inputs are not permitted")
    for name in ("model", "messages", "max_tokens"):
        if name not in body:
            return _bad(f"{name}: Field required")
    if not isinstance(body["model"], str) or not body["model"]:
        return _bad("model: Input should be a valid string")
    max_tokens = body["max_tokens"]
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        return _bad("max_tokens: Input should be an integer greater than or equal to 1")
    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        return _bad("messages: at least one message is required")
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return _bad(f"messages.{i}: Input should be a valid dictionary")
        if message.get("role") not in ("user", "assistant"):
            return _bad(
                f"messages.{i}.role: Input should be 'user' or 'assistant' (the system prompt "
                "is the top-level system field)"
            )
        extra = set(message) - {"role", "content"}
        if extra:
            return _bad(f"messages.{i}.{sorted(extra)[0]}: Extra inputs are not permitted")
        refusal = _check_content(message.get("content"), f"messages.{i}.content")
        if refusal is not None:
            return refusal
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        return _bad("system: Input should be a valid string or list of text blocks")
    temperature = body.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float))
        or not 0 <= temperature <= 1
    ):
        return _bad("temperature: Input should be a number from 0 to 1")
    return _check_tools(body)


def check_batch_create(body: Any) -> Refusal | None:
    """A Message Batches creation body: ``requests``, each a ``custom_id`` and ``params``.

    The params themselves are checked when the batch is processed (the API reports
    an invalid one as that request's ``errored`` result).
    """
    if not isinstance(body, dict):
        return _bad("request body must be a JSON object")
    for name in sorted(body):
        if name != "requests":
            return _bad(f"{name}: Extra inputs are not permitted")
    requests = body.get("requests")
    if not isinstance(requests, list) or not requests:
        return _bad("requests: at least one request is required")
    seen: set[str] = set()
    for k, request in enumerate(requests):
        if not isinstance(request, dict):
            return _bad(f"requests.{k}: Input should be a valid dictionary")
        extra = set(request) - {"custom_id", "params"}
        if extra:
            return _bad(f"requests.{k}.{sorted(extra)[0]}: Extra inputs are not permitted")
        custom_id = request.get("custom_id")
        if not isinstance(custom_id, str) or not _CUSTOM_ID.fullmatch(custom_id):
            return _bad(f"requests.{k}.custom_id: String should match '^[a-zA-Z0-9_-]{{1,64}}$'")
        if custom_id in seen:
            return _bad(f"requests.{k}.custom_id: duplicate custom_id {custom_id!r}")
        seen.add(custom_id)
        if not isinstance(request.get("params"), dict):
            return _bad(f"requests.{k}.params: Field required")
    return None
