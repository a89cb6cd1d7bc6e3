"""A model call as data: the exact request body a provider sends, under its cache key.

A :class:`CallRequest` is one call a workflow needs: the JSON body the online
path would send (the provider builds it with the same code it sends with) and
its cache key, which is also its ``custom_id`` in a batch file.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from conflicteval.errors import ConflictEvalError
from conflicteval.models.base import ProviderRequest, ProviderResponse

if TYPE_CHECKING:
    from conflicteval.models.core import Model

__all__ = ["CHAT_URL", "MESSAGES_URL", "Call", "CallRequest", "call_of", "call_request"]

CHAT_URL = "/v1/chat/completions"
MESSAGES_URL = "/v1/messages"
"""Anthropic's Messages endpoint: its requests are written as Message Batches lines."""


@dataclass(frozen=True)
class CallRequest:
    """One model call as data.

    Attributes:
        custom_id: The call's cache key (sha256 hex): where its answer is stored.
        model: The model's spec name (``openai/gpt-4o-mini``), the cache's model column.
        body: The chat completions request body, exactly as the online path sends it.
        url: The endpoint path of the request.
    """

    custom_id: str
    model: str
    body: dict[str, Any]
    url: str = CHAT_URL

    def to_line(self) -> dict[str, Any]:
        """The OpenAI Batch API (and ``vllm run-batch``) input line; for the Messages API,
        a Message Batches request (``custom_id`` and ``params``)."""
        if self.url == MESSAGES_URL:
            return {"custom_id": self.custom_id, "params": self.body}
        return {"custom_id": self.custom_id, "method": "POST", "url": self.url, "body": self.body}


def call_request(model: Model, key: str, request: ProviderRequest) -> CallRequest:
    """The :class:`CallRequest` of one call of ``model`` (built by its provider).

    Raises:
        ConflictEvalError: The provider cannot write its requests as data.
    """
    build = getattr(model.provider, "request_body", None)
    if build is None:
        raise ConflictEvalError(
            f"{model.name}: this provider cannot write batch requests "
            "(batch files are for 'openai/<model>' and 'anthropic/<model>')"
        )
    url = getattr(model.provider, "batch_url", CHAT_URL)  # Azure's lines: /chat/completions
    return CallRequest(custom_id=key, model=model.name, body=build(request), url=url)


@dataclass(frozen=True)
class Call:
    """One call as the active answerer sees it: what is asked, and how to send or write it.

    The answerer gets this, not the :class:`~conflicteval.models.core.Model`: it needs
    the model's name, the request and the two ways a call leaves the process.

    Attributes:
        model: The model's spec name (``openai/gpt-4o-mini``).
        backend_model: The model's name at its backend (a dry run picks its tokenizer by it).
        key: The call's cache key (None: the model has no cache).
        request: What the provider is asked.
        send: Sends ``request`` online, with the model's retries and concurrency limit.
        line: The call's batch request line, built by its provider (raises
            :class:`~conflicteval.errors.ConflictEvalError` when the provider cannot).
    """

    model: str
    backend_model: str
    key: str | None
    request: ProviderRequest
    send: Callable[[ProviderRequest], Awaitable[ProviderResponse]]
    line: Callable[[], CallRequest]


def call_of(model: Model, key: str | None, request: ProviderRequest) -> Call:
    """The :class:`Call` of one call of ``model``."""
    line = partial(call_request, model, key or "-", request)
    return Call(model.name, model.provider.model, key, request, model._call, line)
