"""The model layer: :func:`get_model`, the core :class:`Model` wrapper and providers.

Specs:
    ``<model>`` (no provider prefix, e.g. ``gpt-4o-mini``): the same as
        ``openai/<model>``, as users of the openai SDK expect.
    ``openai/<model>``: any OpenAI-compatible server (OpenAI, vLLM, Ollama,
        llama.cpp, TGI); options ``base_url``, ``api_key``, ``organization``,
        ``supports_schema``, ``schema_format`` (``"json_schema"``, the default,
        or ``"json_object"`` for llama-cpp-python's server), ``transport``
        (``"http"``, the default: the lean HTTP transport; ``"sdk"``: the
        openai SDK's ``chat.completions.create``).
    ``azure/<deployment>``: a deployment of an Azure OpenAI resource; options
        ``base_url`` (the resource URL, default ``$AZURE_OPENAI_ENDPOINT``),
        ``api_key`` (``$AZURE_OPENAI_API_KEY``), ``api_version``, ``model_family``.
    ``anthropic/<model>``: Claude through Anthropic's Messages API (e.g.
        ``anthropic/claude-sonnet-4-5``); options ``base_url`` (default
        ``$ANTHROPIC_BASE_URL`` or Anthropic's), ``api_key`` (default
        ``$ANTHROPIC_API_KEY``), ``http_client``, ``api_version`` (the
        ``anthropic-version`` header, default ``2023-06-01``).
    ``scripted``: the test double; option ``replies`` (list, mapping or callable).

Common options: ``max_concurrency`` (16), ``timeout`` (60 s), ``cache``
(True: the default directory; False: off; a path: that directory),
``max_attempts``, ``max_retry_time``, ``max_retry_wait``, ``backoff_initial``,
``backoff_max``, ``prompt_version``, ``max_output_tokens`` and ``reasoning_effort``
(see :mod:`conflicteval.models.decoding`). The ``openai`` provider also takes
``model_family`` (``"chat"`` or ``"reasoning"``; default: by model name).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from conflicteval.cache import ResponseCache, open_cache
from conflicteval.errors import UsageError
from conflicteval.models.anthropic_provider import AnthropicProvider
from conflicteval.models.anthropic_wire import API_VERSION
from conflicteval.models.base import (
    Provider,
    ProviderError,
    ProviderRequest,
    ProviderResponse,
)
from conflicteval.models.core import Model, usage_scope
from conflicteval.models.openai_provider import OpenAIProvider
from conflicteval.models.scripted import ScriptedProvider
from conflicteval.suggest import did_you_mean

ProviderFactory = Callable[[str, dict[str, Any]], Provider]

_CORE_OPTIONS = (
    "max_concurrency",
    "timeout",
    "max_attempts",
    "max_retry_time",
    "max_retry_wait",
    "backoff_initial",
    "backoff_max",
    "prompt_version",
    "max_output_tokens",
    "reasoning_effort",
)

_REGISTRY: dict[str, tuple[ProviderFactory, bool]] = {}


def register_provider(name: str, factory: ProviderFactory, *, cache_default: bool = True) -> None:
    """Register a provider factory under ``name``.

    ``factory(model_name, options)`` returns a Provider; it receives the
    options left after the core options were taken out.
    """
    _REGISTRY[name] = (factory, cache_default)


def _openai_factory(model: str, options: dict[str, Any]) -> Provider:
    if not model:
        raise UsageError("openai spec needs a model name: 'openai/<model>'")
    return OpenAIProvider(
        model,
        base_url=options.pop("base_url", None),
        api_key=options.pop("api_key", None),
        organization=options.pop("organization", None),
        supports_schema=options.pop("supports_schema", True),
        schema_format=options.pop("schema_format", "json_schema"),
        transport=options.pop("transport", "http"),
        http_client=options.pop("http_client", None),
        model_family=options.pop("model_family", None),
    )


def _azure_factory(model: str, options: dict[str, Any]) -> Provider:
    from conflicteval.models.azure_provider import AzureOpenAIProvider

    if not model:
        raise UsageError("azure spec needs a deployment name: 'azure/<deployment>'")
    return AzureOpenAIProvider(
        model,
        base_url=options.pop("base_url", None),
        api_key=options.pop("api_key", None),
        api_version=options.pop("api_version", None),
        model_family=options.pop("model_family", None),
        supports_schema=options.pop("supports_schema", True),
        http_client=options.pop("http_client", None),
    )


def _anthropic_factory(model: str, options: dict[str, Any]) -> Provider:
    if not model:
        raise UsageError("anthropic spec needs a model name: 'anthropic/<model>'")
    return AnthropicProvider(
        model,
        base_url=options.pop("base_url", None),
        api_key=options.pop("api_key", None),
        http_client=options.pop("http_client", None),
        api_version=options.pop("api_version", API_VERSION),
    )


def _scripted_factory(model: str, options: dict[str, Any]) -> Provider:
    return ScriptedProvider(
        options.pop("replies", None),
        default=options.pop("default", None),
        model=model or "scripted",
        supports_schema=options.pop("supports_schema", False),
    )


register_provider("openai", _openai_factory)
register_provider("azure", _azure_factory)
register_provider("anthropic", _anthropic_factory)
register_provider("scripted", _scripted_factory, cache_default=False)


def accepted_specs() -> str:
    """One line naming the accepted spec forms (for error messages)."""
    others = ", ".join(
        f"'{name}'" for name in sorted(_REGISTRY) if name not in ("openai", "anthropic")
    )
    return (
        "accepted forms: 'openai/<model>' (OpenAI or any OpenAI-compatible server with "
        f"a base URL, e.g. openai/gpt-4o-mini or openai/meta-llama/Llama-3.1-8B), "
        "'anthropic/<model>' (Claude, e.g. anthropic/claude-sonnet-4-5), "
        f"'<model>' alone (the same as openai/<model>), {others}"
    )


def _resolve_cache(value: Any) -> ResponseCache | None:
    if value is False or value is None:
        return None
    if value is True:
        return open_cache()
    if isinstance(value, ResponseCache):
        return value
    if isinstance(value, (str, os.PathLike)):
        return open_cache(value)
    raise TypeError("cache must be True, False, a directory path or a ResponseCache")


def get_model(spec: str | Model, **options: Any) -> Model:
    """Create a model from a spec such as ``"openai/gpt-4o-mini"`` or ``"scripted"``.

    Args:
        spec: ``provider/model`` (or a provider name alone), or a Model
            (returned unchanged).
        **options: Core options (see the module docs) and provider options.

    Returns:
        The core Model wrapper around the provider.

    A name without a provider prefix (``"gpt-4o-mini"``) means the OpenAI
    provider (``"openai/gpt-4o-mini"``).

    Raises:
        UsageError: Unknown provider, empty spec or unknown option (a
            ``ValueError``).
    """
    if isinstance(spec, Model):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise UsageError(f"a model spec is a non-empty string, not {spec!r}; {accepted_specs()}")
    spec = spec.strip()
    provider_name, slash, model_name = spec.partition("/")
    if not slash and provider_name not in _REGISTRY:
        provider_name, model_name = "openai", spec  # a bare model name: OpenAI's provider
    if provider_name not in _REGISTRY:
        raise UsageError(
            f"unknown model provider {provider_name!r}"
            f"{did_you_mean(provider_name, _REGISTRY)} in {spec!r}; {accepted_specs()}"
        )
    factory, cache_default = _REGISTRY[provider_name]
    opts = {k: v for k, v in options.items() if v is not None}  # None means "the default"
    core = {k: opts.pop(k) for k in _CORE_OPTIONS if k in opts}
    cache = _resolve_cache(opts.pop("cache", cache_default))
    provider = factory(model_name, opts)
    if opts:
        raise UsageError(f"unknown option(s) for {provider_name!r}: {', '.join(sorted(opts))}")
    return Model(provider, cache=cache, **core)


__all__ = [
    "AnthropicProvider",
    "Model",
    "OpenAIProvider",
    "Provider",
    "ProviderError",
    "ProviderRequest",
    "ProviderResponse",
    "ScriptedProvider",
    "accepted_specs",
    "get_model",
    "register_provider",
    "usage_scope",
]
