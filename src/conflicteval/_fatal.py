"""A failure that stops a whole batch: the model layer reports it, the runner stops.

A refused API key (HTTP 401/403, or no key at all for OpenAI's own API) fails
every call the same way, so a batch should stop at the first such failure
instead of failing every item in turn. Item functions often turn a
:class:`~conflicteval.errors.ModelError` into a per-item (or per-pair) failure,
so the model layer does not rely on the exception reaching the runner: it
reports the failure to the batch it runs in (a context variable the runner
sets), and the runner stops after the item that saw it.
"""

from __future__ import annotations

import contextvars


class FatalSignal:
    """Set by the model layer when a call failed in a way every call will."""

    def __init__(self) -> None:
        self.error: BaseException | None = None


_current: contextvars.ContextVar[FatalSignal | None] = contextvars.ContextVar(
    "conflicteval_fatal", default=None
)


def report_fatal(error: BaseException) -> None:
    """Tell the running batch (if any) to stop; the first error reported is kept."""
    signal = _current.get()
    if signal is not None and signal.error is None:
        signal.error = error


def open_signal() -> tuple[FatalSignal, contextvars.Token[FatalSignal | None]]:
    """A new signal, current in this context (tasks created afterwards inherit it)."""
    signal = FatalSignal()
    return signal, _current.set(signal)


def close_signal(token: contextvars.Token[FatalSignal | None]) -> None:
    """Undo :func:`open_signal`."""
    _current.reset(token)
