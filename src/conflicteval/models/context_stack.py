"""A value pushed on a context variable's stack for the duration of a ``with``.

The models' per-context registries (the usage scopes open around a call, the observers of
calls) are tuples in a ``contextvars`` variable, so they follow asyncio tasks; entering a
scope adds its value to the tuple, leaving restores the tuple it found.
"""

from __future__ import annotations

import contextvars
from typing import Generic, TypeVar

__all__ = ["ContextStackEntry"]

T = TypeVar("T")


class ContextStackEntry(Generic[T]):
    """Context manager adding ``value`` to the tuple in ``var`` inside it (entries nest)."""

    def __init__(self, var: contextvars.ContextVar[tuple[T, ...]], value: T) -> None:
        self._var = var
        self.value = value
        self._token: contextvars.Token[tuple[T, ...]] | None = None

    def __enter__(self) -> T:
        self._token = self._var.set((*self._var.get(), self.value))
        return self.value

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            self._var.reset(self._token)
            self._token = None
