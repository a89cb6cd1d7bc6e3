"""The call ledger: every model call of a run, per model, by how it was answered.

:class:`CallLedger` is a call observer (:mod:`conflicteval.models.observe`):
it counts the calls made inside ``with ledger:`` (sent online, served from the
cache, served by a batch import) with their tokens and estimated cost. It only
watches; how a call is answered is the active answerer's business
(:mod:`conflicteval.models.answerers`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Set
from dataclasses import dataclass, field
from typing import Any

from conflicteval import pricing
from conflicteval.models.observe import observe_calls
from conflicteval.types import Usage

__all__ = ["CallLedger", "ModelCalls", "track_calls"]


@dataclass
class ModelCalls:
    """One model's calls in a run, by how they were answered."""

    online: Usage = field(default_factory=Usage)
    cached: Usage = field(default_factory=Usage)
    batch: Usage = field(default_factory=Usage)
    exported: int = 0
    retries: int = 0
    """Attempts sent again after a failed one (each retry counts once)."""
    timeouts: int = 0
    """Attempts that timed out (retried or not)."""


class CallLedger:
    """Counts every model call made inside ``with ledger:``, per model, with cost.

    Args:
        batch_ids: Cache keys known to have been answered by a batch (from
            export manifests); a cache hit on one counts as served by batch. A set
            (such as :func:`~conflicteval.batch.manifest.known_ids`' index on
            disk) is used as it is; any other iterable is made a set.
    """

    def __init__(self, batch_ids: Iterable[str] = ()) -> None:
        self.batch_ids: Set[str] = batch_ids if isinstance(batch_ids, Set) else set(batch_ids)
        self.models: dict[str, ModelCalls] = {}
        self._lock = threading.Lock()
        self._scope: observe_calls | None = None
        self.deferred: list[tuple[str, str, Usage]] = []
        """Cache hits (model, key, usage) a portable copy leaves for the driver to classify."""
        self._defer = False

    # -- travelling to other processes (Ray actors) ------------------------------
    def portable(self) -> CallLedger:
        """An empty ledger to count the calls of one batch of items in another process.

        It goes to a Ray actor with the answerer (``Answerer.portable``) and comes back to
        :meth:`absorb`. The
        batch ids (a set on disk) stay here: a copy keeps its cache hits' keys when
        this ledger knows batch ids, and :meth:`absorb` classifies them.
        """
        copy = CallLedger()
        copy._defer = bool(len(self.batch_ids))
        return copy

    def absorb(self, copy: CallLedger) -> None:
        """Add the calls a portable copy counted (see :meth:`portable`)."""
        with self._lock:
            for name, calls in copy.models.items():
                entry = self.models.setdefault(name, ModelCalls())
                entry.online.add(calls.online)
                entry.cached.add(calls.cached)
                entry.batch.add(calls.batch)
                entry.retries += calls.retries
                entry.timeouts += calls.timeouts
            for name, key, usage in copy.deferred:
                entry = self.models.setdefault(name, ModelCalls())
                (entry.batch if key in self.batch_ids else entry.cached).add(usage)

    def __getstate__(self) -> dict[str, Any]:
        if len(self.batch_ids):
            raise TypeError("a ledger with batch ids travels as its portable() copy")
        return {"models": self.models, "deferred": self.deferred, "defer": self._defer}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]
        self.models = state["models"]
        self.deferred = state["deferred"]
        self._defer = state["defer"]

    # -- the observer protocol ---------------------------------------------
    def _entry(self, model: str) -> ModelCalls:
        entry = self.models.get(model)
        if entry is None:
            entry = self.models.setdefault(model, ModelCalls())
        return entry

    def on_cached(self, model: str, key: str, usage: Usage) -> None:
        """Count a cache hit (as a batch answer when its key came from a batch)."""
        with self._lock:
            if self._defer:
                self.deferred.append((model, key, usage))
                return
            entry = self._entry(model)
            (entry.batch if key in self.batch_ids else entry.cached).add(usage)

    def on_called(self, model: str, key: str | None, usage: Usage) -> None:
        """Count a call the server answered."""
        with self._lock:
            self._entry(model).online.add(usage)

    def on_attempt(self, model: str, kind: str) -> None:
        """Count a retry or a timed-out attempt (see ``Answerer.attempted``)."""
        with self._lock:
            entry = self._entry(model)
            if kind == "retry":
                entry.retries += 1
            elif kind == "timeout":
                entry.timeouts += 1

    # -- scope --------------------------------------------------------------
    def __enter__(self) -> CallLedger:
        self._scope = observe_calls(self)
        self._scope.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._scope is not None:
            self._scope.__exit__(exc_type, exc, tb)
            self._scope = None

    # -- reporting ------------------------------------------------------------
    def note_exported(self, counts: dict[str, int]) -> None:
        """Record how many requests per model a batch export wrote (for :meth:`cost_lines`)."""
        with self._lock:
            for name, n in counts.items():
                self.models.setdefault(name, ModelCalls()).exported = n

    def cost_lines(self) -> list[str]:
        """Per model: calls online / by batch / from cache, tokens and estimated cost."""
        lines: list[str] = []
        priced = False
        for name, entry in sorted(self.models.items()):
            parts = []
            price = pricing.lookup(name)
            for label, usage, batch in (
                ("online", entry.online, False),
                ("by batch", entry.batch, True),
            ):
                if not usage.calls:
                    continue
                text = (
                    f"{usage.calls} {label} ({usage.prompt_tokens} prompt + "
                    f"{usage.completion_tokens} completion tokens"
                )
                if price is not None:
                    priced = True
                    cost = price.cost(usage.prompt_tokens, usage.completion_tokens, batch=batch)
                    text += f", est. {pricing.format_usd(cost)}"
                    if batch:
                        online = price.cost(usage.prompt_tokens, usage.completion_tokens)
                        text += f" at batch rates; {pricing.format_usd(online)} online"
                parts.append(text + ")")
            if entry.cached.calls:
                parts.append(f"{entry.cached.calls} from cache (no cost)")
            if entry.exported:
                parts.append(f"{entry.exported} exported for batch")
            if entry.retries or entry.timeouts:  # never silent: they cost time (and calls)
                parts.append(
                    f"{entry.retries} retried attempt{'s' if entry.retries != 1 else ''}, "
                    f"{entry.timeouts} timed out"
                )
            if not parts:
                continue
            lines.append(f"{name}: " + "; ".join(parts))
            if price is None and (entry.online.calls or entry.batch.calls or entry.exported):
                if pricing.first_missing_note(name):
                    lines.append(f"note: {pricing.missing_note(name)}")
                else:  # said once already in this run (a batch run's earlier round)
                    lines[-1] += " (no price known)"
        if priced:
            lines.append(f"cost: {pricing.source_note()}")
        return lines


def track_calls(batch_ids: Iterable[str] = ()) -> CallLedger:
    """``with track_calls() as ledger:`` counts calls per model; ``ledger.cost_lines()``."""
    return CallLedger(batch_ids)
