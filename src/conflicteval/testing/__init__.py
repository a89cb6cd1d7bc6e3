"""Test helpers: a real local OpenAI-compatible server with fault injection.

The names are loaded on first use, so ``python -m conflicteval.testing.server``
runs the server module without importing it twice (which made Python warn).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conflicteval.testing.server import (
        Fault,
        LoggedRequest,
        OpenAICompatServer,
        random_faults,
    )

__all__ = ["Fault", "LoggedRequest", "OpenAICompatServer", "random_faults"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from conflicteval.testing import server

        return getattr(server, name)
    raise AttributeError(f"module 'conflicteval.testing' has no attribute {name!r}")
