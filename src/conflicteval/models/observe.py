"""Observers of model calls: how cost accounting sees every call.

The active answerer (:mod:`conflicteval.models.answerers`, the model layer's one per-call
hook) tells every observer active in the current context (a ``contextvars`` variable, so it
follows asyncio tasks and the background loop of the ``*_sync`` entry points) about each call:
served from the cache, or answered, and each retry or failed attempt. Observers only watch;
an observer with ``portable``/``absorb`` (the call ledger) travels to other processes with
the answerer (:meth:`~conflicteval.models.answerers.Answerer.portable`).
"""

from __future__ import annotations

import contextvars
from typing import Protocol

from conflicteval.models.context_stack import ContextStackEntry
from conflicteval.types import Usage

_observers: contextvars.ContextVar[tuple[CallObserver, ...]] = contextvars.ContextVar(
    "conflicteval_call_observers", default=()
)


class CallObserver(Protocol):
    """What the core model wrapper reports to an observer."""

    def on_cached(self, model: str, key: str, usage: Usage) -> None:
        """A call of ``model`` (its name) served from the response cache (``key``: its key)."""

    def on_called(self, model: str, key: str | None, usage: Usage) -> None:
        """A call of ``model`` (its name) the server answered.

        Observers may also have ``on_attempt(model, kind)``: a retry (``retry``) or a failed
        attempt (``timeout``, ``failure``)."""


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
