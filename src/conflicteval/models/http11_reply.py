"""Reading one HTTP/1.1 reply for :mod:`conflicteval.models.http11`: head, framing, codings.

The status line and headers are parsed strictly (a malformed line is an error, never a
guess); the body is framed by ``Transfer-Encoding: chunked``, ``Content-Length`` or the
end of the connection, as RFC 9112 orders them, and its ``gzip`` / ``deflate`` content
coding decoded. A connection cut short is an :class:`HTTPError` worded as httpx (h11)
words it, so a record reads the same whichever client carried the call.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Mapping

__all__ = [
    "BoundedDecoder",
    "HTTPError",
    "content_length",
    "decode",
    "keep_alive_until",
    "parse_head",
    "read_chunked",
    "read_to_close",
    "too_large",
]


class HTTPError(Exception):
    """A connection or protocol failure (the reply, if any, is unusable)."""


def parse_head(head: bytes) -> tuple[str, int, dict[str, str]]:
    """The version, status and headers of a status line + header block (ends in CRLF CRLF)."""
    lines = head.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    code = rest[:3]
    if version not in ("HTTP/1.1", "HTTP/1.0") or not (code.isdigit() and len(code) == 3):
        raise HTTPError(f"malformed status line: {lines[0][:100]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip() or line[0] in " \t":
            raise HTTPError(f"malformed header line: {line[:100]!r}")
        name = name.lower()
        value = value.strip(" \t")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return version, int(code), headers


def content_length(headers: Mapping[str, str]) -> int | None:
    value = headers.get("content-length")
    if value is None:
        return None
    values = {v.strip() for v in value.split(",")}
    if len(values) != 1:
        raise HTTPError(f"conflicting Content-Length: {value[:100]!r}")
    (text,) = values
    if not text.isdigit():
        raise HTTPError(f"malformed Content-Length: {text[:100]!r}")
    return int(text)


def keep_alive_until(version: str, headers: Mapping[str, str], now: float) -> float | None:
    """When the connection stops being reusable (monotonic time), or None when it is not."""
    tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    if "close" in tokens or (version == "HTTP/1.0" and "keep-alive" not in tokens):
        return None
    params = headers.get("keep-alive")
    if params:  # "timeout=5, max=100": stop using it a little before the server drops it
        for part in params.split(","):
            name, _, value = part.strip().partition("=")
            if name.lower() == "timeout" and value.strip().isdigit():
                return now + max(0.0, int(value) - 0.5)
    return float("inf")


_CUT_CHUNKED = (
    "peer closed connection without sending complete message body (incomplete chunked read)"
)
_CUT_MID_LINE = "peer unexpectedly closed connection"


async def _chunk_line(reader: asyncio.StreamReader) -> bytes:
    """One CRLF-ended line of a chunked body (a chunk size or a trailer)."""
    try:
        return await reader.readuntil(b"\r\n")
    except asyncio.IncompleteReadError as exc:  # httpx's (h11's) words for either case
        raise HTTPError(_CUT_MID_LINE if exc.partial else _CUT_CHUNKED) from None


async def read_chunked(reader: asyncio.StreamReader, limit: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        line = await _chunk_line(reader)
        size_text = line.split(b";", 1)[0].strip()
        if not size_text or size_text.strip(b"0123456789abcdefABCDEF"):
            raise HTTPError(f"malformed chunk size: {size_text[:40]!r}")
        size = int(size_text, 16)
        if size == 0:
            while await _chunk_line(reader) != b"\r\n":  # trailers: read and dropped
                pass
            return b"".join(parts)
        total += size
        if total > limit:
            raise HTTPError(too_large(limit))
        try:
            chunk = await reader.readexactly(size + 2)
        except asyncio.IncompleteReadError:
            raise HTTPError(_CUT_CHUNKED) from None
        if chunk[-2:] != b"\r\n":
            raise HTTPError("malformed chunked body: a chunk does not end with CRLF")
        parts.append(chunk[:-2])


async def read_to_close(reader: asyncio.StreamReader, limit: int) -> bytes:
    parts: list[bytes] = []
    total = 0
    while True:
        data = await reader.read(65536)
        if not data:
            return b"".join(parts)
        total += len(data)
        if total > limit:
            raise HTTPError(too_large(limit))
        parts.append(data)


STEP = 64 * 1024
"""Most bytes one decompression step may produce (the decoded size is checked after each)."""


def too_large(limit: int) -> str:
    """The error of a reply over the bound, naming the bound."""
    return f"response body larger than {limit} bytes (the reply size bound)"


class _Inflate:
    """One ``gzip`` / ``deflate`` layer, decoded in steps of at most :data:`STEP` bytes."""

    def __init__(self, coding: str, limit: int) -> None:
        self.coding = coding
        self.limit = limit
        self.total = 0
        self.started = False
        wbits = zlib.MAX_WBITS | 16 if coding != "deflate" else zlib.MAX_WBITS
        self.obj = zlib.decompressobj(wbits)

    def feed(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        try:
            while data or not self.started:
                if self.obj.eof:  # what follows the stream's end is ignored, as httpx does
                    break
                try:
                    piece = self.obj.decompress(data, STEP)
                except zlib.error:
                    if self.coding != "deflate" or self.started:
                        raise
                    # raw deflate, as some servers send it
                    self.obj = zlib.decompressobj(-zlib.MAX_WBITS)
                    piece = self.obj.decompress(data, STEP)
                self.started = True
                self.total += len(piece)
                if self.total > self.limit:
                    raise HTTPError(too_large(self.limit))
                if piece:
                    out.append(piece)
                data = self.obj.unconsumed_tail
                if not data and len(piece) < STEP:
                    break
        except zlib.error as exc:
            raise HTTPError(f"malformed {self.coding} body: {exc}") from None
        return out

    def finish(self) -> list[bytes]:
        out = self.feed(b"")
        if not self.obj.eof:
            raise HTTPError(f"malformed {self.coding} body: incomplete or truncated stream")
        return out


class BoundedDecoder:
    """Decode a body's content codings as it arrives, never holding more than ``limit`` bytes.

    A reply is bounded by its decoded size, not its size on the wire: a megabyte of gzip
    can hold a gigabyte of zeros, and each of stacked codings (``gzip, gzip``) multiplies
    it. The raw bytes fed and the output of every layer are counted; past ``limit`` the
    reply is an :class:`HTTPError` naming the bound, after at most one step of
    :data:`STEP` bytes more than the bound was produced.

    Args:
        codings: The ``Content-Encoding`` header (empty: none); ``gzip``, ``x-gzip``,
            ``deflate`` and ``identity``, listed in the order they were applied.
        limit: The largest body accepted, raw and decoded.
    """

    def __init__(self, codings: str, limit: int) -> None:
        self.limit = limit
        self.raw = 0
        self.layers: list[_Inflate] = []
        for one in reversed(codings.split(",")):
            coding = one.strip().lower()
            if coding in ("", "identity"):
                continue
            if coding not in ("gzip", "x-gzip", "deflate"):
                raise HTTPError(f"unsupported Content-Encoding: {coding[:40]!r}")
            self.layers.append(_Inflate(coding, limit))

    def feed(self, data: bytes) -> list[bytes]:
        """The decoded bytes ``data`` gives (raw bytes counted against the bound too)."""
        self.raw += len(data)
        if self.raw > self.limit:
            raise HTTPError(too_large(self.limit))
        parts = [data] if data else []
        for layer in self.layers:
            parts = [out for part in parts for out in layer.feed(part)]
        return parts

    def finish(self) -> list[bytes]:
        """The last decoded bytes; an error when a coded stream ended early."""
        parts: list[bytes] = []
        for layer in self.layers:
            parts = [out for part in parts for out in layer.feed(part)] + layer.finish()
        return parts


def decode(content: bytes, codings: str, limit: int) -> bytes:
    """``content`` with its content codings (the header's value) removed, within ``limit``."""
    decoder = BoundedDecoder(codings, limit)
    return b"".join(decoder.feed(content) + decoder.finish())
