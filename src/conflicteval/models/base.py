"""The provider protocol: what a model backend must translate.

A provider turns one :class:`ProviderRequest` into one :class:`ProviderResponse`
or raises :class:`ProviderError`. It never retries, caches, or limits
concurrency: the core :class:`~conflicteval.models.core.Model` wrapper does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from conflicteval.types import DEFAULT_DECODING, Message


@dataclass
class ProviderRequest:
    """One chat completion request, as the core wrapper hands it to a provider."""

    messages: list[Message]
    temperature: float | None = DEFAULT_DECODING.temperature
    max_tokens: int | None = DEFAULT_DECODING.max_tokens
    seed: int | None = DEFAULT_DECODING.seed
    response_schema: dict[str, Any] | None = None
    schema_name: str = "response"
    extra: dict[str, Any] = field(default_factory=dict)
    token_field: str = "max_tokens"
    """The request field of the output limit (``max_completion_tokens`` for reasoning models,
    see :mod:`conflicteval.models.decoding`)."""
    reasoning_effort: str | None = None


@dataclass
class ProviderResponse:
    """What a provider returns for one successful request."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    """The share of ``completion_tokens`` spent on hidden reasoning (billed as output)."""


class ProviderError(Exception):
    """A failed request, classified for the retry policy.

    Attributes:
        status: HTTP status, when there was one.
        retryable: Whether retrying may help (408/409/429/5xx, connection
            errors, timeouts, malformed bodies).
        retry_after: Seconds the server asked us to wait (Retry-After), if any.
        schema_rejected: The server refused the ``response_format`` parameter.
        fatal: Every call would fail alike (no API key): stop the batch.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        schema_rejected: bool = False,
        fatal: bool = False,
    ) -> None:
        super().__init__(message)
        self.fatal = fatal
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.schema_rejected = schema_rejected


def malformed_response(why: str) -> ProviderError:
    """The error of a reply that cannot be read unambiguously: ``malformed response: <why>``,
    retryable (the next reply may be well formed)."""
    return ProviderError(f"malformed response: {why}", retryable=True)


RETRYABLE_STATUS = frozenset({408, 409, 429})


def status_is_retryable(status: int) -> bool:
    """408, 409, 429 and every 5xx are worth retrying; other 4xx are not."""
    return status in RETRYABLE_STATUS or status >= 500


@runtime_checkable
class Provider(Protocol):
    """A model backend. Implementations only translate requests.

    Attributes:
        name: Provider name, e.g. ``"openai"`` (part of the cache key).
        model: Model name sent to the backend.
        base_url: Endpoint identity for the cache key and concurrency limit.
        supports_schema: Whether ``response_format`` JSON schemas may be sent.
    """

    name: str
    model: str
    base_url: str
    supports_schema: bool

    async def complete(self, request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        """Perform one request, raising ProviderError on failure."""
        ...
