"""The test server's HTTP/1.1 plumbing: lifecycle, reading requests, writing replies.

A background thread runs its own event loop and serves keep-alive connections on a
loopback address; every request is logged. What a request gets as its answer is up
to the subclass (``_respond``); a reply or fault function of the test that raises,
whatever it raises, is answered with a 500 naming the error (:meth:`_answer_or_500`).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from conflicteval.testing.faults import Fault

_S = TypeVar("_S", bound="HTTPServerBase")
_ENDLESS_LENGTH = 1 << 20
"""The length an endless drip announces: under the reply bound, never reached by the drip."""


@dataclass
class LoggedRequest:
    """One request as the server saw it."""

    n: int
    time: float
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    fault: str | None
    status: int
    raw: bytes = b""
    """The request body's bytes as received (empty when bodies are not logged)."""

    @property
    def prompt(self) -> str:
        """The last message's content (empty when there is none)."""
        msgs = (self.body or {}).get("messages") or []
        return str(msgs[-1].get("content", "")) if msgs else ""


@dataclass(frozen=True)
class RawRequest:
    """One request as read from the wire, before it is logged and answered."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes


def describe_error(exc: BaseException) -> str:
    """``Type: message`` of an exception, also when its ``str()`` itself raises."""
    try:
        text = str(exc)
    except Exception:  # a test's own exception class with a broken __str__
        text = "<its message could not be read>"
    return f"{type(exc).__name__}: {text}"


def _error_body(message: str, code: str) -> bytes:
    return json.dumps(
        {"error": {"message": message, "type": code, "code": code, "param": None}}
    ).encode()


class HTTPServerBase:
    """A loopback HTTP/1.1 server in its own thread; subclasses answer requests.

    Attributes:
        requests: The request log (list of LoggedRequest), in arrival order.
        max_in_flight: The most requests the server was handling at once.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if not host.startswith("127.") and host not in ("localhost", "::1"):
            raise ValueError("the test server binds to loopback addresses only")
        self.host = host
        self.port = port
        self.requests: list[LoggedRequest] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._ready = threading.Event()
        self._count = 0
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    # -- lifecycle ----------------------------------------------------------
    def start(self: _S) -> _S:
        """Start serving in a background thread; returns self once listening."""
        self._ready.clear()  # a restart waits for its own server, not the previous one's signal
        self._thread = threading.Thread(target=self._run, name="openai-compat-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(60):  # guards against a hang only: generous under load
            raise RuntimeError("test server did not start")
        return self

    def stop(self) -> None:
        """Stop serving: every connection closed and the thread joined when this returns."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(loop.stop)
            except RuntimeError:  # closed since the check: its thread is ending anyway
                pass
        thread = self._thread
        if thread is not None:
            thread.join(60)  # guards against a hang only: generous under load
            if thread.is_alive():
                # going on would leave its loop holding the port a restart binds again
                raise RuntimeError("test server did not stop (is a reply function blocking?)")

    def __enter__(self: _S) -> _S:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)

        async def boot() -> asyncio.AbstractServer:
            server = await asyncio.start_server(self._handle, self.host, self.port, backlog=1024)
            self.port = server.sockets[0].getsockname()[1]
            return server

        # this thread closes its own server and connections (never ``self._server``, which a
        # restart may already have replaced with the next thread's)
        server = self._server = loop.run_until_complete(boot())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            server.close()
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            # every handler ends (its connection closed), then the closed transports let go
            # of their sockets: a client still waiting on one sees it end, not its timeout
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(asyncio.sleep(0))
            loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line:
                    break
                parts = request_line.decode("latin-1").split()
                if len(parts) < 2:
                    break
                method, path = parts[0], parts[1]
                headers: dict[str, str] = {}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                raw = await reader.readexactly(length) if length else b""
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                try:
                    keep = await self._respond(RawRequest(method, path, headers, raw), writer)
                finally:
                    self.in_flight -= 1
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass
        finally:
            try:
                writer.close()
            except RuntimeError:
                pass

    async def _respond(self, request: RawRequest, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False closes the connection."""
        raise NotImplementedError

    def _log_request(
        self, request: RawRequest, *, log_bodies: bool = True
    ) -> tuple[LoggedRequest, Any]:
        """Number ``request``, read its body as JSON and log it (status 200 until answered).

        Returns the log entry and the body (None when there is none or it is not JSON); with
        ``log_bodies`` False the entry keeps neither the body nor its bytes.
        """
        n = self._count
        self._count += 1
        body: Any = None
        if request.raw:
            try:
                body = json.loads(request.raw)
            except ValueError:
                body = None
        entry = LoggedRequest(
            n=n,
            time=time.monotonic(),
            method=request.method,
            path=request.path,
            headers=request.headers,
            body=body if log_bodies else None,
            fault=None,
            status=200,
            raw=request.raw if log_bodies else b"",
        )
        self.requests.append(entry)
        return entry, body

    async def _answer_or_500(
        self,
        entry: LoggedRequest,
        writer: asyncio.StreamWriter,
        answer: Coroutine[Any, Any, bool],
    ) -> bool:
        """Await ``answer`` (it writes the reply); False closes the connection.

        When a reply or fault function of the test raised instead, the request is answered
        with a 500 naming the error, whatever the function raised: an exception whose
        ``str()`` fails, or a BaseException (``pytest.fail``, ``SystemExit``, a
        ``KeyboardInterrupt`` raised by the function itself: no Ctrl-C reaches this thread),
        which would otherwise drop the connection or end the whole server's event loop.
        Only the loop's own cancellation (the server stopping) passes through.
        """
        try:
            return await answer
        except ConnectionError:
            return False
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except BaseException as exc:  # the test's function raised, whatever it raised: say so
            entry.status = 500
            try:
                self._write(
                    writer, 500, self._server_error_body(f"test server: {describe_error(exc)}")
                )
            except (ConnectionError, RuntimeError):
                return False
            return True

    def _server_error_body(self, message: str) -> bytes:
        """The body of the 500 answering a request whose reply or fault function raised."""
        return _error_body(message, "server_error")

    async def _drip(self, writer: asyncio.StreamWriter, payload: bytes, fault: Fault) -> bool:
        """Headers now, then one byte of the body per ``fault.delay`` seconds."""
        # An endless body announces a length under any reply bound (1 MiB, which a drip
        # of one byte per interval never reaches): the attempt can only end by a deadline,
        # never by a refusal of the announced size that could race that deadline.
        length = _ENDLESS_LENGTH if fault.endless else len(payload)
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\nConnection: keep-alive\r\n\r\n"
        )
        writer.write(head.encode("latin-1"))
        await writer.drain()
        index = 0
        while fault.endless or index < len(payload):
            if writer.is_closing():
                return False
            await asyncio.sleep(fault.delay)
            writer.write(payload[index : index + 1] if index < len(payload) else b" ")
            index += 1
            await writer.drain()  # raises ConnectionError once the client has gone
        return not fault.endless

    async def _endless_chunked(self, writer: asyncio.StreamWriter) -> bool:
        """A chunked 200 whose body never ends: 64 KiB chunks of spaces until the client leaves."""
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
        while not writer.is_closing():
            writer.write(chunk)
            await writer.drain()  # waits while the client does not read; raises once it left
        return False

    @staticmethod
    def _write(
        writer: asyncio.StreamWriter,
        status: int,
        payload: bytes,
        extra_headers: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests"}.get(
            status, "Error"
        )
        head = [
            f"HTTP/1.1 {status} {reason}",
            f"Content-Type: {content_type}",
            f"Content-Length: {len(payload)}",
            "Connection: keep-alive",
        ]
        for k, v in (extra_headers or {}).items():
            head.append(f"{k}: {v}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
