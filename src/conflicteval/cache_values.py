"""What a stored reply must look like: checked when the cache writes and when it reads."""

from __future__ import annotations

import math
from typing import Any

from conflicteval.types import Usage

__all__ = ["MAX_TOKENS_VALUE", "hit_usage", "stored_value", "token_count", "value_problem"]

MAX_TOKENS_VALUE = 10**12
"""The largest token count a stored value may carry (anything larger is damage)."""


def token_count(raw: Any) -> int | None:
    """A reply's usage count as an int (null: 0), or None when it is no count.

    A whole number from 0 to :data:`MAX_TOKENS_VALUE` (a float with no fraction, as some
    servers write it, is read as one); ``1e400`` (infinite once parsed), ``-5``, ``2.5``,
    ``true``, ``"12"`` or ``[]`` is no count. Online replies and batch result lines are
    read with this one rule.
    """
    if raw is None:
        return 0
    if isinstance(raw, bool):
        return None
    if isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, int) and 0 <= raw <= MAX_TOKENS_VALUE:
        return raw
    return None


def value_problem(value: Any) -> str | None:
    """Why ``value`` is not a storable reply, or None when it is one.

    A stored reply is an object with ``text`` (a string), ``finish_reason`` (a
    string or null) and ``prompt_tokens`` / ``completion_tokens`` /
    ``reasoning_tokens`` (whole numbers from 0 to 10**12, when present: the counts
    :func:`stored_value` writes and :func:`hit_usage` replays). Anything else would fail
    its item on every replay (or replay a count no reply had), so it is never written
    and, when found, read as a miss.
    """
    if not isinstance(value, dict):
        return "not an object"
    if not isinstance(value.get("text"), str):
        return "text is not a string"
    finish = value.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        return f"finish_reason is not a string ({type(finish).__name__})"
    for name in ("prompt_tokens", "completion_tokens", "reasoning_tokens"):
        count = value.get(name, 0)
        if isinstance(count, bool) or not isinstance(count, int):
            return f"{name} is not a whole number ({str(count)[:20]})"
        if not 0 <= count <= MAX_TOKENS_VALUE:
            return f"{name} is out of range ({count})"
    return None


def stored_value(reply: Any) -> dict[str, Any]:
    """What the cache keeps of a whole reply (text, finish reason, token counts)."""
    value = {
        "text": reply.text,
        "finish_reason": reply.finish_reason,
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
    }
    if reply.reasoning_tokens:
        value["reasoning_tokens"] = reply.reasoning_tokens
    return value


def hit_usage(hit: dict[str, Any], decoding: list[str]) -> Usage:
    """The usage of a reply replayed from the cache: one cached call, its tokens replayed
    (not sent)."""
    usage = Usage(
        prompt_tokens=int(hit.get("prompt_tokens", 0)),
        completion_tokens=int(hit.get("completion_tokens", 0)),
        calls=1,
        cached_calls=1,
        truncated=int(hit.get("finish_reason") == "length"),
        reasoning_tokens=int(hit.get("reasoning_tokens", 0)),
        decoding=decoding,
    )
    usage.cached_prompt_tokens = usage.prompt_tokens
    usage.cached_completion_tokens = usage.completion_tokens
    return usage
