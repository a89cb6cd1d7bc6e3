"""A small, real Anthropic Messages API server for tests: the API's refusals, Message Batches.

It serves ``POST /v1/messages`` and the Message Batches endpoints (create,
retrieve, list, cancel, results) over real HTTP/1.1 on 127.0.0.1, from its own
thread, and refuses what the real API refuses (:mod:`conflicteval.testing.anthropic_rules`:
missing or wrong headers, missing ``max_tokens``, a ``system`` role inside
``messages``, unknown fields such as ``seed``), so a request the real API would
refuse fails the test.

Replies come from the same kind of script as the OpenAI-compatible test server's
(:class:`~conflicteval.testing.server.OpenAICompatServer`): a list, a mapping from
the last message's content, or a function. The script sees each request as chat
messages (:func:`chat_view`: the ``system`` prompt as a first system message, and a
forced tool's schema as ``response_format``), so one script serves both servers
and gives the same replies. A reply to a forced tool that parses as a JSON object
is sent as that tool's ``tool_use`` block; any other reply as a text block.

Example:
    >>> with AnthropicServer(replies=["Paris"]) as srv:
    ...     model = get_model("anthropic/claude-sonnet-4-5", base_url=srv.base_url, api_key="k")
    ...     model.generate_sync("Capital of France?").text
    'Paris'
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from conflicteval.testing.anthropic_batches import MessageBatchesMixin, MessageBatchOutcome
from conflicteval.testing.anthropic_rules import check_headers, check_message_body, error_body
from conflicteval.testing.chat import ChatCompletionsServer, Replies, _Config
from conflicteval.testing.faults import Fault, FaultFn
from conflicteval.testing.http_plumbing import LoggedRequest, RawRequest

__all__ = ["AnthropicServer", "MessageBatchOutcome", "chat_view"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def chat_view(body: dict[str, Any]) -> dict[str, Any]:
    """A Messages API body as the chat request a reply script reads.

    ``messages`` with the ``system`` prompt first and every content as text;
    ``response_format`` carrying the forced tool's ``input_schema`` (OpenAI's
    ``json_schema`` form); ``model``, ``max_tokens``, ``temperature`` as sent.
    """
    messages = [
        {"role": m.get("role"), "content": _text(m.get("content"))} for m in body["messages"]
    ]
    if body.get("system"):
        messages.insert(0, {"role": "system", "content": _text(body["system"])})
    view: dict[str, Any] = {
        "model": body.get("model"),
        "messages": messages,
        "max_tokens": body.get("max_tokens"),
    }
    if "temperature" in body:
        view["temperature"] = body["temperature"]
    tool = _forced_tool(body)
    if tool is not None:
        view["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": tool["name"], "schema": tool["input_schema"]},
        }
    return view


def _forced_tool(body: dict[str, Any]) -> dict[str, Any] | None:
    choice = body.get("tool_choice")
    if not isinstance(choice, dict) or choice.get("type") != "tool":
        return None
    for tool in body.get("tools") or []:
        if tool.get("name") == choice.get("name"):
            return dict(tool)
    return None


def _words(text: str) -> int:
    return len(text.split())


class AnthropicServer(MessageBatchesMixin, ChatCompletionsServer):
    """A real local Messages API server with the API's refusals, scripted replies and faults.

    Args:
        replies: As for ``OpenAICompatServer`` (a function gets :func:`chat_view`).
        faults: Per-request faults, as for ``OpenAICompatServer`` (a ``status``
            fault of 529 is Anthropic's ``overloaded_error``).
        api_key: The key the server accepts in ``x-api-key`` (None: any key).
        latency: Seconds to wait before answering every request.
        batch_outcomes: How Message Batches end, in order (default: every request
            answered after one retrieve).
        batch_faults: HTTP statuses answered, in order, to Message Batches GETs
            (with ``retry-after: 0``).

    Attributes:
        requests: The request log, in arrival order (``refused`` lists the refusals).
    """

    def __init__(
        self,
        replies: Replies = None,
        *,
        faults: Sequence[Fault | None] | FaultFn | None = None,
        api_key: str | None = None,
        latency: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        batch_outcomes: Sequence[MessageBatchOutcome] | None = None,
        batch_faults: Sequence[int] | None = None,
    ) -> None:
        super().__init__(host, port)
        self.config = _Config(replies=replies, faults=faults, latency=latency)
        self.api_key = api_key
        self.batch_outcomes: list[MessageBatchOutcome] = list(batch_outcomes or [])
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_faults: list[int] = list(batch_faults or [])
        """HTTP statuses answered, in order, to Message Batches GETs (529: overloaded)."""

    # -- the log -------------------------------------------------------------
    def messages(self) -> list[LoggedRequest]:
        """Logged ``POST /v1/messages`` requests."""
        return [r for r in self.requests if r.path.split("?")[0].rstrip("/").endswith("/messages")]

    def refused(self) -> list[LoggedRequest]:
        """Requests answered with a 4xx status other than a scripted fault's."""
        return [r for r in self.requests if 400 <= r.status < 500 and r.fault is None]

    # -- answering -----------------------------------------------------------
    def _send(
        self,
        writer: asyncio.StreamWriter,
        entry: LoggedRequest,
        status: int,
        payload: Any,
        headers: dict[str, str] | None = None,
    ) -> bool:
        entry.status = status
        self._write(writer, status, json.dumps(payload).encode(), headers)
        return True

    async def _respond(self, request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        entry, body = self._log_request(request)
        return await self._answer_or_500(entry, writer, self._route(entry, request, body, writer))

    def _server_error_body(self, message: str) -> bytes:
        return json.dumps(error_body("api_error", message)).encode()

    async def _route(
        self, entry: LoggedRequest, request: RawRequest, body: Any, writer: asyncio.StreamWriter
    ) -> bool:
        method, path, headers, raw = request.method, request.path, request.headers, request.raw
        refusal = check_headers(headers, self.api_key)
        if refusal is not None:
            return self._send(writer, entry, refusal[0], error_body(refusal[1], refusal[2]))
        route = path.split("?")[0].rstrip("/")
        if "/messages/batches" in route and method == "GET" and self.batch_faults:
            status = self.batch_faults.pop(0)
            entry.fault = "status"
            kind = "overloaded_error" if status == 529 else "api_error"
            body_ = error_body(kind, f"error {status}")
            return self._send(writer, entry, status, body_, {"retry-after": "0"})
        if "/messages/batches" in route:
            status, payload = self._batches_route(method, route, path, body, raw, headers)
            if isinstance(payload, bytes):
                entry.status = status
                self._write(writer, status, payload, content_type="application/binary")
                return True
            return self._send(writer, entry, status, payload)
        if method != "POST" or not route.endswith("/v1/messages"):
            return self._send(writer, entry, 404, error_body("not_found_error", "Not found"))
        if body is None:
            return self._send(
                writer, entry, 400, error_body("invalid_request_error", "body is not JSON")
            )
        return await self._message(entry, body, writer)

    async def _message(
        self, entry: LoggedRequest, body: dict[str, Any], writer: asyncio.StreamWriter
    ) -> bool:
        refusal = check_message_body(body, entry.headers.get("anthropic-version", ""))
        if refusal is not None:
            return self._send(writer, entry, refusal[0], error_body(refusal[1], refusal[2]))
        fault = self._pick_fault(entry.n, body)
        entry.fault = fault.kind if fault else None
        if self.config.latency:
            await asyncio.sleep(self.config.latency)
        if fault is not None:
            if fault.kind == "drop":
                entry.status = 0
                writer.transport.abort()
                return False
            if fault.kind == "rate_limit":
                extra = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after else {}
                return self._send(
                    writer, entry, 429, error_body("rate_limit_error", "rate limited"), extra
                )
            if fault.kind == "status":
                kind = "overloaded_error" if fault.status == 529 else "api_error"
                return self._send(
                    writer, entry, fault.status, error_body(kind, f"error {fault.status}")
                )
            if fault.kind == "malformed":
                entry.status = 200
                self._write(writer, 200, b'{"id": "msg_x", "type": "message", "conte')
                return True
            if fault.kind == "slow":
                await asyncio.sleep(fault.delay)
        payload = self.message_reply(
            entry.n, body, truncate=fault is not None and fault.kind == "truncate"
        )
        if fault is not None and fault.kind == "drip":
            return await self._drip(writer, json.dumps(payload).encode(), fault)
        return self._send(writer, entry, 200, payload)

    def message_reply(
        self, n: int, body: dict[str, Any], *, truncate: bool = False
    ) -> dict[str, Any]:
        """The Messages API reply to a valid ``body`` (the reply script's text)."""
        view = chat_view(body)
        text = self._reply_text(view)
        tool = _forced_tool(body)
        parsed: Any = None
        if tool is not None and not truncate:
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = None
        if isinstance(parsed, dict) and tool is not None:
            content: list[dict[str, Any]] = [
                {"type": "tool_use", "id": f"toolu_{n:06d}", "name": tool["name"], "input": parsed}
            ]
            stop = "tool_use"
        else:
            if truncate:
                text = text[: max(1, len(text) // 2)]
            content = [{"type": "text", "text": text}]
            stop = "max_tokens" if truncate else "end_turn"
        prompt = sum(_words(str(m["content"])) for m in view["messages"])
        return {
            "id": f"msg_{n:06d}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": prompt,
                "output_tokens": _words(text),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
