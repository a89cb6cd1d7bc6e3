"""A minimal HTTP/1.1 client on asyncio streams, for one job: POST a JSON body, read the reply.

The lean transport (:mod:`conflicteval.models.http_transport`) posts chat
completion bodies to one server, many at a time, over and over. A general HTTP
client spends most of its CPU per call on machinery this job does not need (its
connection pool scans, request and response models, event hooks); this client
does only what the job needs:

* a pool of keep-alive connections per (scheme, host, port), one pool per
  :class:`Pool` object (the transport keeps one per event loop);
* ``POST`` with ``Content-Length``; the reply framed by ``Content-Length``,
  ``Transfer-Encoding: chunked`` or the end of the connection; ``gzip`` and
  ``deflate`` content codings decoded;
* ``https`` through :func:`ssl.create_default_context` (``$SSL_CERT_FILE`` /
  ``$SSL_CERT_DIR`` honoured), offering only HTTP/1.1 by ALPN;
* a connection goes back to the pool only when the server allows it (HTTP/1.1
  without ``Connection: close``, or HTTP/1.0 with ``keep-alive``) and its reply
  was read to the end; a connection the server closed while it sat idle is
  dropped before use, and one found closed as the request goes out (nothing of
  the reply read, after at least :data:`STALE_IDLE` seconds idle: the race of a
  server's idle timeout) is retried once on a new connection;
* the whole attempt bounded by ``timeout`` (connecting, sending, reading);
* the header block bounded by ``max_header_bytes`` and the body by
  ``max_body_bytes``, on the wire and once decoded (decoded in bounded steps).

It does not do proxies, redirects, HTTP/2, ``Expect: 100-continue``, cookies or
authentication schemes: :func:`applies_to` says when the transport must use a
general client (httpx) instead. Errors are :class:`HTTPError` (connection and
protocol problems, worded as httpx words them where httpx has a wording) and
:class:`TimeoutError`.
"""

from __future__ import annotations

import asyncio
import functools
import os
import socket
import ssl
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from conflicteval.models.http11_reply import (
    HTTPError,
    content_length,
    decode,
    keep_alive_until,
    parse_head,
    read_chunked,
    read_to_close,
    too_large,
)

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_HEADER_BYTES",
    "STALE_IDLE",
    "HTTPError",
    "Pool",
    "Reply",
    "ServerDisconnected",
    "applies_to",
]

MAX_HEADER_BYTES = 64 * 1024
"""The largest status line + header block accepted (httpx's h11 allows 64 KiB too)."""
MAX_BODY_BYTES = 64 * 1024 * 1024
"""The largest reply body accepted; a chat completion is rarely above a few hundred KiB."""
MAX_IDLE_PER_HOST = 100
"""Idle connections kept per (scheme, host, port) (the openai SDK's keep-alive pool size)."""
STALE_IDLE = 0.5
"""Seconds a pooled connection must have been idle for a lost reply to be retried at once.

A server that closes an idle connection just as a request goes out on it never
saw the request, so sending it again on a new connection is safe. A connection
reused within this time and lost before any byte of the reply is a failure like
any dropped connection (the caller's retry policy decides), as with httpx.
"""
_NO_RESPONSE = "Server disconnected without sending a response."
REDIRECTS = frozenset({301, 302, 303, 307, 308})

TIMEOUT_ERRORS: tuple[type[BaseException], ...] = (asyncio.TimeoutError, TimeoutError)


class ServerDisconnected(HTTPError):
    """The connection ended before any byte of the reply."""


@dataclass
class Reply:
    """A reply: status, headers (lower-case names; repeated ones joined by ", "), body."""

    status: int
    headers: dict[str, str]
    content: bytes


@dataclass
class _Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = 0.0
    expires: float = float("inf")
    reused: bool = False

    def usable(self, now: float) -> bool:
        """Whether a pooled connection can carry another request (the server has not closed it)."""
        return (
            now < self.expires
            and not self.reader.at_eof()
            and not self.writer.is_closing()
            and self.reader.exception() is None
        )

    def close(self) -> None:
        try:
            self.writer.close()
        except RuntimeError:  # its event loop is closed: the socket closes when collected
            pass


@dataclass(frozen=True)
class _Target:
    """A URL split once: where to connect and the request's first lines."""

    scheme: str
    host: str
    port: int
    path: str
    host_header: str
    key: tuple[str, str, int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", (self.scheme, self.host, self.port))


@functools.lru_cache(maxsize=256)
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HTTPError(f"not an http(s) URL: {url!r}")
    default = 443 if parts.scheme == "https" else 80
    port = parts.port or default
    host = parts.hostname
    shown = f"[{host}]" if ":" in host else host
    host_header = shown if port == default else f"{shown}:{port}"
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target(parts.scheme, host, port, path, host_header)


def applies_to(url: str) -> bool:
    """Whether this client can carry requests to ``url``: http(s), and no proxy for its host.

    A proxy set in the environment (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, any case,
    minus ``NO_PROXY``) is honoured by httpx, not by this client, so the transport uses httpx.
    """
    import urllib.request  # here: about 50 ms to import, needed once per base URL

    try:
        target = _target(url)
    except (HTTPError, ValueError):
        return False
    proxies = urllib.request.getproxies_environment()
    if not (proxies.get(target.scheme) or proxies.get("all")):
        return True
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    return bool(bypass(target.host, proxies))


@functools.lru_cache(maxsize=1)
def ssl_context() -> ssl.SSLContext:
    """The TLS context: the system's trust store (or ``$SSL_CERT_FILE`` / ``$SSL_CERT_DIR``).

    When the system store is empty and no variable is set, certifi's bundle (installed with
    httpx) is loaded, which is what httpx trusts by default.
    """
    cafile = os.environ.get("SSL_CERT_FILE") or None
    capath = os.environ.get("SSL_CERT_DIR") or None
    ctx = ssl.create_default_context(cafile=cafile, capath=capath)
    if cafile is None and capath is None and not ctx.cert_store_stats().get("x509_ca"):
        try:
            import certifi

            ctx.load_verify_locations(certifi.where())
        except (ImportError, OSError):
            pass
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


class Pool:
    """Keep-alive connections per (scheme, host, port) and the POST that uses them.

    Args:
        headers: Headers every request carries (``Host`` and ``Content-Length`` are added).
        max_header_bytes: Largest status line + header block accepted.
        max_body_bytes: Largest reply body accepted.

    A pool belongs to the event loop it is first used on (its connections do).
    """

    def __init__(
        self,
        headers: Mapping[str, str],
        *,
        max_header_bytes: int = MAX_HEADER_BYTES,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self.headers = dict(headers)
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        self.max_header_bytes = max_header_bytes
        self.max_body_bytes = max_body_bytes
        self._idle: dict[tuple[str, str, int], list[_Conn]] = {}
        self._closed = False
        self.opened = 0
        """Connections opened so far (for tests and benchmarks)."""

    async def post(
        self,
        url: str,
        body: bytes,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Reply:
        """POST ``body`` to ``url``; the reply, whatever its status.

        Raises:
            HTTPError: The connection failed or the reply broke the protocol or a size bound.
            TimeoutError: ``timeout`` seconds passed before the reply was read to its end.
        """
        if self._closed:
            raise HTTPError("the HTTP client is closed")
        target = _target(url)
        path = target.path
        if params:
            path += ("&" if "?" in path else "?") + urlencode(params, doseq=True)
        merged: dict[str, tuple[str, str]] = {}
        if headers:
            merged = {k.lower(): (k, v) for k, v in self.headers.items()}
            merged.update((k.lower(), (k, str(v))) for k, v in headers.items())
            fixed = "".join(f"{k}: {v}\r\n" for k, v in merged.values())
        else:
            fixed = self._fixed
        text = (
            f"POST {path} HTTP/1.1\r\nHost: {target.host_header}\r\n{fixed}"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        if text.count("\n") != len(merged or self.headers) + 4:  # one per line, none inside
            raise HTTPError("Illegal header value: a header name or value holds a line break")
        try:
            head = text.encode("ascii")
        except UnicodeEncodeError as exc:  # httpx refuses these too (it encodes headers as ASCII)
            raise HTTPError(f"a header is not ASCII: {exc.reason} at {exc.start}") from None
        request = head + body
        if timeout is None:
            return await self._exchange(target, request)
        if sys.version_info >= (3, 11):
            async with asyncio.timeout(timeout):
                return await self._exchange(target, request)
        return await asyncio.wait_for(self._exchange(target, request), timeout)  # pragma: no cover

    async def _exchange(self, target: _Target, request: bytes) -> Reply:
        now = time.monotonic()
        conn = self._take(target.key, now)
        if conn is not None and now - conn.idle_since >= STALE_IDLE:
            try:
                return await self._send(conn, target, request)
            except ServerDisconnected:  # closed by the server as the request went out: once more
                pass
        elif conn is not None:
            return await self._send(conn, target, request)
        return await self._send(await self._connect(target), target, request)

    def _take(self, key: tuple[str, str, int], now: float) -> _Conn | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.usable(now):
                return conn
            conn.close()
        return None

    async def _connect(self, target: _Target) -> _Conn:
        ctx = ssl_context() if target.scheme == "https" else None
        try:
            reader, writer = await asyncio.open_connection(
                target.host,
                target.port,
                ssl=ctx,
                server_hostname=target.host if ctx is not None else None,
                limit=self.max_header_bytes,
            )
        except ssl.SSLError as exc:
            raise HTTPError(str(exc)) from exc
        except OSError as exc:
            if isinstance(exc, TIMEOUT_ERRORS):
                raise
            if isinstance(exc, socket.gaierror):  # "[Errno -2] Name or service not known"
                raise HTTPError(str(exc)) from exc
            # httpx's words for a refused or unreachable address (the OS error is the cause)
            raise HTTPError("All connection attempts failed") from exc
        self.opened += 1
        return _Conn(reader, writer)

    async def _send(self, conn: _Conn, target: _Target, request: bytes) -> Reply:
        """Write the request on ``conn``, read the reply; the connection is pooled or closed."""
        done = False
        try:
            try:
                conn.writer.write(request)
                if conn.writer.transport.get_write_buffer_size():
                    await conn.writer.drain()
            except (ConnectionError, RuntimeError) as exc:
                raise ServerDisconnected(_os_error_text(exc)) from exc
            reply, expires = await self._read(conn.reader)
            done = True
        finally:
            if not done:  # a failure or a cancellation: the connection's state is unknown
                conn.close()
        if expires is None or self._closed:
            conn.close()
        else:
            conn.reused = True
            conn.expires = expires
            conn.idle_since = time.monotonic()
            idle = self._idle.setdefault(target.key, [])
            if len(idle) < MAX_IDLE_PER_HOST:
                idle.append(conn)
            else:
                conn.close()
        return reply

    async def _read(self, reader: asyncio.StreamReader) -> tuple[Reply, float | None]:
        """One reply from ``reader``, and until when its connection may be reused."""
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError as exc:
                    # httpx's words, whether or not part of the head came; only a reply of
                    # which nothing came may be sent again (see STALE_IDLE)
                    if not exc.partial:
                        raise ServerDisconnected(_NO_RESPONSE) from None
                    raise HTTPError(_NO_RESPONSE) from None
                version, status, headers = parse_head(head)
                if status == 101 or status >= 200:
                    break  # 1xx interim replies (103 Early Hints, ...) precede the real one
            content, reusable = await self._read_body(reader, status, headers)
        except asyncio.LimitOverrunError:
            raise HTTPError(
                f"response status line and headers larger than {self.max_header_bytes} bytes"
            ) from None
        except ConnectionError as exc:
            raise HTTPError(_os_error_text(exc)) from exc
        if status == 101:
            raise HTTPError("unexpected 101 Switching Protocols")
        coding = headers.get("content-encoding")
        if coding:  # bounded by the decoded size, layer by layer (a gzip bomb stops at it)
            content = decode(content, coding, self.max_body_bytes)
        now = time.monotonic()
        expires = keep_alive_until(version, headers, now) if reusable else None
        return Reply(status, headers, content), expires

    async def _read_body(
        self, reader: asyncio.StreamReader, status: int, headers: Mapping[str, str]
    ) -> tuple[bytes, bool]:
        """The body and whether the connection may carry another request after it."""
        if status in (204, 304):
            return b"", True
        coding = headers.get("transfer-encoding")
        if coding is not None:
            codings = [c.strip().lower() for c in coding.split(",") if c.strip()]
            if codings != ["chunked"]:
                raise HTTPError(f"unsupported Transfer-Encoding: {coding[:60]!r}")
            return await read_chunked(reader, self.max_body_bytes), True
        length = content_length(headers)
        if length is None:
            return await read_to_close(reader, self.max_body_bytes), False
        if length > self.max_body_bytes:
            raise HTTPError(too_large(self.max_body_bytes))
        try:
            return (await reader.readexactly(length) if length else b""), True
        except asyncio.IncompleteReadError as exc:
            raise HTTPError(
                "peer closed connection without sending complete message body "
                f"(received {len(exc.partial)} bytes, expected {length})"
            ) from None

    async def aclose(self) -> None:
        """Close every idle connection; connections in use close when their request ends."""
        self._closed = True
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()

    def idle_connections(self) -> int:
        """The number of pooled idle connections (for tests and benchmarks)."""
        return sum(len(v) for v in self._idle.values())


def _os_error_text(exc: BaseException) -> str:
    """An OS error's words as httpx shows them (``[Errno 104] Connection reset by peer``)."""
    if isinstance(exc, OSError) and exc.errno is not None and exc.strerror:
        return f"[Errno {exc.errno}] {exc.strerror}"
    return str(exc) or type(exc).__name__
