"""The ``anthropic/<model>`` provider: Claude through Anthropic's own Messages API.

One JSON POST to ``<base URL>/messages`` per call, over the library's own HTTP
transport (:mod:`conflicteval.models.http_transport`; no SDK), with the
``x-api-key`` and ``anthropic-version`` headers. The body and the reading of the
reply live in :mod:`conflicteval.models.anthropic_wire` (shared with Message
Batches). Retries, the cache and the concurrency limit are the core wrapper's, as
for every provider: 429 and 529 (overloaded) and other 5xx are retried, honouring
``retry-after``; 400, 401, 403, 404 and 413 are not.
"""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any

from conflicteval.errors import UsageError
from conflicteval.models import http11, http_transport
from conflicteval.models.anthropic_wire import (
    API_VERSION,
    MESSAGES_URL,
    SAMPLING_REMOVED_IN,
    message_body,
    read_message,
)
from conflicteval.models.base import (
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    status_is_retryable,
)
from conflicteval.models.clients import ClientsPerLoop
from conflicteval.models.endpoint import base_url_problem
from conflicteval.models.http_transport import encode_body, parse_retry_after

log = logging.getLogger("conflicteval.models")

__all__ = ["DEFAULT_BASE_URL", "MISSING_KEY", "AnthropicProvider", "anthropic_headers"]

DEFAULT_BASE_URL = "https://api.anthropic.com/v1"
MISSING_KEY = (
    "no API key: set ANTHROPIC_API_KEY (or pass api_key=...) for Anthropic's API, or give a "
    "base URL (--base-url / base_url=... / ANTHROPIC_BASE_URL) for a proxy or test server"
)


def anthropic_headers(api_key: str, api_version: str = API_VERSION) -> dict[str, str]:
    """The headers of every Messages API request (the key goes in ``x-api-key``)."""
    from conflicteval._version import __version__

    return {
        "x-api-key": api_key,
        "anthropic-version": api_version,
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": "gzip, deflate",
        "User-Agent": f"conflicteval/{__version__}",
    }


class _Client(http_transport.LeanClient):
    """The lean transport's client with the Messages API's headers instead of a bearer token."""

    def __init__(self, api_key: str, http_client: str | None, api_version: str) -> None:
        super().__init__(api_key, None, http_client)
        self.headers = anthropic_headers(api_key, api_version)
        if self.pool is not None:  # the same bounds, other fixed headers
            self.pool = http11.Pool(
                self.headers,
                max_header_bytes=self.pool.max_header_bytes,
                max_body_bytes=self.pool.max_body_bytes,
            )


def read_reply(status: int, content: bytes, headers: Any, scrub: Any) -> ProviderResponse:
    """A Messages API reply, or the ProviderError of its error status.

    429, 529 (overloaded) and the other 5xx are retryable with the server's
    ``retry-after``; every other error status is not.
    """
    if 200 <= status < 300:
        return read_message(content)
    message = f"HTTP {status}: {_error_detail(content)}"
    if scrub is not None:
        message = scrub(message)
    retryable = status_is_retryable(status)
    raise ProviderError(
        message,
        status=status,
        retryable=retryable,
        retry_after=parse_retry_after(headers) if retryable else None,
    )


def _error_detail(content: bytes) -> str:
    """``<error type>: <message>`` of the API's error body (its text when it is not one)."""
    text = content.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text[:300] or "no error body"
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return f"{error.get('type') or 'error'}: {error.get('message') or ''}".rstrip(": ")
    return text[:300]


class AnthropicProvider(ClientsPerLoop):
    """Send Messages API requests to Anthropic (or a proxy or test server).

    Args:
        model: The model name, e.g. ``claude-sonnet-4-5``.
        base_url: API root; default ``$ANTHROPIC_BASE_URL`` or Anthropic's
            (``https://api.anthropic.com/v1``); requests go to ``<base_url>/messages``.
        api_key: Key; default ``$ANTHROPIC_API_KEY``. Never logged, cached or put in
            errors; a key from the environment is not pickled.
        http_client: The transport's HTTP client (see ``OpenAIProvider``).
        api_version: The ``anthropic-version`` header: ``2023-06-01`` (the default,
            which takes ``temperature``) or ``2026-10-21`` (which refuses it: no
            sampling setting is sent, and the run says so once).

    Structured output always goes through a forced tool (``supports_schema`` is
    True and stays so).
    """

    KEY_ENV = "ANTHROPIC_API_KEY"

    name = "anthropic"
    batch_url = MESSAGES_URL
    """Batch requests of this provider are Message Batches lines (see ``models.call``)."""
    missing_key = MISSING_KEY

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        http_client: str | None = None,
        api_version: str = API_VERSION,
    ) -> None:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", api_version):
            raise UsageError(
                f"api_version must be a date such as {API_VERSION}, not {api_version!r}"
            )
        self.api_version = api_version
        self._said_sampling = False
        self.model = model
        self.base_url = (
            base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        problem = base_url_problem(self.base_url)
        if problem is not None:
            given = "--base-url / base_url=..." if base_url else "$ANTHROPIC_BASE_URL"
            raise UsageError(f"base URL {self.base_url!r} ({given}): {problem}")
        self.has_key = bool(api_key or os.environ.get("ANTHROPIC_API_KEY"))
        self._key_from_env = not api_key
        self._api_key = api_key or os.environ.get("ANTHROPIC_API_KEY") or "no-key"
        self.supports_schema = True
        if http_client is not None:
            http_transport.http_client_choice(http_client)  # refused here, not call by call
        self.http_client = http_client
        self._init_clients()

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self._said_sampling = False

    @property
    def key_settings(self) -> dict[str, str] | None:
        """What enters the cache key beyond the call: a non-default API version (whose
        bodies differ: no temperature), so its replies never answer a default-version call."""
        return {"api_version": self.api_version} if self.api_version != API_VERSION else None

    @property
    def needs_key(self) -> bool:
        """True when this provider talks to Anthropic's own API and has no key."""
        return not self.has_key and self.base_url == DEFAULT_BASE_URL

    def _new_client(self) -> Any:
        return _Client(self._api_key, self.http_client, self.api_version)

    def request_body(self, request: ProviderRequest) -> dict[str, Any]:
        """The Messages API body of ``request`` (a Message Batches line's ``params``)."""
        if request.temperature is not None and self.api_version >= SAMPLING_REMOVED_IN:
            self._say_sampling_dropped(request.temperature)
        return message_body(self.model, request, self.api_version)

    def _say_sampling_dropped(self, temperature: float) -> None:
        if not self._said_sampling:
            self._said_sampling = True
            log.warning(
                "anthropic/%s: API version %s has no temperature: the protocol's temperature "
                "%g is not sent (the model's default sampling is used)",
                self.model,
                self.api_version,
                temperature,
            )

    async def complete(self, request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        """Send one Messages API request; classify any failure."""
        if self.needs_key:
            raise ProviderError(MISSING_KEY, fatal=True)
        try:
            body = encode_body(self.request_body(request))
        except (TypeError, ValueError) as exc:
            raise ProviderError(self._scrub(f"invalid request: {exc}")) from exc
        return await http_transport.post_completion(
            self._client(),
            f"{self.base_url}/messages",
            body,
            timeout,
            scrub=self._scrub,
            read=read_reply,
        )
