"""Wall time of the model calls a server answered, for a run's latency quantiles.

:class:`time_calls` collects, inside it, the seconds each call answered by the active
answerer took (retries and waits for a concurrency slot of the same call included, as a
user waits for them); cache replays and calls left pending (dry run, batch export) are not
timed. Scopes nest and follow asyncio tasks (a ``contextvars`` variable); calls made in
another process (Ray actors) are not seen.
"""

from __future__ import annotations

import contextvars

__all__ = ["record_latency", "time_calls"]

_timers: contextvars.ContextVar[tuple[list[float], ...]] = contextvars.ContextVar(
    "conflicteval_call_timers", default=()
)


class time_calls:
    """Context manager collecting the seconds of every call answered inside it (the list
    it gives on entering)."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self._token: contextvars.Token[tuple[list[float], ...]] | None = None

    def __enter__(self) -> list[float]:
        self._token = _timers.set((*_timers.get(), self.seconds))
        return self.seconds

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _timers.reset(self._token)
            self._token = None


def record_latency(seconds: float) -> None:
    """Add one answered call's wall time to every open :class:`time_calls` scope."""
    for timer in _timers.get():
        timer.append(seconds)
