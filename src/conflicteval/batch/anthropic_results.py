"""The envelope of one Message Batches result line (Anthropic's batch API).

A result line::

    {"custom_id": "<cache key>", "result": {"type": "succeeded", "message": {...a Message...}}}
    {"custom_id": "...", "result": {"type": "errored", "error": {"type": "error",
                                    "error": {"type": "invalid_request_error", "message": "..."}}}}
    {"custom_id": "...", "result": {"type": "canceled"}}
    {"custom_id": "...", "result": {"type": "expired"}}

A succeeded line's message is read by the batch importer with the online provider's
reader (:func:`conflicteval.models.anthropic_wire.read_message_json`), so a replayed
reply is the value an online call would have stored; this module reads only the
envelope. The other three are failures: not cached, asked for again by the next export.
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_message_batch_result", "message_of_result"]


def is_message_batch_result(row: dict[str, Any]) -> bool:
    """Whether a result line has the Message Batches shape (``result``, no ``response``)."""
    return "result" in row and "response" not in row


def _error_text(error: Any) -> str:
    inner = error.get("error", error) if isinstance(error, dict) else error
    if isinstance(inner, dict):
        kind = inner.get("type") or "error"
        return f"{kind}: {inner.get('message') or ''}".rstrip(": ")
    return str(inner)


def message_of_result(result: Any) -> tuple[Any, str | None]:
    """``(message, None)`` of a succeeded result, or ``(None, reason)`` of any other.

    Only the envelope: the message itself is read by
    :func:`~conflicteval.models.anthropic_wire.read_message_json`, the online reader.
    """
    if not isinstance(result, dict):
        return None, "malformed result: not an object"
    kind = result.get("type")
    if kind == "errored":
        return None, f"errored: {_error_text(result.get('error'))}"
    if kind in ("canceled", "expired"):
        return None, f"{kind}: the batch ended before this request ran"
    if kind != "succeeded":
        return None, f"malformed result: unknown result type {str(kind)[:20]!r}"
    message = result.get("message")
    if not isinstance(message, dict):
        return None, "malformed response: the message is not an object"
    return message, None
