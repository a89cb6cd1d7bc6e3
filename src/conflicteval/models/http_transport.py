"""The lean transport of the ``openai/<model>`` provider: one pooled HTTP client, no SDK.

An online chat completion is one JSON POST and one JSON reply. The openai SDK
spends about half of a call's client CPU on its own machinery (validating and
transforming the parameters, building the request, constructing pydantic
objects from the reply); this transport posts the same body bytes through one
pooled client per event loop and reads the reply straight into a
:class:`~conflicteval.models.base.ProviderResponse`.

The HTTP client (:data:`HTTP_CLIENTS`, chosen with ``http_client=`` or
``$CONFLICTEVAL_HTTP_CLIENT``) is by default ``builtin``, the library's own
HTTP/1.1 client (:mod:`conflicteval.models.http11`), which costs a fraction of a
general client's CPU per call. Requests it does not carry go through a general
client: ``httpx2`` (the client openai 3.x is built on) when it is installed,
else ``httpx``: a proxy set in the environment, and a server answering with a
redirect (the request is then sent again through the general client, which
follows it, and that URL stays with it). ``httpx2`` / ``httpx`` send every
request through that client.

Every failure is classified as the SDK path classifies it (see
``openai_provider.OpenAIProvider``): a timeout and any error while sending or
reading are retryable; a status outside 2xx is an HTTP error whose message
carries the server's own error message (``HTTP 429: Error code: 429 - ...``,
the SDK's wording); a reply that is not a chat completion is retryable as
"malformed response".
"""

from __future__ import annotations

import datetime
import email.utils
import functools
import importlib.metadata
import inspect
import json
import os
import re
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from conflicteval.models import http11
from conflicteval.models.base import ProviderError, ProviderResponse, status_is_retryable
from conflicteval.models.completion_body import (  # noqa: F401  (their home before)
    _content_text,
    read_completion,
    reasoning_count,
    usage_counts,
)
from conflicteval.models.reply_bound import bound_hook

# How the openai SDK orders the body of ``chat.completions.create``: a few keys first, then
# every other key in alphabetical order; the SDK drops the parameters not given and appends
# ``extra_body`` after them. Building the body in the same order makes the two transports send
# the same bytes. Checked against the released wheels (every one from 1.109 on sorts the rest
# alphabetically): before 3.24 the head is ``messages, model``, from 3.24 on
# ``model, stream, service_tier, messages``; the byte-identical-body tests check the rule
# against the SDK installed.
_HEAD_BEFORE_3_24 = ("messages", "model")
_HEAD_FROM_3_24 = ("model", "stream", "service_tier", "messages")
_BODY_IN_ERRORS_BEFORE = (3, 38)
"""Before openai 3.38 an error status is worded with the whole body, from then on with the
error's message only."""

SDK_BODY_ORDER = (
    *_HEAD_FROM_3_24,
    *sorted(
        "audio frequency_penalty function_call functions logit_bias logprobs"
        " max_completion_tokens max_tokens metadata modalities moderation n parallel_tool_calls"
        " prediction presence_penalty prompt_cache_key prompt_cache_options"
        " prompt_cache_retention reasoning_effort response_format safety_identifier seed stop"
        " store stream_options temperature tool_choice tools top_logprobs top_p user verbosity"
        " web_search_options".split()
    ),
)
"""The body keys of ``create`` in openai 3.57 (the newest checked), in its order: the known
parameters when the SDK's own cannot be read (see :func:`known_parameters`)."""
SDK_CALL_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")
"""Keyword arguments of ``create`` that are not body fields."""


@functools.lru_cache(maxsize=1)
def sdk_version() -> tuple[int, int] | None:
    """The installed openai SDK's (major, minor), from its metadata (no import), or None."""
    try:
        text = importlib.metadata.version("openai")
    except importlib.metadata.PackageNotFoundError:
        return None
    parts = re.findall(r"\d+", text)[:2]
    return (int(parts[0]), int(parts[1])) if len(parts) == 2 else None


@functools.lru_cache(maxsize=1)
def _body_head() -> tuple[str, ...]:
    version = sdk_version()
    return _HEAD_BEFORE_3_24 if version is not None and version < (3, 24) else _HEAD_FROM_3_24


def _body_key(name: str) -> tuple[int, str]:
    head = _body_head()
    return (head.index(name), "") if name in head else (len(head), name)


@functools.lru_cache(maxsize=1)
def _whole_body_in_errors() -> bool:
    """Whether the installed SDK words an error status with the whole body (before 3.38)."""
    version = sdk_version()
    return version is not None and version < _BODY_IN_ERRORS_BEFORE


@functools.lru_cache(maxsize=1)
def known_parameters() -> frozenset[str]:
    """The keyword arguments of the installed SDK's ``create``: body fields and call options.

    Read from the SDK's signature, which imports it (about a second, once): only a call with
    extra parameters asks, to tell the SDK's own parameters from those that go in the body.
    Without the SDK, the newest checked release's (:data:`SDK_BODY_ORDER`).
    """
    try:
        from openai.resources.chat.completions import AsyncCompletions
    except ImportError:
        return frozenset(SDK_BODY_ORDER) | frozenset(SDK_CALL_OPTIONS)
    names = inspect.signature(AsyncCompletions.create).parameters
    return frozenset(n for n in names if n != "self") | frozenset(SDK_CALL_OPTIONS)


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # asctime form: an HTTP date is always GMT, never local time
        when = when.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, when.timestamp() - time.time())


def _error_code(body: Any) -> str | None:
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            code = err.get("code") or err.get("type")
            return str(code) if code else None
    return None


HTTP_CLIENT_ENV = "CONFLICTEVAL_HTTP_CLIENT"
"""Environment variable choosing the lean transport's HTTP client (one of :data:`HTTP_CLIENTS`)."""
HTTP_CLIENTS = ("builtin", "httpx2", "httpx")
"""``builtin``: the library's own HTTP/1.1 client (the default); ``httpx2`` / ``httpx``."""


def http_client_choice(option: str | None = None) -> str:
    """The HTTP client to use: ``option``, else ``$CONFLICTEVAL_HTTP_CLIENT``, else ``builtin``."""
    choice = (option or os.environ.get(HTTP_CLIENT_ENV, "")).strip().lower() or "builtin"
    if choice not in HTTP_CLIENTS:
        where = "http_client" if option else f"${HTTP_CLIENT_ENV}"
        raise ValueError(f"{where} must be one of {', '.join(HTTP_CLIENTS)}, not {choice!r}")
    return choice


@functools.lru_cache(maxsize=4)
def general_module(choice: str = "builtin") -> ModuleType:
    """The general HTTP client module for a choice of :data:`HTTP_CLIENTS`.

    ``httpx`` and ``httpx2`` are themselves; with ``builtin`` it is ``httpx2`` when installed
    (the client openai 3.x is built on), else ``httpx``.
    """
    if choice != "httpx":
        try:
            import httpx2

            return httpx2
        except ImportError:
            if choice == "httpx2":
                raise ImportError(
                    "the httpx2 HTTP client is not installed: pip install '.[fast]'"
                ) from None
    import httpx

    return httpx


def http_module() -> ModuleType:
    """The general HTTP client module for ``$CONFLICTEVAL_HTTP_CLIENT`` (see general_module)."""
    return general_module(http_client_choice())


def encode_body(body: Mapping[str, Any]) -> bytes:
    """JSON bytes as the SDK (and httpx) write a request body: compact, UTF-8, no NaN."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def order_body(fields: Mapping[str, Any], extra_body: Mapping[str, Any] | None) -> dict[str, Any]:
    """``fields`` in the SDK's key order, then ``extra_body`` merged over them (as the SDK does)."""
    body = {k: fields[k] for k in sorted(fields, key=_body_key)}
    if extra_body:
        body.update(extra_body)
    return body


def error_message(status: int, content: bytes) -> tuple[str, Any]:
    """The installed SDK's message for an error status, and the body (JSON when it parses).

    ``Error code: N - <the error's message>`` (openai 2.x and later) or
    ``Error code: N - <the whole body>`` (openai 1.x).
    """
    message = f"Error code: {status}"
    text = content.decode("utf-8", "replace").strip()
    body: Any = text
    try:
        body = json.loads(text)
    except ValueError:
        return ((text or message) if _whole_body_in_errors() else message), body
    if _whole_body_in_errors():
        return f"{message} - {body}", body
    error = body.get("error", body) if isinstance(body, dict) else None
    detail = error.get("message") if isinstance(error, dict) else None
    if isinstance(detail, str) and detail:
        message += f" - {detail}"
    return message, body


def status_error(status: int, content: bytes, headers: Any, scrub: Any = None) -> ProviderError:
    """The ProviderError of an HTTP error reply, classified as on the SDK path."""
    detail, body = error_message(status, content)
    message = f"HTTP {status}: {detail}"
    if scrub is not None:
        message = scrub(message)
    if status in (400, 422, 500) and "response_format" in detail:
        # the server cannot take the schema parameter: the wrapper stops sending it
        return ProviderError(message, status=status, schema_rejected=True)
    retryable = status_is_retryable(status) and _error_code(body) != "insufficient_quota"
    return ProviderError(
        message,
        status=status,
        retryable=retryable,
        retry_after=parse_retry_after(headers) if retryable else None,
    )


def _headers(
    api_key: str, organization: str | None, auth: Mapping[str, str] | None = None
) -> dict[str, str]:
    from conflicteval._version import __version__

    headers = {
        **(auth if auth is not None else {"Authorization": f"Bearer {api_key}"}),
        "Content-Type": "application/json",
        "Accept": "application/json",
        "Accept-Encoding": "gzip, deflate",
        "User-Agent": f"conflicteval/{__version__}",
    }
    if organization:
        headers["OpenAI-Organization"] = organization
    return headers


class LeanClient:
    """The lean transport's HTTP client of one event loop.

    The built-in HTTP/1.1 pool (``pool``, None when ``http_client`` is ``httpx2`` or
    ``httpx``) and, created on first need, one general pooled ``AsyncClient``
    (:func:`general_module`) with the openai SDK's pool limits and redirect policy.
    """

    def __init__(
        self,
        api_key: str,
        organization: str | None,
        http_client: str | None = None,
        auth: Mapping[str, str] | None = None,
    ):
        self.headers = _headers(api_key, organization, auth)
        self.choice = http_client_choice(http_client)
        self.max_body_bytes = http11.MAX_BODY_BYTES
        self.pool = (
            http11.Pool(self.headers, max_body_bytes=self.max_body_bytes)
            if self.choice == "builtin"
            else None
        )
        self._general: Any = None
        self._builtin_urls: dict[str, bool] = {}

    @property
    def hx(self) -> ModuleType:
        """The general client's module (imported on first use)."""
        return general_module(self.choice)

    def general(self) -> Any:
        """The general ``AsyncClient`` (created on first use)."""
        if self._general is None:
            hx = self.hx
            self._general = hx.AsyncClient(
                headers=self.headers,
                limits=hx.Limits(max_connections=1000, max_keepalive_connections=100),
                follow_redirects=True,
                event_hooks={"response": [bound_hook(hx, self.max_body_bytes)]},
            )
        return self._general

    def builtin_for(self, url: str) -> bool:
        """Whether requests to ``url`` go through the built-in client."""
        if self.pool is None:
            return False
        known = self._builtin_urls.get(url)
        if known is None:
            known = self._builtin_urls[url] = http11.applies_to(url)
        return known

    def leave_builtin(self, url: str) -> None:
        """Send later requests to ``url`` through the general client (it redirected)."""
        self._builtin_urls[url] = False

    async def aclose(self) -> None:
        """Close the pooled connections of both clients."""
        if self.pool is not None:
            await self.pool.aclose()
        if self._general is not None:
            await self._general.aclose()


def new_client(
    api_key: str,
    organization: str | None,
    http_client: str | None = None,
    auth: Mapping[str, str] | None = None,
) -> Any:
    """The lean transport's client for one event loop (see :class:`LeanClient`); ``auth``:
    the authentication headers, instead of ``Authorization: Bearer <api_key>`` (Azure's
    ``api-key``)."""
    return LeanClient(api_key, organization, http_client, auth)


@functools.lru_cache(maxsize=64)
def _timeout(hx: ModuleType, seconds: float | None) -> Any:
    return hx.Timeout(seconds)


def _timed_out(timeout: float | None) -> ProviderError:
    return ProviderError(f"request timed out after {timeout}s", retryable=True)


def _connection_error(exc: BaseException, scrub: Any) -> ProviderError:
    text = f"connection error: {exc}"
    return ProviderError(scrub(text) if scrub else text, retryable=True)


async def post_completion(
    client: LeanClient,
    url: str,
    body: bytes,
    timeout: float | None,
    *,
    headers: Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    scrub: Any = None,
    read: Any = None,
) -> ProviderResponse:
    """POST one chat completion body; read the reply or raise a classified ProviderError.

    ``read(status, content, headers, scrub)`` reads the reply of another API (the
    Messages API's provider passes its own); by default a chat completion.
    """
    read = read or _read_reply
    if client.pool is not None and client.builtin_for(url):
        try:
            reply = await client.pool.post(
                url, body, headers=headers, params=params, timeout=timeout
            )
        except http11.TIMEOUT_ERRORS:
            raise _timed_out(timeout) from None
        except http11.HTTPError as exc:
            raise _connection_error(exc, scrub) from exc
        if reply.status not in http11.REDIRECTS or "location" not in reply.headers:
            return read(reply.status, reply.content, reply.headers, scrub)
        # A redirect, which this client does not follow: the server did not take the request,
        # so it goes again through the general client, which follows redirects as the SDK does.
        client.leave_builtin(url)
    hx = client.hx
    try:
        resp = await client.general().post(
            url, content=body, headers=headers, params=params, timeout=_timeout(hx, timeout)
        )
    except hx.TimeoutException:
        raise _timed_out(timeout) from None
    except Exception as exc:
        raise _connection_error(exc, scrub) from exc
    return read(resp.status_code, resp.content, resp.headers, scrub)


def _read_reply(status: int, content: bytes, headers: Any, scrub: Any) -> ProviderResponse:
    if not 200 <= status < 300:
        raise status_error(status, content, headers, scrub)
    return read_completion(content)
