"""A test server speaking Azure OpenAI's routes and headers.

Azure OpenAI serves a resource (``https://<name>.openai.azure.com``) whose model
deployments are addressed by name in the path, with the ``api-version`` query
parameter on every request and the key in the ``api-key`` header:

* ``POST /openai/deployments/<deployment>/chat/completions?api-version=...``
* ``POST /openai/files`` / ``GET /openai/files/<id>/content`` and
  ``POST|GET /openai/batches[/<id>[/cancel]]`` (each ``?api-version=...``); a batch
  file's lines carry ``"url": "/chat/completions"`` and the deployment as ``model``.

This server answers them as :class:`~conflicteval.testing.server.OpenAICompatServer`
answers OpenAI's (same reply script, faults, batch outcomes and request rules, which
are those of each deployment's model), and refuses what Azure refuses: no ``api-key``
header (401), no ``api-version`` (404, "Resource not found"), an unknown deployment
(404, ``DeploymentNotFound``), a batch line whose ``url`` is not the batch's endpoint.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any
from urllib.parse import parse_qs, urlsplit

from conflicteval.testing.http_plumbing import RawRequest
from conflicteval.testing.server import OpenAICompatServer

__all__ = ["AzureOpenAIServer"]

AZURE_CHAT_URL = "/chat/completions"
"""The ``url`` of a chat completions line in an Azure batch file (and the batch endpoint)."""


def _azure_error(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()


class AzureOpenAIServer(OpenAICompatServer):
    """A local Azure OpenAI resource with scripted replies.

    Args:
        deployments: Deployment name -> the model it serves (whose request rules apply).
        api_key: The key the ``api-key`` header must carry.
        **options: As for :class:`~conflicteval.testing.server.OpenAICompatServer`.

    Attributes:
        endpoint: The resource URL (``http://127.0.0.1:<port>``), what
            ``AZURE_OPENAI_ENDPOINT`` holds.
    """

    def __init__(
        self,
        deployments: dict[str, str] | None = None,
        *,
        api_key: str = "azure-test-key",
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.deployments = dict(deployments or {"gpt-5-mini": "gpt-5-mini"})
        self.api_key = api_key
        self.azure_paths: list[tuple[str, str]] = []
        """(method, path with query) of every request, as Azure's routes name them (the
        request log holds the OpenAI route each was answered by)."""

    @property
    def endpoint(self) -> str:
        """The resource URL (no path)."""
        return f"http://{self.host}:{self.port}"

    def rules_model(self, body: dict[str, Any]) -> str:
        """The model of the deployment ``body`` names (Azure's rules are its model's)."""
        name = str(body.get("model", ""))
        return self.deployments.get(name, name)

    async def _respond(self, request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        method, path, raw = request.method, request.path, request.raw
        self.azure_paths.append((method, path))
        parts = urlsplit(path)
        segments = [p for p in parts.path.split("/") if p]
        refused = self._azure_refusal(request.headers, parts.query, segments)
        if refused is not None:
            status, payload = refused
            entry, _ = self._log_request(request)
            entry.status = status
            self._write(writer, status, payload)
            return True
        if segments[1] == "deployments":  # openai/deployments/<name>/chat/completions
            deployment = segments[2]
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = None
            if isinstance(body, dict):
                body.setdefault("model", deployment)  # the path names the deployment
                raw = json.dumps(body).encode()
            route = "/v1/chat/completions"
        else:
            route = "/v1/" + "/".join(segments[1:])
        return await super()._respond(replace(request, path=route, raw=raw), writer)

    def _azure_refusal(
        self, headers: dict[str, str], query: str, segments: list[str]
    ) -> tuple[int, bytes] | None:
        if headers.get("api-key") != self.api_key:
            return 401, _azure_error(
                "401",
                "Access denied due to invalid subscription key or wrong API endpoint. Make sure "
                "to provide a valid key for an active subscription and use a correct regional "
                "API endpoint for your resource.",
            )
        if not segments or segments[0] != "openai" or "api-version" not in parse_qs(query):
            return 404, _azure_error("404", "Resource not found")
        if len(segments) >= 2 and segments[1] == "deployments":
            if len(segments) != 5 or segments[3:] != ["chat", "completions"]:
                return 404, _azure_error("404", "Resource not found")
            if segments[2] not in self.deployments:
                return 404, _azure_error(
                    "DeploymentNotFound",
                    "The API deployment for this resource does not exist. If you created the "
                    "deployment within the last 5 minutes, please wait a moment and try again.",
                )
            return None
        if len(segments) >= 2 and segments[1] in ("files", "batches"):
            return None
        return 404, _azure_error("404", "Resource not found")

    def _answer_line(
        self, line: dict[str, Any], *, shape: str = "openai"
    ) -> tuple[dict[str, Any], bool]:
        deployment = str((line.get("body") or {}).get("model", ""))
        problem = None
        if line.get("url") != AZURE_CHAT_URL:
            problem = f"the url {line.get('url')!r} is not the batch endpoint {AZURE_CHAT_URL!r}"
        elif deployment not in self.deployments:
            problem = f"deployment {deployment!r} does not exist"
        if problem is None:
            return super()._answer_line(line, shape=shape)
        self.batch_lines_answered += 1
        row = {
            "id": f"batch_req_{self.batch_lines_answered}",
            "custom_id": line.get("custom_id"),
            "response": None,
            "error": {"code": "invalid_request", "message": problem},
        }
        return row, False
