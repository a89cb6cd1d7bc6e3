"""The reply size bound on the general HTTP clients (httpx, httpx2, the openai SDK's).

The built-in client (:mod:`conflicteval.models.http11`) bounds a reply as it reads it.
httpx reads a whole body, and decodes its ``gzip`` content coding without a bound, so a
reply through it (``$CONFLICTEVAL_HTTP_CLIENT=httpx``, a proxy, a redirect, the SDK
transport) could grow without end: an endless chunked body, or a megabyte of gzip holding
gigabytes. :func:`bound_hook` is a response event hook that puts the same bound on those
clients: it wraps the response's byte stream in one that decodes the content codings
itself in bounded steps (:class:`~conflicteval.models.http11_reply.BoundedDecoder`) and
stops past the bound, and removes ``Content-Encoding`` so that httpx does not decode twice.
A reply over the bound ends the read with :class:`~conflicteval.models.http11_reply.HTTPError`
naming the bound (a connection error to the caller, as on the built-in client).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from types import ModuleType
from typing import Any

from conflicteval.models.http11_reply import BoundedDecoder

__all__ = ["bound_hook"]


@functools.lru_cache(maxsize=4)
def _stream_class(hx: ModuleType) -> type:
    """A bounded ``AsyncByteStream`` of the client module ``hx`` (httpx and httpx2 alike)."""

    class BoundedStream(hx.AsyncByteStream):  # type: ignore[name-defined]
        def __init__(self, inner: Any, decoder: BoundedDecoder) -> None:
            self.inner = inner
            self.decoder = decoder

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for raw in self.inner:
                for part in self.decoder.feed(raw):
                    yield part
            for part in self.decoder.finish():
                yield part

        async def aclose(self) -> None:
            await self.inner.aclose()

    return BoundedStream


def bound_hook(hx: ModuleType, limit: int) -> Callable[[Any], Awaitable[None]]:
    """A response event hook for an ``hx.AsyncClient`` bounding every reply to ``limit`` bytes.

    Args:
        hx: The client's module (``httpx`` or ``httpx2``).
        limit: The largest reply body accepted, on the wire and once decoded.
    """
    stream_class = _stream_class(hx)

    async def hook(response: Any) -> None:
        codings = response.headers.get("content-encoding", "")
        response.stream = stream_class(response.stream, BoundedDecoder(codings, limit))
        if codings:
            del response.headers["content-encoding"]  # decoded here, not again by httpx

    return hook
