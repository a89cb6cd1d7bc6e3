"""The ``azure/<deployment>`` provider: Azure OpenAI's chat completions.

Azure OpenAI serves model *deployments* of a resource: the request goes to
``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...`` with
the key in the ``api-key`` header; the body is OpenAI's. The resource URL comes from
``--base-url`` (``base_url=``) or ``$AZURE_OPENAI_ENDPOINT``, the key from
``$AZURE_OPENAI_API_KEY`` (``api_key=``), the API version from ``api_version=``,
``$AZURE_OPENAI_API_VERSION`` or ``$OPENAI_API_VERSION`` (default
:data:`DEFAULT_API_VERSION`).

A deployment's name need not be its model's, so its family (which decides the decoding
it is sent, :mod:`conflicteval.models.decoding`) is looked up by the deployment name
(a deployment named ``gpt-5-mini`` is a reasoning model) unless ``model_family`` says.

Batch files for Azure carry ``"url": "/chat/completions"`` and the deployment as the
body's ``model``, as Azure's global batch deployments expect; ``batch run`` sends
them through ``{endpoint}/openai/files`` and ``/openai/batches``.
"""

from __future__ import annotations

import os
from typing import Any

from conflicteval.errors import UsageError
from conflicteval.models import http_transport
from conflicteval.models.base import ProviderError, ProviderRequest, ProviderResponse
from conflicteval.models.openai_provider import OpenAIProvider

__all__ = ["AZURE_BATCH_URL", "DEFAULT_API_VERSION", "AzureOpenAIProvider", "azure_settings"]

DEFAULT_API_VERSION = "2025-04-01-preview"
"""The data-plane API version sent by default: one that takes the reasoning models'
parameters (``max_completion_tokens``, ``reasoning_effort``); the 2024-10-21 GA version
predates them. Override it with ``api_version=`` or ``$AZURE_OPENAI_API_VERSION``."""

AZURE_BATCH_URL = "/chat/completions"
"""The ``url`` of a chat completions line in an Azure batch file."""

MISSING_ENDPOINT = (
    "no Azure OpenAI resource URL: set AZURE_OPENAI_ENDPOINT or give --base-url "
    "(e.g. https://<resource>.openai.azure.com)"
)
MISSING_AZURE_KEY = "no API key: set AZURE_OPENAI_API_KEY (or pass api_key=...) for Azure OpenAI"


def azure_settings(
    endpoint: str | None = None, api_key: str | None = None, api_version: str | None = None
) -> tuple[str | None, str | None, str]:
    """(resource URL, key, API version) from the arguments, else the environment."""
    url = endpoint or os.environ.get("AZURE_OPENAI_ENDPOINT")
    key = api_key or os.environ.get("AZURE_OPENAI_API_KEY")
    version = (
        api_version
        or os.environ.get("AZURE_OPENAI_API_VERSION")
        or os.environ.get("OPENAI_API_VERSION")
        or DEFAULT_API_VERSION
    )
    return (url.rstrip("/") if url else None), key, version


class AzureOpenAIProvider(OpenAIProvider):
    """Send chat completion requests to one deployment of an Azure OpenAI resource.

    Args:
        deployment: The deployment's name (``azure/<deployment>``).
        base_url: The resource URL (default ``$AZURE_OPENAI_ENDPOINT``); a URL ending in
            ``/openai`` is taken as the resource's.
        api_key: Key (default ``$AZURE_OPENAI_API_KEY``), sent as ``api-key``.
        api_version: The ``api-version`` query parameter.
        model_family: ``"chat"`` or ``"reasoning"`` (default: by deployment name).
        supports_schema, http_client: As for :class:`OpenAIProvider`.
    """

    name = "azure"
    batch_url = AZURE_BATCH_URL
    missing_key = MISSING_AZURE_KEY

    def __init__(
        self,
        deployment: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api_version: str | None = None,
        model_family: str | None = None,
        supports_schema: bool = True,
        http_client: str | None = None,
    ) -> None:
        url, key, version = azure_settings(base_url, api_key, api_version)
        if url is None:
            raise UsageError(MISSING_ENDPOINT)
        url = url.removesuffix("/openai")
        super().__init__(
            deployment,
            base_url=url,
            api_key=key or "no-key",
            supports_schema=supports_schema,
            http_client=http_client,
            model_family=model_family,
        )
        self.has_key = bool(key)
        self._key_from_env = not api_key
        self.api_version = version

    def __repr__(self) -> str:
        return f"AzureOpenAIProvider(deployment={self.model!r}, base_url={self.base_url!r})"

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if state.get("_key_from_env"):
            self._api_key = os.environ.get("AZURE_OPENAI_API_KEY") or "no-key"

    @property
    def needs_key(self) -> bool:
        """True without a key: every Azure resource needs one."""
        return not self.has_key

    def _new_client(self) -> Any:
        return http_transport.new_client(
            self._api_key, None, self.http_client, auth={"api-key": self._api_key}
        )

    async def complete(self, request: ProviderRequest, timeout: float | None) -> ProviderResponse:
        """Send one chat completion request to the deployment; classify any failure."""
        if self.needs_key:
            raise ProviderError(MISSING_AZURE_KEY, fatal=True)
        body, headers, query = self.wire_request(request)
        return await http_transport.post_completion(
            self._client(),
            f"{self.base_url}/openai/deployments/{self.model}/chat/completions",
            body,
            timeout,
            headers=headers,
            params={**(query or {}), "api-version": self.api_version},
            scrub=self._scrub,
        )
