"""Batch execution: bounded concurrency, progress, JSONL checkpoint and resume.

:func:`run_batch` runs an async function over items with ids. Every item ends
``ok``, ``parse_error`` or ``model_error``; a failure never stops the batch and
is never dropped. Each finished item is appended at once as one JSON line to
the checkpoint (flushed), so a run that is killed loses nothing it finished,
and a re-run with the same checkpoint makes no call for a finished id (made
from the same inputs, when the batch fingerprints them: see ``inputs``). The
checkpoint file itself (records, locks, identity file) is
:mod:`conflicteval.checkpoint`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import os
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, field_validator

from conflicteval._fatal import close_signal, open_signal
from conflicteval._sync import run_sync
from conflicteval.checkpoint import (
    META_SUFFIX,
    Record,
    _check_identity,
    _move_aside,
    _os_reason,
    _stale_inputs,
    _Writer,
    meta_path,
    read_checkpoint,
    read_identity,
    record_identity,
)
from conflicteval.errors import (
    BatchAborted,
    ConflictEvalError,
)
from conflicteval.itemrun import ItemTimeout as _ItemTimeout
from conflicteval.itemrun import finish_record, run_item
from conflicteval.jsonio import LazyItems
from conflicteval.lazyrecords import PendingItems, item_ids
from conflicteval.types import Usage

log = logging.getLogger("conflicteval.runner")

T = TypeVar("T")

__all__ = [
    "DEFAULT_ADOPT",
    "DEFAULT_ITEM_TIMEOUT",
    "META_SUFFIX",
    "BatchResult",
    "Record",
    "finish_record",
    "meta_path",
    "read_checkpoint",
    "read_identity",
    "record_identity",
    "run_batch",
    "run_batch_sync",
    "run_item",
    "write_json_lines",
]


class BatchResult(BaseModel):
    """All records of a batch, in input order, with counts and usage.

    ``records`` is a list, or with ``run_batch(..., keep_records=False)`` a
    :class:`~conflicteval.lazyrecords.CheckpointRecords`: a read-only sequence
    in input order that reads the records from the checkpoint when asked, so a
    run's memory does not grow with its items. Its counts and total usage are
    then tallied while the run goes (``status_counts``, ``all_usage``).
    """

    records: list[Record]
    resumed: int = 0
    changed: int = 0
    """Items computed again because their inputs changed since the checkpoint recorded them."""
    usage: Usage = Field(default_factory=Usage)
    """Usage of the model calls made by this run (items resumed from a checkpoint excluded)."""
    executor: str = "local"
    """The executor that computed this run's items (``local``, ``ray``, ...)."""

    status_counts: dict[str, int] | None = Field(default=None, exclude=True, repr=False)
    """Items per status tallied during the run (None: counted from ``records``)."""
    all_usage: Usage | None = Field(default=None, exclude=True, repr=False)
    """Usage of every record tallied during the run (None: summed from ``records``)."""

    @field_validator("records", mode="wrap")
    @classmethod
    def _lazy_records(cls, value: Any, handler: Any) -> Any:
        from conflicteval.lazyrecords import CheckpointRecords

        if isinstance(value, CheckpointRecords):
            return value  # kept lazy: validating would read every record
        return handler(value)

    @property
    def total_usage(self) -> Usage:
        """Usage of every record, those resumed from the checkpoint included."""
        if self.all_usage is not None:
            return self.all_usage.model_copy(deep=True)
        total = Usage()
        for rec in self.records:
            total.add(rec.usage)
        return total

    @property
    def counts(self) -> dict[str, int]:
        """Items per status, plus ``total`` (``pending`` only when some are)."""
        counts = {"ok": 0, "parse_error": 0, "model_error": 0, "pending": 0}
        if self.status_counts is not None:
            counts.update(self.status_counts)
        else:
            for r in self.records:
                counts[r.status] += 1
        if not counts["pending"]:  # only batch export leaves items pending
            del counts["pending"]
        counts["total"] = len(self.records)
        return counts

    @property
    def ok(self) -> list[Record]:
        """The records that ended ``ok``."""
        return [r for r in self.records if r.status == "ok"]

    @property
    def failed(self) -> list[Record]:
        """The records that did not end ``ok``."""
        return [r for r in self.records if r.status != "ok"]

    def summary(self) -> str:
        """One line: counts per status, resumed items, calls (cut-off replies), tokens sent
        and replayed from the cache, and the estimated cost (see
        :func:`conflicteval.pricing.cost_text`)."""
        from conflicteval.pricing import cost_text

        c = self.counts
        u = self.usage
        n = c.get("pending", 0)
        pending = f", {n} pending" if n else ""  # waiting for batch results
        return (
            f"{c['total']} items: {c['ok']} ok, {c['parse_error']} parse errors, "
            f"{c['model_error']} model errors{pending} ({self.resumed} resumed from checkpoint"
            f"{self._changed_note()}); "
            f"this run: {u.calls} model calls ({u.cached_calls} from cache{u.truncated_note()}), "
            f"{u.tokens_text()}; {cost_text(u)}; executor {self.executor}"
        )

    def _changed_note(self, sep: str = ",") -> str:
        if not self.changed:
            return ""
        return f"{sep} {self.changed} recomputed because their inputs changed"

    def failure_reasons(self, limit: int = 5) -> list[tuple[str, int, str]]:
        """The most common failure reasons: ``[(reason, count, example id), ...]``.

        Failures are the records with status ``parse_error`` or ``model_error``.

        Reasons are grouped by status and the error text with numbers and
        quoted parts masked, so "item 3 ..." and "item 7 ..." count together.
        """
        groups: dict[str, tuple[Record, list[int]]] = {}  # key -> (first record, [count])
        for rec in self.records:  # one record at a time: only the first of each reason is kept
            if rec.status in ("parse_error", "model_error"):
                _, count = groups.setdefault(_reason_key(rec), (rec, [0]))
                count[0] += 1
        ranked = sorted(groups.values(), key=lambda group: -group[1][0])[:limit]
        return [(_reason_text(first), count[0], first.id) for first, count in ranked]

    def report(self, what: str = "items", *, limit: int = 5, calls: bool = True) -> str:
        """The closing lines every command prints: counts, top failure reasons, usage.

        Args:
            what: What the items are ("claims", "responses", ...).
            limit: How many failure reasons to show.
            calls: Include the "this run: N model calls, tokens" line (False for a
                command that calls no model, e.g. a report of finished results).
        """
        c = self.counts
        failed = c["parse_error"] + c["model_error"]
        parts = [f"{c['ok']} ok", f"{failed} failed"]
        if failed:
            parts[-1] += f" ({c['parse_error']} parse errors, {c['model_error']} model errors)"
        known = ("ok", "parse_error", "model_error", "total")
        parts += [f"{n} {status}" for status, n in c.items() if status not in known and n]
        lines = [f"{c['total']} {what}: " + ", ".join(parts)]
        if self.resumed:
            lines[0] += f"; {self.resumed} resumed from the checkpoint"
        lines[0] += self._changed_note(";")
        for reason, n, example in self.failure_reasons(limit):
            lines.append(f"  {n} x {reason}  (e.g. {example})")
        u = self.usage
        if calls:
            lines.append(
                f"this run: {u.calls} model calls ({u.cached_calls} from cache"
                f"{u.truncated_note()}), {u.tokens_text()}"
            )
            if self.executor != "local":
                lines[-1] += f"; executor {self.executor}"
        return "\n".join(lines)

    def to_pandas(self) -> Any:
        """The records as a pandas DataFrame (needs the ``pandas`` extra)."""
        from conflicteval.errors import require

        pd: Any = require("pandas", "pandas")
        rows = []
        for r in self.records:
            row: dict[str, Any] = {"id": r.id, "status": r.status, "error": r.error}
            if isinstance(r.result, dict):
                row.update({k: v for k, v in r.result.items() if k not in row})
            else:
                row["result"] = r.result
            row["prompt_tokens"] = r.usage.prompt_tokens
            row["completion_tokens"] = r.usage.completion_tokens
            row["cached_calls"] = r.usage.cached_calls
            row["cost_usd"] = r.usage.cost_usd
            row["truncated"] = r.usage.truncated
            rows.append(row)
        return pd.DataFrame(rows)


def _reason_key(rec: Record) -> str:
    import re

    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", rec.error or "no reason given")
    return rec.status + ": " + re.sub(r"\d+", "N", text)[:160]


def _reason_text(rec: Record) -> str:
    text = " ".join((rec.error or "no reason given").split())
    if len(text) > 160:
        text = text[:157] + "..."
    return f"{rec.status}: {text}"


DEFAULT_ADOPT = False
"""Whether :func:`run_batch` adopts a checkpoint it cannot vouch for when ``adopt`` is not given.

A front end (the CLI's ``--adopt-checkpoint``) may set it once for every batch of a command."""


def _tqdm_class() -> Any:
    """tqdm's notebook bar when ipywidgets is installed, else the plain text bar.

    ``tqdm.auto`` picks the notebook bar inside Jupyter even without
    ipywidgets, which then warns "IProgress not found" and shows no bar; the
    plain bar works everywhere.
    """
    import importlib.util

    try:
        has_widgets = importlib.util.find_spec("ipywidgets") is not None
    except (ImportError, ValueError):
        has_widgets = False
    if has_widgets:
        from tqdm.auto import tqdm as auto_tqdm

        return auto_tqdm
    from tqdm.std import tqdm as std_tqdm

    return std_tqdm


def _progress(total: int, initial: int, desc: str, enabled: bool | None) -> Any:
    tqdm = _tqdm_class()
    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, initial=initial, desc=desc, disable=not enabled, unit="item")


DEFAULT_ITEM_TIMEOUT: float | None = None
"""The bound :func:`run_batch` puts on one item when none is given (None: no bound).

A front end (the CLI) may set it once for every batch of a command."""


def _read_outcome(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _bounded(work: Awaitable[Any], seconds: float | None) -> Any:
    """Await ``work``, stopping it after ``seconds`` (None: no bound)."""
    if seconds is None:
        return await work
    loop = asyncio.get_running_loop()
    start = loop.time()
    task = asyncio.ensure_future(work)
    # If the batch is cancelled just as the item fails, wait_for leaves the
    # item's exception unread; reading it here keeps asyncio from logging it.
    task.add_done_callback(_read_outcome)
    try:
        return await asyncio.wait_for(task, seconds)
    except asyncio.TimeoutError:
        if loop.time() - start < seconds:
            raise  # raised by the item itself, not by its bound
        raise _ItemTimeout(f"item timed out: not finished within {seconds:g}s") from None


async def _bounded_call(fn: Callable[[T], Awaitable[Any]], seconds: float, item: T) -> Any:
    return await _bounded(fn(item), seconds)


async def run_batch(
    fn: Callable[[T], Awaitable[Any]],
    items: Iterable[T],
    *,
    key: Callable[[T], Any] | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    concurrency: int = 16,
    progress: bool | None = None,
    desc: str = "items",
    retry_failed: bool = False,
    identity: dict[str, Any] | None = None,
    restart: bool = False,
    item_timeout: float | None = None,
    executor: Any = None,
    inputs: Callable[[T], Any] | None = None,
    adopt: bool | None = None,
    keep_records: bool = True,
) -> BatchResult:
    """Run ``fn`` over ``items`` with at most ``concurrency`` in flight.

    Args:
        fn: Async function of one item returning a JSON-serialisable result.
            Raise :class:`ParseFailure` for an unusable reply; a
            :class:`ModelError` ends the item as ``model_error``. Any other
            exception is also recorded as ``model_error`` (with its type), so
            one bad item never stops the batch.
        items: The items. Ids must be unique.
        key: Item → id (default: the item's ``id`` attribute or ``"id"`` key).
        checkpoint: JSONL file; finished items are appended as they finish and
            skipped on a re-run.
        concurrency: Items in flight at once (model calls are further bounded
            by each model's own limit).
        progress: Show a progress bar (None: only when stderr is a terminal).
        desc: Progress bar label.
        retry_failed: On resume, run items whose record is ``model_error``
            again (they are otherwise kept as they are).
        identity: What produces the results (models, base URLs, labeler,
            prompt versions, decoding settings; see
            :func:`conflicteval.identity.describe`). It is recorded in
            ``<checkpoint>.meta.json``; resuming a checkpoint recorded with
            another identity raises :class:`CheckpointMismatch` naming the
            differing fields.
        restart: Start over: move an existing checkpoint aside
            (``<checkpoint>.old``) instead of resuming it.
        item_timeout: Seconds one item may take in all; an item still running
            then is stopped and recorded ``model_error`` with the reason
            (None: :data:`DEFAULT_ITEM_TIMEOUT`, no bound unless a front end
            set one; ``math.inf``: no bound). Each
            model call is bounded anyway by its model's ``timeout`` per
            attempt and its retry limits; this bounds the item as a whole.
        executor: How the items' results are computed: None or ``"local"``
            (this process, asyncio), ``"ray"`` (a pool of Ray actors, see
            :mod:`conflicteval.executors.ray`) or an executor object. The
            checkpoint, failure accounting and result are the same for all.
        inputs: Item → exactly the inputs its result is made from (JSON-able:
            the response text, the documents with their titles, the gold
            answers, the rendered prompt, ...). Each record stores their
            fingerprint (:func:`conflicteval.identity.input_fingerprint`); on
            resume an item whose inputs changed is computed again (counted in
            ``BatchResult.changed``) and an unchanged one resumes. A checkpoint
            whose records carry no fingerprint (an earlier version's) is refused
            unless ``adopt``. None: items are resumed by id alone.
        adopt: Take over a checkpoint that cannot be vouched for: finished
            items without an identity record (``<checkpoint>.meta.json``
            missing) or without input fingerprints are trusted as made by this
            configuration from these inputs (None: :data:`DEFAULT_ADOPT`).
        keep_records: Hold every record in memory (the default). False (with
            a ``checkpoint``): the records stay in the checkpoint only, counts
            and usage are tallied as items finish, and ``result.records``
            reads them back from the checkpoint one at a time when asked
            (:class:`~conflicteval.lazyrecords.CheckpointRecords`), so the
            run's memory does not grow with its number of items. Without a
            checkpoint the records are kept whatever this says.

    Returns:
        A BatchResult with one record per item, in input order.

    Raises:
        CheckpointMismatch: The checkpoint was made by another identity.
        ConflictEvalError: The checkpoint has finished items but no identity
            record, or no input fingerprints, and ``adopt`` is off.
        BatchAborted: A call failed in a way every call would (a refused or
            missing API key, an endpoint that is not there: see
            :mod:`conflicteval.models.endpoint`); the batch stopped at once. Finished items are
            kept in the checkpoint; the failed and unfinished ones are not
            written, so a re-run (with a key) does them.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    from conflicteval.executors.choice import resolve_executor

    runner = resolve_executor(executor)
    bound = DEFAULT_ITEM_TIMEOUT if item_timeout is None else item_timeout
    if bound is not None and not bound > 0:
        raise ValueError("item_timeout must be a positive number of seconds or None")
    if bound == math.inf:
        bound = None
    if bound is not None:  # the executor runs the bounded function (picklable for Ray)
        fn = functools.partial(_bounded_call, fn, bound)

    keyfn = key or _default_key
    # items read from a file (LazyItems) stay there: one pass for ids and fingerprints here,
    # one to feed the executor (PendingItems); any other iterable is held as a list
    item_list = items if isinstance(items, LazyItems) else list(items)
    ids, fingerprints = item_ids(item_list, keyfn, inputs)
    adopt = DEFAULT_ADOPT if adopt is None else adopt
    path = Path(checkpoint) if checkpoint is not None else None
    writer = _Writer(path)  # locks the checkpoint before it is read
    try:
        if path is not None and restart:
            moved = _move_aside(path)
            writer.reopen()
            if moved is not None:
                log.warning("%s: starting over; the old checkpoint is now %s", path, moved)
        done = read_checkpoint(path) if path is not None else {}
        if path is not None:
            _check_identity(path, identity, done, adopt)
        done, changed, stamped = _stale_inputs(path, done, fingerprints, adopt)
        for rec in stamped:
            writer.write(rec.model_dump_json())
    except BaseException:
        writer.close()
        raise
    if retry_failed:
        done = {k: v for k, v in done.items() if v.status != "model_error"}
    todo_ids = [i for i in ids if i not in done]
    todo: Sequence[tuple[str, Any]]
    if isinstance(item_list, LazyItems):
        todo = PendingItems(item_list, ids, todo_ids, keyfn)
    else:
        todo = [(i, it) for i, it in zip(ids, item_list, strict=True) if i not in done]
    del item_list
    keep = keep_records or path is None
    tally = _Tally(keep)
    for i in ids:
        if i in done:
            tally.add(done[i], fresh=False)
    resumed = len(tally.finished)
    del done  # held by the tally when records are kept; read back lazily otherwise
    if changed:
        log.warning(
            "%s: %d items' inputs changed since they were recorded: computing them again",
            path,
            changed,
        )
    bar = _progress(len(ids), resumed, desc, progress)

    def emit(rec: Record, line: str) -> None:
        if fatal.error is not None:
            raise _Stop  # not written: a re-run does this item again
        if rec.status == "pending":  # never checkpointed: the next round runs it again
            tally.add(rec, fresh=True)
            bar.update(1)
            return
        if fingerprints is not None and rec.id in fingerprints:
            rec = rec.model_copy(update={"inputs": fingerprints[rec.id]})
            line = rec.model_dump_json()
        writer.write(line)
        tally.add(rec, fresh=True)
        bar.update(1)

    fatal, token = open_signal()  # the executor's tasks inherit it
    try:
        try:
            await runner.run(fn, todo, concurrency=concurrency, emit=emit)
        except _Stop:
            pass
        if fatal.error is None:
            for item_id in todo_ids:  # an executor that lost an item: counted, never dropped
                if item_id not in tally.finished:
                    emit(*finish_record(_lost(item_id, runner.name)))
    finally:
        close_signal(token)
        writer.close()
        bar.close()
    if fatal.error is not None:
        finished = len(tally.finished) - resumed
        where = (
            f"; {finished} items finished this run are kept in {path}" if path and finished else ""
        )
        raise BatchAborted(
            f"stopped at the first call that every call would repeat: {fatal.error}{where}. "
            + _fatal_hint(fatal.error),
            error=fatal.error,
            finished=finished,
        )
    return tally.result(ids, path, resumed=resumed, changed=changed, executor=runner.name)


class _Tally:
    """What a run keeps of its finished records: all of them, or counts, usage and ids."""

    def __init__(self, keep: bool) -> None:
        self.keep = keep
        self.records: dict[str, Record] = {}  # all (keep) or only the pending ones
        self.finished: set[str] = set()
        self.counts: dict[str, int] = {}
        self.total = Usage()
        self.now = Usage()  # this run's calls (resumed records excluded)

    def add(self, rec: Record, *, fresh: bool) -> None:
        if self.keep or rec.status == "pending":
            self.records[rec.id] = rec
        if rec.id in self.finished:  # never twice; the first one counts, as before
            return
        self.finished.add(rec.id)
        self.counts[rec.status] = self.counts.get(rec.status, 0) + 1
        self.total.add(rec.usage)
        if fresh:
            self.now.add(rec.usage)

    def result(self, ids: list[str], path: Path | None, **fields: Any) -> BatchResult:
        if self.keep:
            return BatchResult(records=[self.records[i] for i in ids], usage=self.now, **fields)
        from conflicteval.lazyrecords import CheckpointRecords

        assert path is not None
        return BatchResult(
            records=CheckpointRecords(path, ids, self.records),  # type: ignore[arg-type]
            usage=self.now,
            status_counts=self.counts,
            all_usage=self.total,
            **fields,
        )


def _lost(item_id: str, executor: str) -> Record:
    return Record(
        id=item_id,
        status="model_error",
        error=f"the {executor} executor returned no result for this item",
    )


class _Stop(Exception):
    """Raised in a worker to stop the batch (a fatal failure was reported)."""


def _fatal_hint(error: BaseException) -> str:
    hint = getattr(error, "hint", None)
    if hint:  # a dead endpoint: what to check
        return (
            f"{hint[0].upper()}{hint[1:]}; nothing from it was recorded, so the same command "
            "resumes once it is fixed"
        )
    status = getattr(error, "status", None)
    if status == 403:
        return (
            "The server refused access (HTTP 403): check that the API key may use this model "
            "(OPENAI_API_KEY, or api_key=...)"
        )
    return (
        "Check the API key: set OPENAI_API_KEY (or pass api_key=...), or point --base-url "
        "(base_url=...) at a server that needs none"
    )


def run_batch_sync(
    fn: Callable[[T], Awaitable[Any]], items: Iterable[T], **options: Any
) -> BatchResult:
    """Synchronous :func:`run_batch`; also works inside a running event loop (notebooks)."""
    return run_sync(run_batch(fn, items, **options))


def _default_key(item: Any) -> Any:
    if isinstance(item, dict):
        return item["id"]
    return item.id


def write_json_lines(path: str | os.PathLike[str], rows: Iterable[Any]) -> int:
    """Write rows (dicts or pydantic models) as JSON lines; returns the count."""
    n = 0
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        with p.open("w", encoding="utf-8") as fh:
            for row in rows:
                if isinstance(row, BaseModel):
                    fh.write(row.model_dump_json() + "\n")
                else:
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                n += 1
    except OSError as exc:
        raise ConflictEvalError(
            f"{p}: could not write the output ({_os_reason(exc)}); the finished items are "
            "safe in the checkpoint, if the run had one: free the space and run it again"
        ) from exc
    return n
