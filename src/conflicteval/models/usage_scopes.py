"""Per-item usage: a scope collects the usage of every model call made inside it."""

from __future__ import annotations

import contextvars

from conflicteval.models.context_stack import ContextStackEntry
from conflicteval.types import Usage

_item_usage: contextvars.ContextVar[tuple[Usage, ...]] = contextvars.ContextVar(
    "conflicteval_item_usage", default=()
)


class usage_scope(ContextStackEntry[Usage]):
    """Context manager collecting the usage of every model call made inside it.

    The runner opens one per item, so each item knows its own token usage even
    when many items run concurrently. Scopes nest: a call counts in every
    scope it is made in.
    """

    def __init__(self) -> None:
        super().__init__(_item_usage, Usage())

    @property
    def usage(self) -> Usage:
        """The usage collected in this scope."""
        return self.value


def account_in_scopes(usage: Usage) -> None:
    """Add one call's usage to every usage scope open where the call is made."""
    for scope in _item_usage.get():
        scope.add(usage)
