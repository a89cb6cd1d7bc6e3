"""What a stored reply must look like: checked when the cache writes and when it reads."""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_TOKENS_VALUE", "value_problem"]

MAX_TOKENS_VALUE = 10**12
"""The largest token count a stored value may carry (anything larger is damage)."""


def value_problem(value: Any) -> str | None:
    """Why ``value`` is not a storable reply, or None when it is one.

    A stored reply is an object with ``text`` (a string), ``finish_reason`` (a
    string or null) and ``prompt_tokens`` / ``completion_tokens`` (whole numbers
    from 0 to 10**12, when present). Anything else would fail its item on every
    replay, so it is never written and, when found, read as a miss.
    """
    if not isinstance(value, dict):
        return "not an object"
    if not isinstance(value.get("text"), str):
        return "text is not a string"
    finish = value.get("finish_reason")
    if finish is not None and not isinstance(finish, str):
        return f"finish_reason is not a string ({type(finish).__name__})"
    for name in ("prompt_tokens", "completion_tokens"):
        count = value.get(name, 0)
        if isinstance(count, bool) or not isinstance(count, int):
            return f"{name} is not a whole number ({str(count)[:20]})"
        if not 0 <= count <= MAX_TOKENS_VALUE:
            return f"{name} is out of range ({count})"
    return None
