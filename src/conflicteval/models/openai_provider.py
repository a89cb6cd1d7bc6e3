"""The ``openai/<model>`` provider: any OpenAI-compatible chat completions server.

Works with OpenAI itself and with vLLM, Ollama, llama.cpp's server and TGI via
``base_url``. The SDK's own retries are switched off (``max_retries=0``): the
core wrapper retries, so retries are never stacked.
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import functools
import inspect
import os
import threading
import time
import weakref
from typing import Any

import openai

from conflicteval.errors import UsageError
from conflicteval.models.base import (
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    status_is_retryable,
)
from conflicteval.models.endpoint import base_url_problem

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SCHEMA_FORMATS = ("json_schema", "json_object")
MISSING_KEY = (
    "no API key: set OPENAI_API_KEY (or pass api_key=...) for OpenAI's API, or give a "
    "base URL (--base-url / base_url=...) for a local OpenAI-compatible server"
)


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


def _error_code(body: Any) -> str | None:
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            code = err.get("code") or err.get("type")
            return str(code) if code else None
    return None


@functools.lru_cache(maxsize=1)
def _sdk_parameters() -> frozenset[str]:
    """The keyword arguments ``chat.completions.create`` of the installed SDK names."""
    from openai.resources.chat.completions import AsyncCompletions

    return frozenset(inspect.signature(AsyncCompletions.create).parameters) - {"self"}


class OpenAIProvider:
    """Translate requests to ``client.chat.completions.create``.

    Args:
        model: The model name the server knows.
        base_url: Server URL; default ``$OPENAI_BASE_URL`` or OpenAI's.
        api_key: Key; default ``$OPENAI_API_KEY`` (a placeholder is sent to
            servers that need none). Never logged, cached or put in errors.
        organization: Optional OpenAI organization id.
        supports_schema: Send JSON schemas as ``response_format`` (switched
            off automatically when the server rejects it).
        schema_format: How a schema is sent: ``"json_schema"`` (OpenAI's form,
            ``{"type": "json_schema", "json_schema": {"name", "schema"}}``) or
            ``"json_object"`` (``{"type": "json_object", "schema": ...}``, the
            form llama-cpp-python's server enforces; it answers the
            ``json_schema`` form with HTTP 500).

    Pickling keeps the configuration and leaves the HTTP clients behind (each
    process builds its own on first use). A key that came from
    ``$OPENAI_API_KEY`` is not pickled: the unpickled provider reads that
    variable in its own process (a Ray worker gets it from the driver's
    environment or the job's ``runtime_env``). A key passed as ``api_key`` is
    pickled with the rest, for in-memory transport only; never write such a
    pickle to disk.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        organization: str | None = None,
        supports_schema: bool = True,
        schema_format: str = "json_schema",
    ) -> None:
        if schema_format not in SCHEMA_FORMATS:
            raise ValueError(
                f"schema_format must be one of {', '.join(SCHEMA_FORMATS)}, not {schema_format!r}"
            )
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip(
            "/"
        )
        problem = base_url_problem(self.base_url)
        if problem is not None:  # refused before any call, not retried call by call
            given = "--base-url / base_url=..." if base_url else "$OPENAI_BASE_URL"
            raise UsageError(f"base URL {self.base_url!r} ({given}): {problem}")
        self.has_key = bool(api_key or os.environ.get("OPENAI_API_KEY"))
        self._key_from_env = not api_key
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or "no-key"
        self._organization = organization
        self.supports_schema = supports_schema
        self.schema_format = schema_format
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, openai.AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )
        self._clients_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={self.base_url!r})"

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_clients"], state["_clients_lock"]
        if state["_key_from_env"]:
            del state["_api_key"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_api_key" not in state:
            self._api_key = os.environ.get("OPENAI_API_KEY") or "no-key"
        self._clients = weakref.WeakKeyDictionary()
        self._clients_lock = threading.Lock()

    def _client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            with self._clients_lock:  # loops of several threads may get here at once
                # A client's connections refer to their loop, so a dead loop's entry would
                # never leave this weak dictionary: drop them (sockets close when collected).
                for dead in [lp for lp in self._clients if lp.is_closed()]:
                    del self._clients[dead]
                client = openai.AsyncOpenAI(
                    api_key=self._api_key,
                    organization=self._organization,
                    base_url=self.base_url,
                    max_retries=0,
                    # the SDK's defaults, without its own HTTP client's finaliser, which
                    # would try to close a dead loop's connections on whichever loop runs
                    http_client=openai.DefaultAsyncHttpxClient(),
                )
                self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the HTTP client of the running event loop (others close with their loop)."""
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.close()

    def _scrub(self, text: str) -> str:
        # Placeholders such as "none" or "ollama" are no secret; masking every
        # occurrence of such a word would garble the message instead.
        if len(self._api_key) >= 8:
            text = text.replace(self._api_key, "***")
        return text

    @property
    def needs_key(self) -> bool:
        """True when this provider talks to OpenAI's own API and has no key.

        Local servers (any other ``base_url``) get a placeholder key; OpenAI's
        API would refuse it, so no call is sent there without a key.
        """
        return not self.has_key and self.base_url == DEFAULT_BASE_URL

    def _params(self, request: ProviderRequest) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``request``."""
        params: dict[str, Any] = {"model": self.model, "messages": request.messages}
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if request.max_tokens is not None:
            params["max_tokens"] = request.max_tokens
        if request.seed is not None:
            params["seed"] = request.seed
        if request.response_schema is not None and self.supports_schema:
            if self.schema_format == "json_object":
                params["response_format"] = {
                    "type": "json_object",
                    "schema": request.response_schema,
                }
            else:
                params["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": request.schema_name, "schema": request.response_schema},
                }
        # Parameters the SDK names are passed as such; others (top_k, min_p, ... of vLLM,
        # llama.cpp, TGI) go in the request body, which is where the SDK would refuse them.
        known = _sdk_parameters()
        body = {k: v for k, v in request.extra.items() if k not in known}
        params.update((k, v) for k, v in request.extra.items() if k in known)
        if body:
            given = params.get("extra_body")
            params["extra_body"] = {**given, **body} if isinstance(given, dict) else body
        return params

    def request_body(self, request: ProviderRequest) -> dict[str, Any]:
        """The JSON body :meth:`complete` sends for ``request`` (a batch file's ``body``).

        Built from the same parameters as the online call, with ``extra_body``
        merged in as the SDK merges it, so a batch request and an online
        request of one call are the same request.
        """
        params = self._params(request)
        extra = params.pop("extra_body", None)
        if isinstance(extra, dict):
            params.update(extra)
        return params

    async def complete(self, request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        """Send one chat completion request; classify any failure."""
        if self.needs_key:
            raise ProviderError(MISSING_KEY, fatal=True)
        params = self._params(request)
        try:
            pending = self._client().chat.completions.create(**params, timeout=timeout)
        except TypeError as exc:  # a call the SDK refuses: a caller's mistake, not worth retrying
            raise ProviderError(self._scrub(f"invalid request: {exc}")) from exc
        try:
            resp = await pending
        except openai.APITimeoutError as exc:
            raise ProviderError(f"request timed out after {timeout}s", retryable=True) from exc
        except openai.APIConnectionError as exc:
            raise ProviderError(
                self._scrub(f"connection error: {exc.__cause__ or exc}"), retryable=True
            ) from exc
        except openai.APIStatusError as exc:
            status = exc.status_code
            code = _error_code(exc.body)
            message = self._scrub(f"HTTP {status}: {exc.message}")
            if status in (400, 422, 500) and "response_format" in str(exc.message):
                # A server that cannot take the schema parameter (llama-cpp-python answers
                # OpenAI's json_schema form with a 500 naming response_format): the wrapper
                # stops sending it and extracts JSON from the text instead.
                raise ProviderError(message, status=status, schema_rejected=True) from exc
            retryable = status_is_retryable(status) and code != "insufficient_quota"
            raise ProviderError(
                message,
                status=status,
                retryable=retryable,
                retry_after=parse_retry_after(exc.response.headers) if retryable else None,
            ) from exc
        except (openai.APIError, ValueError, TypeError, KeyError) as exc:
            raise ProviderError(
                self._scrub(f"malformed response: {type(exc).__name__}: {exc}"), retryable=True
            ) from exc
        try:
            choice = resp.choices[0]
            text = _content_text(choice.message.content)
            finish = choice.finish_reason
        except (AttributeError, IndexError, TypeError) as exc:
            raise ProviderError("malformed response: no choices", retryable=True) from exc
        usage = getattr(resp, "usage", None)
        return ProviderResponse(
            text=text,
            finish_reason=finish,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        )
