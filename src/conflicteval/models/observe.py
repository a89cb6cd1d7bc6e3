"""Observers of model calls: how batch export and cost accounting see every call.

The core :class:`~conflicteval.models.core.Model` tells every observer active
in the current context (a ``contextvars`` variable, so it follows asyncio tasks
and the background loop of the ``*_sync`` entry points) about each call: served
from the cache, about to be sent, or answered by the server. An observer may
refuse a call by raising (batch export raises
:class:`~conflicteval.errors.PendingCall` after recording the request), which
is how a workflow runs "without calling the model" while staying the same code.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Protocol

from conflicteval.models.base import ProviderRequest
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

    def on_missing(self, model: Model, key: str | None, request: ProviderRequest) -> None:
        """A call about to be sent (``key`` is None without a cache); may raise to stop it."""

    def on_called(self, model: Model, key: str | None, usage: Usage) -> None:
        """A call the server answered (successfully)."""


def active_observers() -> tuple[CallObserver, ...]:
    """The observers of the current context, outermost first."""
    return _observers.get()


class observe_calls:
    """Context manager making ``observer`` see every model call inside it (scopes nest)."""

    def __init__(self, observer: CallObserver) -> None:
        self.observer = observer
        self._token: contextvars.Token[tuple[CallObserver, ...]] | None = None

    def __enter__(self) -> CallObserver:
        self._token = _observers.set((*_observers.get(), self.observer))
        return self.observer

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _observers.reset(self._token)
            self._token = None
