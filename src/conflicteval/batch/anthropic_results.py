"""Reading one Message Batches result line (Anthropic's batch API) into a cache value.

A result line::

    {"custom_id": "<cache key>", "result": {"type": "succeeded", "message": {...a Message...}}}
    {"custom_id": "...", "result": {"type": "errored", "error": {"type": "error",
                                    "error": {"type": "invalid_request_error", "message": "..."}}}}
    {"custom_id": "...", "result": {"type": "canceled"}}
    {"custom_id": "...", "result": {"type": "expired"}}

A succeeded message is read exactly as the online provider reads a reply
(:func:`conflicteval.models.anthropic_wire.read_message_json`), so a replayed reply
is the value an online call would have stored. The other three are failures: not
cached, asked for again by the next export.
"""

from __future__ import annotations

from typing import Any

from conflicteval.models.anthropic_wire import read_message_json

__all__ = ["is_message_batch_result", "read_message_batch_result"]


def is_message_batch_result(row: dict[str, Any]) -> bool:
    """Whether a result line has the Message Batches shape (``result``, no ``response``)."""
    return "result" in row and "response" not in row


def _error_text(error: Any) -> str:
    inner = error.get("error", error) if isinstance(error, dict) else error
    if isinstance(inner, dict):
        kind = inner.get("type") or "error"
        return f"{kind}: {inner.get('message') or ''}".rstrip(": ")
    return str(inner)


def read_message_batch_result(
    result: Any,
) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """``(cache value, None, served model)`` of a succeeded result, or ``(None, reason, None)``."""
    if not isinstance(result, dict):
        return None, "malformed result: not an object", None
    kind = result.get("type")
    if kind == "errored":
        return None, f"errored: {_error_text(result.get('error'))}", None
    if kind in ("canceled", "expired"):
        return None, f"{kind}: the batch ended before this request ran", None
    if kind != "succeeded":
        return None, f"malformed result: unknown result type {str(kind)[:20]!r}", None
    message = result.get("message")
    try:
        reply = read_message_json(message)
    except (ValueError, TypeError) as exc:
        return None, f"malformed response: {exc}", None
    if not reply.text.strip():
        return None, f"empty completion (finish_reason={reply.finish_reason})", None
    served = message.get("model") if isinstance(message, dict) else None
    value = {
        "text": reply.text,
        "finish_reason": reply.finish_reason,
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
    }
    return value, None, served if isinstance(served, str) else None
