"""Reading one chat-completion body: the text, the finish reason and the usage counts.

:func:`completion_from_body` is the one reader of a chat-completion body, whichever way it
came: the lean transport's reply (:func:`read_completion`, the bytes), the openai SDK's
reply (its parsed object as a dict) and the ``body`` of a Batch API result line (batch
import adds only the line's envelope: ``custom_id``, ``status_code``, ``error`` and the
served model's check). A body it cannot read unambiguously is a retryable
:class:`~conflicteval.models.base.ProviderError` naming what is wrong, never a guess.

The rule for usage, the same on every path: a body must carry ``usage`` with
``prompt_tokens`` and ``completion_tokens``, each a whole number from 0 to 10**12
(:func:`~conflicteval.cache_values.token_count`). A reply without them is refused, online
as in a batch import: read as 0 tokens it would be a call counted as free, and the run's
token and cost lines (and, once cached, every replay's) would be silently short. Every
server the library is tested against (OpenAI, Azure, vLLM, llama.cpp, the test server)
sends usage on a non-streamed completion. ``completion_tokens_details.reasoning_tokens``
is optional (absent: 0), and checked when present.
"""

from __future__ import annotations

import json
from typing import Any

from conflicteval.cache_values import token_count
from conflicteval.models.base import ProviderError, ProviderResponse, malformed_response

__all__ = [
    "completion_from_body",
    "read_completion",
    "reasoning_count",
    "usage_counts",
]


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


def completion_from_body(data: Any) -> ProviderResponse:
    """A chat-completion body (parsed JSON) read into a ProviderResponse.

    The text is the first choice's message content (a string, or the text parts of a
    list; none: the empty text, which the caller refuses as an empty completion); the
    finish reason a string or null; the usage as the module's rule says.

    Raises:
        ProviderError: Retryable, ``malformed response: ...``: no choices, content that
            is no text, a finish reason that is no string, no usage or a count that is
            no token count (``1e400``, ``-5``, ``true``, ``"12"``, null).
    """
    try:
        choice = data["choices"][0]
        content = choice["message"].get("content")
        finish = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise malformed_response("no choices") from None
    try:
        text = _content_text(content)
    except TypeError as exc:
        raise malformed_response(str(exc)) from None
    if finish is not None and not isinstance(finish, str):
        raise malformed_response(f"finish_reason is not a string ({str(finish)[:20]})")
    usage = data.get("usage")
    prompt_tokens, completion_tokens = usage_counts(usage)
    return ProviderResponse(
        text=text,
        finish_reason=finish,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        reasoning_tokens=reasoning_count(usage),
    )


def read_completion(content: bytes) -> ProviderResponse:
    """A chat completion body's bytes read into a ProviderResponse (see completion_from_body).

    Raises:
        ProviderError: Retryable: the bytes are no JSON, or the body is malformed.
    """
    try:
        data = json.loads(content)
    except (ValueError, RecursionError) as exc:  # RecursionError: arrays nested 10**5 deep
        raise malformed_response(f"{type(exc).__name__}: {str(exc)[:200]}") from None
    return completion_from_body(data)


def reasoning_count(usage: Any) -> int:
    """A reasoning model's hidden reasoning tokens (``completion_tokens_details``; absent: 0).

    Raises:
        ProviderError: A count that is no whole number from 0 to 10**12.
    """
    details = usage.get("completion_tokens_details") if isinstance(usage, dict) else None
    raw = details.get("reasoning_tokens") if isinstance(details, dict) else None
    if raw is None:
        return 0
    count = token_count(raw)
    if count is None:
        raise malformed_response(
            "usage.completion_tokens_details.reasoning_tokens is not a token count "
            f"({str(raw)[:20]})"
        )
    return count


def usage_counts(usage: Any) -> tuple[int, int]:
    """``(prompt_tokens, completion_tokens)`` of a reply's ``usage`` (required: see the module).

    Raises:
        ProviderError: No usage object, a count missing or null, or a count that is no
            whole number from 0 to 10**12 (``1e400``, ``-5``, ``"12"``): a malformed reply,
            retried as one; never a call counted as free, never negative usage.
    """
    if usage is None:
        raise malformed_response("no usage (token counts)")
    if not isinstance(usage, dict):
        raise malformed_response("usage is not an object")
    raw = usage.get("prompt_tokens")
    prompt = token_count(raw) if raw is not None else None
    if prompt is None:
        raise _count_error(usage, "prompt_tokens")
    raw = usage.get("completion_tokens")
    completion = token_count(raw) if raw is not None else None
    if completion is None:
        raise _count_error(usage, "completion_tokens")
    return prompt, completion


def _count_error(usage: dict[str, Any], name: str) -> ProviderError:
    if usage.get(name) is None:
        return malformed_response(f"no usage.{name}")
    return malformed_response(f"usage.{name} is not a token count ({str(usage[name])[:20]})")
