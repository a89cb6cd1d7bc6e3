"""Per-item usage: a scope collects the usage and the replies of every model call made inside it."""

from __future__ import annotations

import contextvars
import heapq
import itertools

from pydantic import TypeAdapter

from conflicteval.models.context_stack import ContextStackEntry
from conflicteval.types import CallReply, Usage

KEPT_REPLY = 4000
"""Characters of each reply an item's record keeps (the rest is counted, not kept)."""
KEPT_CALLS = 200
"""Replies an item's record keeps; the calls beyond them are counted in ``more_calls``."""

Reply = tuple[int, str, str, bool, "str | None", "float | None"]
"""(issue number, model, text, cached, finish reason, latency): a reply as a scope holds it."""

_issued = itertools.count()
_REPLIES: TypeAdapter[list[CallReply]] = TypeAdapter(list[CallReply])


def issue_number() -> int:
    """A number for a call about to be made, larger than every earlier call's in this process.

    An item's calls are started in the order its code makes them (asyncio starts tasks in
    order), so its replies sorted by this number come in the same order on every run, however
    the replies raced each other.
    """
    return next(_issued)


class ItemCalls:
    """What one scope collected: the usage of its calls and their replies (bounded)."""

    __slots__ = ("_latest", "more_calls", "replies", "usage")

    def __init__(self) -> None:
        self.usage = Usage()
        self.replies: list[Reply] = []
        self.more_calls = 0
        self._latest: list[tuple[int, int]] = []
        """Past the bound: (negated issue number, place in ``replies``) of each kept reply, a
        heap whose top is the latest-issued one (the first to give way to an earlier call)."""

    def add(self, usage: Usage, reply: Reply | None) -> None:
        """Count one call's usage and keep its reply (the first :data:`KEPT_CALLS`)."""
        self.usage.add(usage)
        if reply is None:
            return
        if len(self.replies) < KEPT_CALLS:
            self.replies.append(reply)
            return
        # keep the first calls made, whichever replied first
        self.more_calls += 1
        if not self._latest:
            self._latest = [(-r[0], k) for k, r in enumerate(self.replies)]
            heapq.heapify(self._latest)
        latest, place = self._latest[0]
        if reply[0] < -latest:
            self.replies[place] = reply
            heapq.heapreplace(self._latest, (-reply[0], place))

    def kept_replies(self) -> list[CallReply]:
        """The replies as records keep them, in the order the calls were made, each cut to
        :data:`KEPT_REPLY` characters."""
        return _REPLIES.validate_python(  # one validation for the list: the cheapest way
            [
                {
                    "model": model,
                    "reply": text[:KEPT_REPLY],
                    "left_out": max(0, len(text) - KEPT_REPLY),
                    "cached": cached,
                    "finish_reason": finish,
                    "latency_s": None if latency is None else round(latency, 4),
                }
                for _, model, text, cached, finish, latency in sorted(self.replies, key=_issue)
            ]
        )


def _issue(reply: Reply) -> int:
    return reply[0]


_item_calls: contextvars.ContextVar[tuple[ItemCalls, ...]] = contextvars.ContextVar(
    "conflicteval_item_usage", default=()
)


class usage_scope(ContextStackEntry[ItemCalls]):
    """Context manager collecting the usage (and replies) of every model call made inside it.

    The runner opens one per item, so each item knows its own token usage and what each of
    its calls replied even when many items run concurrently. Scopes nest: a call counts in
    every scope it is made in. ``with usage_scope() as usage:`` gives the :class:`Usage`;
    :attr:`calls` holds the replies too.
    """

    def __init__(self) -> None:
        super().__init__(_item_calls, ItemCalls())

    def __enter__(self) -> Usage:  # type: ignore[override]
        return super().__enter__().usage

    @property
    def usage(self) -> Usage:
        """The usage collected in this scope."""
        return self.value.usage

    @property
    def calls(self) -> ItemCalls:
        """The usage and the replies collected in this scope."""
        return self.value


def account_in_scopes(usage: Usage, reply: Reply | None = None) -> None:
    """Add one call's usage (and its reply) to every usage scope open where the call is made."""
    for scope in _item_calls.get():
        scope.add(usage, reply)
