"""Reading one chat-completion body: the text, the finish reason and the usage counts.

One rule for every path that reads such a body (the lean transport, the SDK's reply, a batch
result line): a malformed body or an impossible count (``1e400``, ``-5``) is a retryable
:class:`~conflicteval.models.base.ProviderError`, never negative usage.
"""

from __future__ import annotations

import json
from typing import Any

from conflicteval.cache_values import token_count
from conflicteval.models.base import ProviderError, ProviderResponse

__all__ = ["read_completion", "reasoning_count", "usage_counts"]


def _content_text(content: Any) -> str:
    """The reply text; some servers send a list of parts (``[{"type": "text", "text": …}]``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                if part.get("type", "text") == "text" and isinstance(part.get("text"), str):
                    parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "".join(parts)
    raise TypeError(f"message content of type {type(content).__name__}")


def read_completion(content: bytes) -> ProviderResponse:
    """A chat completion body read into a ProviderResponse; ProviderError when malformed."""
    try:
        data = json.loads(content)
    except (ValueError, RecursionError) as exc:  # RecursionError: arrays nested 10**5 deep
        raise ProviderError(
            f"malformed response: {type(exc).__name__}: {str(exc)[:200]}", retryable=True
        ) from None
    try:
        choice = data["choices"][0]
        message = choice["message"]
        text = _content_text(message.get("content"))
        finish = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ProviderError("malformed response: no choices", retryable=True) from None
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        usage = {}
    prompt_tokens, completion_tokens = usage_counts(usage)
    reasoning = reasoning_count(usage)
    return ProviderResponse(
        text=text,
        finish_reason=finish if isinstance(finish, str) else None,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=reasoning,
    )


def reasoning_count(usage: Any) -> int:
    """A reasoning model's hidden reasoning tokens (``completion_tokens_details``; absent: 0).

    Raises:
        ProviderError: A count that is no whole number from 0 to 10**12.
    """
    details = getattr(usage, "get", lambda _n: None)("completion_tokens_details")
    raw = details.get("reasoning_tokens") if isinstance(details, dict) else None
    if raw is None:
        return 0
    count = token_count(raw)
    if count is None:
        raise ProviderError(
            "malformed response: usage.completion_tokens_details.reasoning_tokens is not a "
            f"token count ({str(raw)[:20]})",
            retryable=True,
        )
    return count


def usage_counts(usage: Any) -> tuple[int, int]:
    """``(prompt_tokens, completion_tokens)`` of a reply's usage (absent: 0).

    Raises:
        ProviderError: A count that is no whole number from 0 to 10**12 (``1e400``,
            ``-5``, ``"12"``): a malformed reply, retried as one; never negative usage.
    """
    counts = []
    for name in ("prompt_tokens", "completion_tokens"):
        raw = getattr(usage, "get", lambda _n: None)(name)
        count = token_count(raw)
        if count is None:
            raise ProviderError(
                f"malformed response: usage.{name} is not a token count ({str(raw)[:20]})",
                retryable=True,
            )
        counts.append(count)
    return counts[0], counts[1]
