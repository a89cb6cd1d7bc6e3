"""The faults the test server injects: one per request, by script or at random."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

FaultFn = Callable[[int, dict[str, Any]], "Fault | None"]


@dataclass(frozen=True)
class Fault:
    """A fault to inject into one request.

    Use the constructors: :meth:`rate_limit`, :meth:`status_code`, :meth:`quota`,
    :meth:`slow`, :meth:`drip`, :meth:`drop`, :meth:`malformed`, :meth:`truncate`,
    :meth:`raw`, :meth:`gzip_bomb`, :meth:`endless_chunked`.
    """

    kind: str
    status: int = 200
    retry_after: float | None = None
    retry_after_ms: int | None = None
    delay: float = 0.0
    endless: bool = False
    payload: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def rate_limit(cls, retry_after: float | None = 1.0, *, ms: int | None = None) -> Fault:
        """429 with ``Retry-After: <seconds>`` (or ``retry-after-ms`` when ``ms`` is given)."""
        return cls("rate_limit", status=429, retry_after=retry_after, retry_after_ms=ms)

    @classmethod
    def status_code(cls, status: int) -> Fault:
        """An error status with an OpenAI-style error body (500, 503, 400, 401, ...)."""
        return cls("status", status=status)

    @classmethod
    def quota(cls) -> Fault:
        """429 with error code ``insufficient_quota`` (never worth retrying)."""
        return cls("quota", status=429)

    @classmethod
    def slow(cls, delay: float) -> Fault:
        """Answer normally, but only after ``delay`` seconds (beyond a client's timeout)."""
        return cls("slow", delay=delay)

    @classmethod
    def drip(cls, interval: float = 1.0, *, endless: bool = False) -> Fault:
        """Send the headers at once, then the body one byte every ``interval`` seconds.

        Each byte comes well within a per-read timeout, so only a deadline on
        the whole attempt stops the wait. With ``endless`` the body never ends
        (it announces a length of 1 MiB, under the client's reply bound, and drips
        spaces), so only a deadline ends the attempt, never a refusal of its size.
        """
        return cls("drip", delay=interval, endless=endless)

    @classmethod
    def raw(
        cls, payload: bytes, *, status: int = 200, headers: dict[str, str] | None = None
    ) -> Fault:
        """Answer with these body bytes (and extra headers) as they are: a hostile reply."""
        return cls("raw", status=status, payload=payload, headers=tuple((headers or {}).items()))

    @classmethod
    def gzip_bomb(cls, size: int, *, layers: int = 1) -> Fault:
        """A small body that decodes to ``size`` bytes of zeros, gzip applied ``layers`` times.

        It is sent with ``Content-Encoding: gzip`` (``gzip, gzip`` for two layers, ...).
        """
        import gzip

        payload = gzip.compress(b"\0" * size, compresslevel=9)
        for _ in range(layers - 1):
            payload = gzip.compress(payload, compresslevel=9)
        return cls.raw(payload, headers={"Content-Encoding": ", ".join(["gzip"] * layers)})

    @classmethod
    def endless_chunked(cls) -> Fault:
        """A 200 whose ``Transfer-Encoding: chunked`` body never ends (spaces, as fast as read)."""
        return cls("endless_chunked")

    @classmethod
    def drop(cls) -> Fault:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def malformed(cls) -> Fault:
        """200 with a body that is not valid JSON."""
        return cls("malformed")

    @classmethod
    def truncate(cls) -> Fault:
        """A reply cut in half with ``finish_reason: "length"``."""
        return cls("truncate")


def random_faults(
    rate: float, seed: int, *, retry_after: float = 0.05, slow: float = 5.0
) -> FaultFn:
    """A fault function injecting each fault kind at random with a fixed seed.

    About ``rate`` of requests get a fault, spread over 429 (with Retry-After),
    500, 503, slow replies (``slow`` seconds), dropped connections, malformed
    bodies and truncated replies.
    """
    rng = random.Random(seed)
    lock = threading.Lock()
    kinds = [
        Fault.rate_limit(retry_after),
        Fault.status_code(500),
        Fault.status_code(503),
        Fault.slow(slow),
        Fault.drop(),
        Fault.malformed(),
        Fault.truncate(),
    ]

    def pick(n: int, body: dict[str, Any]) -> Fault | None:
        with lock:
            if rng.random() >= rate:
                return None
            return rng.choice(kinds)

    return pick
