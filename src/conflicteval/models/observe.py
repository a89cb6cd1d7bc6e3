"""Observers of model calls: how cost accounting sees every call.

The core :class:`~conflicteval.models.core.Model` tells every observer active
in the current context (a ``contextvars`` variable, so it follows asyncio tasks
and the background loop of the ``*_sync`` entry points) about each call: served
from the cache, or answered by the server. Observers only watch: how a call is
answered (online, counted for a dry run, exported for a batch) is the active
answerer's business (:mod:`conflicteval.models.answerers`).
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Protocol

from conflicteval.models.context_stack import ContextStackEntry
from conflicteval.types import Usage

if TYPE_CHECKING:
    from conflicteval.models.core import Model

_observers: contextvars.ContextVar[tuple[CallObserver, ...]] = contextvars.ContextVar(
    "conflicteval_call_observers", default=()
)


class CallObserver(Protocol):
    """What the core model wrapper reports to an observer."""

    def on_cached(self, model: Model, key: str, usage: Usage) -> None:
        """A call served from the response cache (``key`` is its cache key)."""

    def on_called(self, model: Model, key: str | None, usage: Usage) -> None:
        """A call the server answered (successfully)."""


def note_attempt(model: Model, kind: str) -> None:
    """Tell the observers that have ``on_attempt`` of a retry or a failed attempt.

    ``kind``: ``"retry"`` (another attempt is sent), ``"timeout"`` (an attempt timed
    out) or ``"failure"`` (an attempt failed otherwise). Observers without the method
    (the protocol's two are enough for cost) are skipped.
    """
    for observer in _observers.get():
        hook = getattr(observer, "on_attempt", None)
        if hook is not None:
            hook(model, kind)


def active_observers() -> tuple[CallObserver, ...]:
    """The observers of the current context, outermost first."""
    return _observers.get()


class observe_calls(ContextStackEntry[CallObserver]):
    """Context manager making ``observer`` see every model call inside it (scopes nest)."""

    def __init__(self, observer: CallObserver) -> None:
        super().__init__(_observers, observer)

    @property
    def observer(self) -> CallObserver:
        """The observer this scope adds."""
        return self.value
