"""The ``scripted`` provider: a test double registered like any other provider.

It replies from a list (in order), from a mapping of prompt → reply, or from a
callable, and records every request it saw. A reply that is an exception
instance is raised, so failures can be scripted too. Token usage is an
estimate (characters / 4), marked as such in the docs.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from conflicteval.models.base import ProviderError, ProviderRequest, ProviderResponse
from conflicteval.types import Message

Reply = str | ProviderResponse | BaseException
ReplySource = Sequence[Reply] | Mapping[str, Reply] | Callable[[list[Message]], Any]


def estimate_tokens(text: str) -> int:
    """A rough token estimate: one token per four characters (at least one)."""
    return max(1, (len(text) + 3) // 4) if text else 0


class ScriptedProvider:
    """Replies from a script; records requests in :attr:`requests`.

    Args:
        replies: A list (replies in order; running out is an error), a mapping
            from the last user message's content to a reply, or a callable
            taking the messages and returning a reply (may be async).
        default: For a mapping, the reply when the prompt is not found (else
            a non-retryable error).
        model: The model name to report.
        supports_schema: Whether the double claims to honour response_format.
    """

    name = "scripted"

    def __init__(
        self,
        replies: ReplySource | None = None,
        *,
        default: Reply | None = None,
        model: str = "scripted",
        supports_schema: bool = False,
    ) -> None:
        self.model = model
        self.base_url = "scripted://"
        self.supports_schema = supports_schema
        self._replies: ReplySource = replies if replies is not None else []
        self._default = default
        self._index = 0
        self._lock = threading.Lock()
        self.requests: list[ProviderRequest] = []

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]  # a copy in another process replies and records on its own
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    async def _next(self, request: ProviderRequest) -> Any:
        source = self._replies
        if callable(source) and not isinstance(source, (Mapping, Sequence)):
            reply = source(request.messages)
            if inspect.isawaitable(reply):
                reply = await reply
            return reply
        if isinstance(source, Mapping):
            prompt = request.messages[-1]["content"] if request.messages else ""
            if prompt in source:
                return source[prompt]
            if self._default is not None:
                return self._default
            raise ProviderError("scripted: no reply for this prompt", retryable=False)
        with self._lock:
            if self._index >= len(source):
                raise ProviderError("scripted: ran out of replies", retryable=False)
            reply = source[self._index]
            self._index += 1
        return reply

    async def complete(self, request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        """Record the request and return the scripted reply."""
        self.requests.append(request)
        reply = await self._next(request)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, ProviderResponse):
            return reply
        text = str(reply)
        prompt = "".join(m.get("content", "") for m in request.messages)
        return ProviderResponse(
            text=text,
            finish_reason="stop",
            prompt_tokens=estimate_tokens(prompt),
            completion_tokens=estimate_tokens(text),
        )
