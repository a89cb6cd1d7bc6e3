"""Answerers: how a call the cache cannot answer gets its answer.

The core :class:`~conflicteval.models.core.Model` builds every call once (its
cache key and the provider's request), asks the response cache, and hands a
miss to the *active answerer* as a small :class:`~conflicteval.models.call.Call`
(the model's name, the key, the request, and how to send it or write its batch
line), never the ``Model`` itself:

* :class:`Online` (the default): send it over HTTP, as always.
* :class:`Count` (a dry run): count it (calls, cache hits, prompt tokens, money,
  per model), then raise :class:`~conflicteval.errors.PendingCall`.
* :class:`Export`: record the exact request line for a batch file (the
  :mod:`conflicteval.batch.export` writes it), then raise ``PendingCall``.
* :class:`CacheOnly` (replay): a miss raises ``PendingCall``.

The answerer is the model layer's one per-call hook: the core also tells it of every
cache hit (:meth:`Answerer.cached`), every answered call (:meth:`Answerer.answered`)
and every retry or failed attempt (:meth:`Answerer.attempted`), and the base class
counts each for the items it is made in (their usage and replies,
:mod:`conflicteval.models.usage_scopes`) and for the observers watching the run
(the call ledger behind a command's cost lines, :mod:`conflicteval.models.observe`).
``Count`` also counts hits as cached.
A workflow never knows which answerer is active: a dry run and a batch export
are the same workflow code as a real run. The runner records an item whose
call raised ``PendingCall`` as ``pending``.

An answerer is active for a block (``with answer_with(Count()) as count:``,
a context variable, so it follows asyncio tasks and the background loop of the
``*_sync`` entry points). It is a plain picklable setting: an item executor
that runs items in other processes (Ray) sends :meth:`Answerer.portable`
copies to them, activates them around each item batch, and folds the copies
it gets back into the driver's with :meth:`Answerer.absorb`.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any, Generic, TypeVar

from conflicteval.errors import ConflictEvalError, PendingCall
from conflicteval.models.base import ProviderResponse
from conflicteval.models.call import Call, CallRequest
from conflicteval.models.dryrun import DryRunReport, estimate_prompt_tokens, tokenizer_for
from conflicteval.models.observe import CallObserver, active_observers
from conflicteval.models.usage_scopes import Reply, account_in_scopes
from conflicteval.types import Usage

__all__ = [
    "Answerer",
    "CacheOnly",
    "Count",
    "Export",
    "Online",
    "active_answerer",
    "answer_with",
    "writes_outputs",
]

A = TypeVar("A", bound="Answerer")

AT_LEAST_NOTE = (
    "replies not in the cache stop their items here: calls that depend on them (later "
    "stages, re-asks) are not counted, so a run makes at least these calls"
)


class Answerer:
    """How a call the cache cannot answer is answered (the base: refuses nothing itself).

    Attributes:
        name: A short name (``online``, ``count``, ``export``, ``cache-only``).
        writes: Whether a run under this answerer may write files: checkpoint
            records and a command's outputs (False for a dry run).
    """

    name = "answerer"
    writes = True

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokenizers: dict[str, Any] = {}
        self.carried: tuple[CallObserver, ...] = ()
        """Empty copies of the driver's observers (its call ledger) that a :meth:`portable`
        copy counts into in another process, and brings back to :meth:`absorb`."""

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_tokenizers")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._tokenizers = {}

    # -- the hook: every call the model layer makes is told here, once ---------------
    def cached(self, call: Call, usage: Usage, reply: Reply | None = None) -> None:
        """A call the response cache answered (``call.key`` is its cache key): its usage and
        reply count for the items it is made in and for every observer (the call ledger)."""
        account_in_scopes(usage, reply)
        for observer in self._observers():
            observer.on_cached(call.model, call.key or "-", usage)

    async def answer(self, call: Call) -> ProviderResponse:
        """Answer a call the cache could not (``call.key`` is None without a cache)."""
        raise NotImplementedError

    def answered(self, call: Call, usage: Usage, reply: Reply | None = None) -> None:
        """A call :meth:`answer` answered: counted as :meth:`cached` counts a hit."""
        account_in_scopes(usage, reply)
        for observer in self._observers():
            observer.on_called(call.model, call.key, usage)

    def attempted(self, model: str, kind: str) -> None:
        """A retry or a failed attempt of ``model`` (``retry``, ``timeout`` or ``failure``),
        told to the observers that count them (``on_attempt``)."""
        for observer in self._observers():
            hook = getattr(observer, "on_attempt", None)
            if hook is not None:
                hook(model, kind)

    def _observers(self) -> tuple[CallObserver, ...]:
        # in the driver the context's observers; in another process the carried copies
        return (*active_observers(), *self.carried) if self.carried else active_observers()

    # -- travelling to other processes (Ray actors) ----------------------------------
    def portable(self) -> Answerer:
        """A fresh copy with the same settings and no counts, to send to another process,
        carrying an empty copy of each observer active here that can travel (the call
        ledger), so the calls made there count in this process's ledger once absorbed."""
        copy = self.fresh()
        copy.carried = tuple(o.portable() for o in _travelling(active_observers()))
        return copy

    def fresh(self) -> Answerer:
        """A copy with the same settings and no counts (what :meth:`portable` sends)."""
        return type(self)()

    def batch_done(self, desc: str, counts: dict[str, int]) -> None:
        """A batch of items ended (``counts``: items per status, ``total``, ``pending``)."""

    def absorb(self, copy: Answerer) -> None:
        """Fold a copy's counts (or recorded requests) back into this answerer, and the calls
        its carried observers counted into the observers active here."""
        for mine, theirs in zip(_travelling(active_observers()), copy.carried, strict=False):
            mine.absorb(theirs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Online(Answerer):
    """Send the call to the provider (HTTP): the default."""

    name = "online"

    async def answer(self, call: Call) -> ProviderResponse:
        """The provider's reply, with the model's retries and concurrency limit."""
        return await call.send(call.request)


class CacheOnly(Answerer):
    """Replay from the cache only: a miss raises :class:`~conflicteval.errors.PendingCall`."""

    name = "cache-only"

    def __init__(self) -> None:
        super().__init__()
        self.missing = 0

    async def answer(self, call: Call) -> ProviderResponse:
        """Never answers: the call is pending."""
        with self._lock:
            self.missing += 1
        raise PendingCall(call.key or "-", call.model)

    def absorb(self, copy: Answerer) -> None:
        """Add a copy's misses."""
        super().absorb(copy)
        if isinstance(copy, CacheOnly):
            with self._lock:
                self.missing += copy.missing


class Count(Answerer):
    """A dry run: count calls, cache hits, prompt tokens and money per model; send nothing.

    Prompt tokens are counted with ``tiktoken`` when it is installed and has
    its encoding available offline, otherwise estimated (characters / 4).
    A miss raises :class:`~conflicteval.errors.PendingCall`, so calls that
    depend on its reply are not made, and not counted (see :meth:`reports`).
    Nothing is written while a ``Count`` is active (``writes`` is False).
    """

    name = "count"
    writes = False

    def __init__(self) -> None:
        super().__init__()
        self.models: dict[str, DryRunReport] = {}
        self.batches: list[tuple[str, int, int]] = []
        """Per batch run under it: (description, items, items left waiting on a call)."""

    def batch_done(self, desc: str, counts: dict[str, int]) -> None:
        """Note a batch's item count and how many items wait on calls not in the cache."""
        with self._lock:
            self.batches.append((desc, counts.get("total", 0), counts.get("pending", 0)))

    def batch_lines(self) -> list[str]:
        """One line per batch: its items, and how many wait on replies not in the cache."""
        lines = []
        for desc, total, pending in self.batches:
            line = f"dry run: {desc}: {total} item{'s' if total != 1 else ''}"
            if pending:
                line += f", {pending} waiting on replies not in the cache"
            lines.append(line)
        return lines

    def cached(self, call: Call, usage: Usage, reply: Reply | None = None) -> None:
        """Count a cache hit."""
        super().cached(call, usage, reply)
        self._count(call, cached=True)

    async def answer(self, call: Call) -> ProviderResponse:
        """Count the call; it is pending."""
        self._count(call, cached=False)
        raise PendingCall(call.key or "-", call.model)

    def _count(self, call: Call, *, cached: bool) -> None:
        request = call.request
        with self._lock:
            name = call.model
            if name not in self._tokenizers:
                self._tokenizers[name] = tokenizer_for(call.backend_model)
            tok = self._tokenizers[name]
            report = self.models.get(name)
            if report is None:
                report = self.models[name] = DryRunReport(model=name)
                if tok is not None:
                    report.tokens_estimated = False
                    report.tokenizer = tok[1]
            tokens = estimate_prompt_tokens(request.messages, tok[0] if tok is not None else None)
            report.calls += 1
            report.prompt_tokens += tokens
            if cached:
                report.cached += 1
                return
            report.uncached_prompt_tokens += tokens
            limit = request.max_tokens
            if limit is None or report.max_completion_tokens is None:
                report.max_completion_tokens = None
            else:
                report.max_completion_tokens += int(limit)

    @property
    def pending(self) -> int:
        """Calls counted that the cache could not answer (what a run would send)."""
        return sum(r.uncached for r in self.models.values())

    def reports(self) -> list[DryRunReport]:
        """One report per model (by name), noting "at least" where calls were pending."""
        out = []
        for name in sorted(self.models):
            report = self.models[name]
            copy = DryRunReport(**{**report.__dict__, "notes": list(report.notes)})
            if copy.uncached:
                copy.notes.append(AT_LEAST_NOTE)
            out.append(copy)
        return out

    def report(self, model: str | None = None) -> DryRunReport:
        """The report of ``model`` (default: the only model called; an empty report for none).

        Raises:
            ValueError: Several models were called and none was named.
        """
        reports = {r.model: r for r in self.reports()}
        if model is not None:
            return reports.get(model) or DryRunReport(model=model)
        if not reports:
            return DryRunReport(model="(no model called)")
        if len(reports) > 1:
            raise ValueError(f"several models were called ({', '.join(reports)}): name one")
        return next(iter(reports.values()))

    def absorb(self, copy: Answerer) -> None:
        """Add a copy's counts, model by model."""
        super().absorb(copy)
        if not isinstance(copy, Count):
            return
        with self._lock:
            for name, theirs in copy.models.items():
                mine = self.models.get(name)
                if mine is None:
                    self.models[name] = DryRunReport(**{**theirs.__dict__, "notes": []})
                    continue
                mine.calls += theirs.calls
                mine.cached += theirs.cached
                mine.prompt_tokens += theirs.prompt_tokens
                mine.uncached_prompt_tokens += theirs.uncached_prompt_tokens
                if mine.max_completion_tokens is None or theirs.max_completion_tokens is None:
                    mine.max_completion_tokens = None
                else:
                    mine.max_completion_tokens += theirs.max_completion_tokens


class Export(Answerer):
    """Batch export: record each missing call's exact request line (once per id); it is pending.

    Without a :attr:`sink` the requests are kept in :attr:`requests` (by
    ``custom_id``, the call's cache key): a copy in another process holds them
    until the driver absorbs it. With a sink (the batch writer of
    :mod:`conflicteval.batch.export`: ``id in sink``, ``sink.add(request)``)
    each request line goes to it as it is made, so the driver holds none. A
    model without a cache, or a provider that cannot write its requests as data,
    is a :attr:`problem` the writer reports.
    """

    name = "export"

    def __init__(self, path: str = "") -> None:
        super().__init__()
        self.path = str(path)
        self.requests: dict[str, CallRequest] = {}
        self.sink: Any = None
        self.problem: str | None = None
        self._counts: dict[str, int] = {}

    def fresh(self) -> Export:
        """An empty copy for the same file (holding its requests until absorbed)."""
        return Export(self.path)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["sink"] = None  # the writer stays in the process that opened it
        return state

    def _has(self, key: str) -> bool:
        return key in self.sink if self.sink is not None else key in self.requests

    def _record(self, key: str, req: CallRequest) -> None:
        """Keep or write one request (the caller holds the lock and checked :meth:`_has`)."""
        if self.sink is not None:
            self.sink.add(req)
        else:
            self.requests[key] = req
        self._counts[req.model] = self._counts.get(req.model, 0) + 1

    async def answer(self, call: Call) -> ProviderResponse:
        """Record the request line; the call is pending."""
        key = call.key
        if key is None:
            self.problem = (
                f"{call.model} has no response cache, so batch results could not be replayed; "
                "run without --no-cache (cache=False) to export batch requests"
            )
            raise PendingCall("-", call.model)
        with self._lock:
            if not self._has(key):
                try:
                    self._record(key, call.line())
                except ConflictEvalError as exc:
                    # not an item's failure (which the checkpoint would keep): the export's
                    self.problem = str(exc)
        raise PendingCall(key, call.model)

    def exported(self) -> dict[str, int]:
        """Requests recorded per model."""
        return dict(self._counts)

    def absorb(self, copy: Answerer) -> None:
        """Add a copy's requests (an id recorded twice is kept once)."""
        super().absorb(copy)
        if not isinstance(copy, Export):
            return
        with self._lock:
            for key, req in copy.requests.items():
                if not self._has(key):
                    try:
                        self._record(key, req)
                    except ConflictEvalError as exc:
                        self.problem = self.problem or str(exc)
            self.problem = self.problem or copy.problem

    def __repr__(self) -> str:
        return f"Export({self.path!r})"


def _travelling(observers: tuple[CallObserver, ...]) -> list[Any]:
    """The observers that can travel to another process (they have ``portable``/``absorb``)."""
    return [o for o in observers if callable(getattr(o, "portable", None))]


ONLINE = Online()

_active: contextvars.ContextVar[Answerer] = contextvars.ContextVar(
    "conflicteval_answerer", default=ONLINE
)


def active_answerer() -> Answerer:
    """The answerer of the current context (:class:`Online` unless one is active)."""
    return _active.get()


def writes_outputs() -> bool:
    """Whether a run in the current context may write files (False in a dry run)."""
    return _active.get().writes


class answer_with(Generic[A]):
    """``with answer_with(Count()) as count:`` -- calls inside are answered by it (scopes nest)."""

    def __init__(self, answerer: A) -> None:
        self.answerer = answerer
        self._tokens: list[contextvars.Token[Answerer]] = []

    def __enter__(self) -> A:
        self._tokens.append(_active.set(self.answerer))
        return self.answerer

    def __exit__(self, *exc: object) -> None:
        _active.reset(self._tokens.pop())
