"""The ``openai/<model>`` provider: any OpenAI-compatible chat completions server.

Works with OpenAI itself and with vLLM, Ollama, llama.cpp's server and TGI via
``base_url``. Online calls go through the lean transport of
:mod:`conflicteval.models.http_transport` by default, or through the openai SDK
(``transport="sdk"``), whose own retries are then switched off
(``max_retries=0``). Either way the core wrapper retries, caches and limits
concurrency, so retries are never stacked. The SDK is imported only when used.
"""

from __future__ import annotations

import os
from typing import Any

from conflicteval.errors import UsageError
from conflicteval.models import http_transport
from conflicteval.models.base import (
    ProviderError,
    ProviderRequest,
    ProviderResponse,
    malformed_response,
    status_is_retryable,
)
from conflicteval.models.clients import ClientsPerLoop
from conflicteval.models.completion_body import completion_from_body
from conflicteval.models.decoding import capabilities_for
from conflicteval.models.endpoint import base_url_problem, schema_refused
from conflicteval.models.http_transport import (
    _content_text,
    _error_code,
    encode_body,
    known_parameters,
    order_body,
    parse_retry_after,
)

__all__ = [
    "DEFAULT_BASE_URL",
    "MISSING_KEY",
    "SCHEMA_FORMATS",
    "TRANSPORTS",
    "OpenAIProvider",
    "_content_text",
    "parse_retry_after",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SCHEMA_FORMATS = ("json_schema", "json_object")
TRANSPORTS = ("http", "sdk")
MISSING_KEY = (
    "no API key: set OPENAI_API_KEY (or pass api_key=...) for OpenAI's API, or give a "
    "base URL (--base-url / base_url=...) for a local OpenAI-compatible server"
)


_PARAMS_ORDER = (
    "model",
    "messages",
    "temperature",
    "max_tokens",
    "max_completion_tokens",
    "reasoning_effort",
    "seed",
    "response_format",
)


class OpenAIProvider(ClientsPerLoop):
    """Send chat completion requests to an OpenAI-compatible server.

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
        transport: ``"http"`` (the default): the lean transport of
            :mod:`conflicteval.models.http_transport`, one pooled HTTP client
            posting the body the SDK would post and reading the reply
            directly; ``"sdk"``: ``client.chat.completions.create`` of the
            openai SDK. Both send the same body bytes and classify failures
            alike.
        http_client: The lean transport's HTTP client: ``"builtin"`` (the
            default; the library's own HTTP/1.1 client, with httpx for what it
            does not carry, see :mod:`conflicteval.models.http_transport`),
            ``"httpx2"`` or ``"httpx"``. None: ``$CONFLICTEVAL_HTTP_CLIENT``,
            else ``"builtin"``.
        model_family: The model's family (``"chat"``, ``"reasoning"``), which decides
            the decoding it is sent (:mod:`conflicteval.models.decoding`); None: looked
            up by model name (``o1``, ``o3``, ``o4-mini``, ``gpt-5*`` are reasoning models).

    Pickling keeps the configuration and leaves the HTTP clients behind (each
    process builds its own on first use). A key that came from
    ``$OPENAI_API_KEY`` is not pickled: the unpickled provider reads that
    variable in its own process (a Ray worker gets it from the driver's
    environment or the job's ``runtime_env``). A key passed as ``api_key`` is
    pickled with the rest, for in-memory transport only; never write such a
    pickle to disk.
    """

    KEY_ENV = "OPENAI_API_KEY"

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
        transport: str = "http",
        http_client: str | None = None,
        model_family: str | None = None,
    ) -> None:
        if schema_format not in SCHEMA_FORMATS:
            raise ValueError(
                f"schema_format must be one of {', '.join(SCHEMA_FORMATS)}, not {schema_format!r}"
            )
        if transport not in TRANSPORTS:
            raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
        self.model = model
        self.capabilities = capabilities_for(model, model_family)
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
        self.transport = transport
        if http_client is not None:
            http_transport.http_client_choice(http_client)  # refused here, not call by call
        self.http_client = http_client
        self._init_clients()

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={self.base_url!r})"

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.__dict__.setdefault("transport", "http")
        self.__dict__.setdefault("http_client", None)

    def _new_client(self) -> Any:
        if self.transport == "http":
            return http_transport.new_client(self._api_key, self._organization, self.http_client)
        import importlib

        import openai

        from conflicteval.models.http11 import MAX_BODY_BYTES
        from conflicteval.models.reply_bound import bound_hook

        http_client = openai.DefaultAsyncHttpxClient()
        # the SDK's client is httpx's (openai 1.x) or httpx2's (openai 3.x): the bounded stream
        # must be a byte stream of the same module
        roots = [k.__module__.split(".")[0] for k in type(http_client).__mro__]
        hx = importlib.import_module(next(r for r in roots if r in ("httpx", "httpx2")))
        http_client.event_hooks = {"response": [bound_hook(hx, MAX_BODY_BYTES)]}
        return openai.AsyncOpenAI(
            api_key=self._api_key,
            organization=self._organization,
            base_url=self.base_url,
            max_retries=0,
            # the SDK's defaults, without its own HTTP client's finaliser, which
            # would try to close a dead loop's connections on whichever loop runs
            # the reply size bound of the lean transport's clients, on the SDK's too
            http_client=http_client,
        )

    @property
    def needs_key(self) -> bool:
        """True when this provider talks to OpenAI's own API and has no key.

        Local servers (any other ``base_url``) get a placeholder key; OpenAI's
        API would refuse it, so no call is sent there without a key.
        """
        return not self.has_key and self.base_url == DEFAULT_BASE_URL

    def _fields(self, request: ProviderRequest) -> dict[str, Any]:
        """The request's own body fields, in the order the SDK writes them."""
        fields: dict[str, Any] = {"model": self.model, "messages": request.messages}
        if request.max_tokens is not None:
            fields[request.token_field] = request.max_tokens
        if request.reasoning_effort is not None:
            fields["reasoning_effort"] = request.reasoning_effort
        if (
            request.response_schema is not None
            and self.supports_schema
            # the endpoint refused OpenAI's json_schema form before; that says nothing of
            # llama.cpp's json_object form, asked for by name
            and (self.schema_format == "json_object" or not schema_refused(self.base_url))
        ):
            if self.schema_format == "json_object":
                fields["response_format"] = {
                    "type": "json_object",
                    "schema": request.response_schema,
                }
            else:
                fields["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": request.schema_name, "schema": request.response_schema},
                }
        if request.seed is not None:
            fields["seed"] = request.seed
        if request.temperature is not None:
            fields["temperature"] = request.temperature
        return fields

    def _params(self, request: ProviderRequest) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` for ``request``."""
        fields = self._fields(request)
        # the order batch files have always had (the SDK orders the online body itself)
        params = {k: fields[k] for k in _PARAMS_ORDER if k in fields}
        if not request.extra:
            return params
        # Parameters the SDK names are passed as such; others (top_k, min_p, ... of vLLM,
        # llama.cpp, TGI) go in the request body, which is where the SDK would refuse them.
        # The names come from the SDK's signature: only a call with extras imports it.
        known = known_parameters()
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

    def wire_request(
        self, request: ProviderRequest
    ) -> tuple[bytes, dict[str, str] | None, dict[str, Any] | None]:
        """The lean transport's request: body bytes (the SDK's), extra headers and query.

        Raises:
            ProviderError: A parameter no request can carry (``timeout``, which
                is the model's own setting), or values JSON cannot encode; not
                retryable.
        """
        fields = self._fields(request)
        headers = query = None
        extra_body: dict[str, Any] | None = None
        if request.extra:
            unknown: dict[str, Any] = {}
            given: Any = None
            known = known_parameters()
            for key, value in request.extra.items():
                if key not in known:
                    unknown[key] = value
                elif key == "timeout":
                    raise ProviderError(
                        "invalid request: 'timeout' is the model's own setting "
                        "(get_model(..., timeout=...)), not a request parameter"
                    )
                elif key == "extra_headers":
                    headers = dict(value or {})
                elif key == "extra_query":
                    query = dict(value or {})
                elif key == "extra_body":
                    given = value
                else:
                    fields[key] = value
            extra_body = {**given, **unknown} if isinstance(given, dict) else unknown
        try:
            body = encode_body(order_body(fields, extra_body))
        except (TypeError, ValueError) as exc:
            raise ProviderError(self._scrub(f"invalid request: {exc}")) from exc
        return body, headers, query

    async def complete(self, request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        """Send one chat completion request; classify any failure."""
        if self.needs_key:
            raise ProviderError(MISSING_KEY, fatal=True)
        if self.transport == "http":
            body, headers, query = self.wire_request(request)
            return await http_transport.post_completion(
                self._client(),
                f"{self.base_url}/chat/completions",
                body,
                timeout,
                headers=headers,
                params=query,
                scrub=self._scrub,
            )
        return await self._complete_sdk(request, timeout)

    async def _complete_sdk(
        self, request: ProviderRequest, timeout: float | None
    ) -> ProviderResponse:
        import openai

        from conflicteval.models.http11_reply import HTTPError

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
        except HTTPError as exc:  # the reply bound, raised through openai 3.x's client unwrapped
            raise ProviderError(self._scrub(f"connection error: {exc}"), retryable=True) from exc
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
        except (openai.APIError, ValueError, TypeError, KeyError, RecursionError) as exc:
            raise ProviderError(
                self._scrub(f"malformed response: {type(exc).__name__}: {exc}"), retryable=True
            ) from exc
        try:  # the reply as the body it was, read by the one reader (completion_body)
            data = resp.to_dict(mode="python", warnings=False)
        except (AttributeError, TypeError, ValueError) as exc:
            raise malformed_response("no choices") from exc
        return completion_from_body(data)
