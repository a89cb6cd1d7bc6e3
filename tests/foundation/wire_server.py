"""A loopback server answering each request with the next raw reply of a script.

Shared by the tests of the built-in HTTP/1.1 client: built on the project's test-server
plumbing (``HTTPServerBase``), so framing, keep-alive, closed connections and size
bounds are exercised on real sockets.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from conflicteval.models import http11
from conflicteval.testing.http_plumbing import HTTPServerBase, LoggedRequest, RawRequest

Step = tuple[bytes, bool] | Callable[[asyncio.StreamWriter], Awaitable[bool]]


def completion(text: str = "hello") -> bytes:
    return json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()


def reply(body: bytes, *head: str, status: str = "200 OK", version: str = "HTTP/1.1") -> bytes:
    lines = [f"{version} {status}", "Content-Type: application/json", *head]
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in head):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def chunked(body: bytes, size: int = 7) -> bytes:
    parts = [body[i : i + size] for i in range(0, len(body), size)]
    out = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts)
    return out + b"0\r\nX-Trailer: t\r\n\r\n"


OK = (reply(completion()), True)


class WireServer(HTTPServerBase):
    """Answers each request with the next step of ``script`` (then a plain completion)."""

    def __init__(self, script: list[Step]) -> None:
        super().__init__()
        self.script = list(script)
        self.connections = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await super()._handle(reader, writer)

    async def _respond(self, request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        self._count += 1
        method, path, headers, raw = request.method, request.path, request.headers, request.raw
        self.requests.append(
            LoggedRequest(self._count, time.monotonic(), method, path, headers, None, None, 0, raw)
        )
        step = self.script.pop(0) if self.script else OK
        if callable(step):
            return await step(writer)
        data, keep = step
        writer.write(data)
        await writer.drain()
        return keep


def post(pool: http11.Pool, server: WireServer, n: int = 1, pause: float = 0.0) -> list[Any]:
    """``n`` POSTs one after another on one event loop; each reply or exception."""

    async def run() -> list[Any]:
        out: list[Any] = []
        for _ in range(n):
            try:
                out.append(
                    await pool.post(server.base_url + "/chat/completions", b"{}", timeout=30)
                )
            except Exception as exc:
                out.append(exc)
            await asyncio.sleep(pause)
        await pool.aclose()
        return out

    return asyncio.run(run())


def new_pool(**options: Any) -> http11.Pool:
    return http11.Pool({"Content-Type": "application/json"}, **options)
