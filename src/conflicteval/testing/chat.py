"""The test server's chat completions: the reply script, per-request faults, usage.

``POST /v1/chat/completions`` is answered from the reply script (a list, a mapping
from the last message to a reply, or a function), after the request's fault, if any;
``GET /v1/models`` lists one model.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conflicteval.testing.api_rules import is_reasoning_model, refusal
from conflicteval.testing.faults import Fault, FaultFn
from conflicteval.testing.http_plumbing import HTTPServerBase, LoggedRequest, _error_body

ReplyFn = Callable[[dict[str, Any]], str]
Replies = Sequence[str] | Mapping[str, str] | ReplyFn | None


def _words(text: str) -> int:
    return len(text.split())


_ERROR_FAULTS = frozenset(
    {"drop", "rate_limit", "quota", "status", "malformed", "raw", "endless_chunked"}
)
"""Faults answered instead of a completion."""


@dataclass
class _Config:
    replies: Replies = None
    faults: Sequence[Fault | None] | FaultFn | None = None
    latency: float = 0.0
    reject_response_format: bool | int = False
    enforce_rules: bool = True
    log_bodies: bool = True
    _reply_index: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)


class ChatCompletionsServer(HTTPServerBase):
    """The chat completions endpoint, answered from ``config`` (script, faults, latency)."""

    config: _Config

    # -- configuration from tests -----------------------------------------
    def set_replies(self, replies: Replies) -> None:
        """Replace the reply script (and restart its position)."""
        with self.config._lock:
            self.config.replies = replies
            self.config._reply_index = 0

    def set_faults(self, faults: Sequence[Fault | None] | FaultFn | None) -> None:
        """Replace the fault script; list positions count from the next request."""
        with self.config._lock:
            self.config.faults = list(faults) if isinstance(faults, Sequence) else faults
            self._fault_base = self._count

    _fault_base = 0

    def completions(self) -> list[LoggedRequest]:
        """Logged chat-completion requests only."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- request handling ---------------------------------------------------
    def rules_model(self, body: dict[str, Any]) -> str:
        """The model whose request rules apply to ``body`` (its ``model``; an Azure
        server's deployment's model)."""
        return str(body.get("model", ""))

    def refusal(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The real API's 400 error body for ``body``, when it would refuse it."""
        if not self.config.enforce_rules:
            return None
        return refusal(body, self.rules_model(body))

    def _pick_fault(self, n: int, body: dict[str, Any]) -> Fault | None:
        faults = self.config.faults
        if faults is None:
            return None
        if callable(faults):
            return faults(n, body)
        idx = n - self._fault_base
        return faults[idx] if 0 <= idx < len(faults) else None

    def _reply_text(self, body: dict[str, Any]) -> str:
        replies = self.config.replies
        if replies is None:
            return "OK"
        if callable(replies):
            return str(replies(body))
        if isinstance(replies, Mapping):
            msgs = body.get("messages") or []
            prompt = msgs[-1].get("content", "") if msgs else ""
            return str(replies.get(prompt, "OK"))
        with self.config._lock:
            if not replies:
                return "OK"
            i = min(self.config._reply_index, len(replies) - 1)
            self.config._reply_index += 1
            return str(replies[i])

    async def _answer(
        self,
        entry: LoggedRequest,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        writer: asyncio.StreamWriter,
    ) -> bool:
        n = entry.n
        if method == "GET" and path.rstrip("/").endswith("/models"):
            listing = {"object": "list", "data": [{"id": "test-model", "object": "model"}]}
            self._write(writer, 200, json.dumps(listing).encode())
            return True
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            entry.status = 404
            self._write(writer, 404, _error_body("not found", "not_found"))
            return True
        if body is None:
            entry.status = 400
            self._write(writer, 400, _error_body("request body is not JSON", "invalid_request"))
            return True
        refused = self.refusal(body)
        if refused is not None:
            entry.status = 400
            self._write(writer, 400, json.dumps(refused).encode())
            return True
        fault = self._pick_fault(n, body)
        entry.fault = fault.kind if fault else None
        if self.config.latency:
            await asyncio.sleep(self.config.latency)
        if self.config.reject_response_format and "response_format" in body:
            status = (
                400
                if self.config.reject_response_format is True
                else int(self.config.reject_response_format)
            )
            entry.status = status
            self._write(
                writer,
                status,
                _error_body("response_format is not supported by this server", "invalid_request"),
            )
            return True
        if fault is not None and fault.kind in _ERROR_FAULTS:
            return await self._fault_reply(entry, fault, writer)
        if fault is not None and fault.kind == "slow":
            await asyncio.sleep(fault.delay)
        payload = self._completion(n, body, fault)
        if fault is not None and fault.kind == "drip":
            return await self._drip(writer, json.dumps(payload).encode(), fault)
        self._write(writer, 200, json.dumps(payload).encode())
        return True

    async def _fault_reply(
        self, entry: LoggedRequest, fault: Fault, writer: asyncio.StreamWriter
    ) -> bool:
        """Answer with the fault instead of a completion (dropped, an error status, a broken
        or endless body); False when the connection was dropped."""
        if fault.kind == "drop":
            entry.status = 0
            writer.transport.abort()
            return False
        if fault.kind == "rate_limit":
            extra: dict[str, str] = {}
            if fault.retry_after_ms is not None:
                extra["retry-after-ms"] = str(fault.retry_after_ms)
            elif fault.retry_after is not None:
                extra["Retry-After"] = f"{fault.retry_after:g}"
            entry.status = 429
            self._write(writer, 429, _error_body("rate limited", "rate_limit_exceeded"), extra)
            return True
        if fault.kind == "quota":
            entry.status = 429
            self._write(writer, 429, _error_body("You exceeded your quota.", "insufficient_quota"))
            return True
        if fault.kind == "status":
            entry.status = fault.status
            self._write(writer, fault.status, _error_body(f"error {fault.status}", "server"))
            return True
        if fault.kind == "malformed":
            self._write(writer, 200, b'{"id": "chatcmpl-x", "object": "chat.completion", "choi')
            return True
        if fault.kind == "raw":
            entry.status = fault.status
            self._write(writer, fault.status, fault.payload, dict(fault.headers))
            return True
        if fault.kind == "endless_chunked":
            return await self._endless_chunked(writer)
        raise AssertionError(f"not an error fault: {fault.kind}")

    def _completion(self, n: int, body: dict[str, Any], fault: Fault | None) -> dict[str, Any]:
        """The chat completion answering ``body`` (the reply script; a truncate fault).

        A reasoning model's usage says how many of its completion tokens were reasoning
        (``completion_tokens_details.reasoning_tokens``, counted in ``completion_tokens``
        as the API counts them): here as many as the reply's words.
        """
        text = self._reply_text(body)
        finish = "stop"
        if fault is not None and fault.kind == "truncate":
            text = text[: max(1, len(text) // 2)]
            finish = "length"
        prompt_words = sum(_words(str(m.get("content", ""))) for m in body.get("messages", []))
        payload: dict[str, Any] = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_words,
                "completion_tokens": _words(text),
                "total_tokens": prompt_words + _words(text),
            },
        }
        if is_reasoning_model(self.rules_model(body)):
            reasoning = _words(text)
            usage = payload["usage"]
            usage["completion_tokens"] += reasoning
            usage["total_tokens"] += reasoning
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
        return payload
