"""Batch execution: bounded concurrency, progress, JSONL checkpoint and resume.

:func:`run_batch` runs an async function over items with ids. Every item ends
``ok``, ``parse_error`` or ``model_error``; a failure never stops the batch and
is never dropped. Each finished item is appended at once as one JSON line to
the checkpoint (flushed), so a run that is killed loses nothing it finished,
and a re-run with the same checkpoint makes no call for a finished id (made
from the same inputs, when the batch fingerprints them: see ``inputs``). Its
parts live beside it: the checkpoint file (records, locks, identity file) in
:mod:`~conflicteval.execution.checkpoint`, the result in
:mod:`~conflicteval.execution.results`, how one item ends in
:mod:`~conflicteval.execution.itemrun`, the item bound in
:mod:`~conflicteval.execution.bounds`, the bar in
:mod:`~conflicteval.execution.progress` and the settings in
:mod:`~conflicteval.execution.options`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from conflicteval._fatal import close_signal, open_signal
from conflicteval._sync import run_sync
from conflicteval.errors import BatchAborted, ConflictEvalError
from conflicteval.execution.bounds import bounded_items
from conflicteval.execution.checkpoint import (
    Record,
    _check_identity,
    _move_aside,
    _os_reason,
    _stale_inputs,
    _Writer,
    read_checkpoint,
)
from conflicteval.execution.itemrun import finish_record
from conflicteval.execution.lazyrecords import PendingItems, item_ids
from conflicteval.execution.options import RunOptions
from conflicteval.execution.progress import progress_bar
from conflicteval.execution.results import BatchResult
from conflicteval.jsonio import LazyItems
from conflicteval.types import Usage

log = logging.getLogger("conflicteval.runner")

T = TypeVar("T")

__all__ = ["run_batch", "run_batch_sync", "write_json_lines"]


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
    options: RunOptions | None = None,
) -> BatchResult:
    """Run ``fn`` over ``items`` with at most ``concurrency`` in flight.

    Args:
        fn: Async function of one item returning a JSON-serialisable result.
            :class:`ParseFailure` ends the item ``parse_error``; any other
            exception (:class:`ModelError` included) ``model_error``, with its
            reason: one bad item never stops the batch.
        items: The items. Ids must be unique.
        key: Item → id (default: the item's ``id`` attribute or ``"id"`` key).
        checkpoint: JSONL file; finished items are appended as they finish and
            skipped on a re-run.
        desc: Progress bar label.
        identity: What produces the results (:func:`conflicteval.identity.describe`),
            recorded in ``<checkpoint>.meta.json``; resuming with another one
            raises :class:`CheckpointMismatch` naming the differing fields.
        inputs: Item → exactly the inputs its result is made from (JSON-able); an
            item whose inputs' fingerprint changed is computed again on resume
            (``BatchResult.changed``). None: items resume by id alone.
        keep_records: False (with a checkpoint): ``result.records`` reads the
            records back from the checkpoint one at a time (constant memory).
        concurrency, progress, retry_failed, restart, item_timeout, executor,
        adopt: The run settings (:class:`~conflicteval.execution.options.RunOptions`);
            or all at once as ``options`` (a keyword that is set wins).

    Returns:
        A BatchResult with one record per item, in input order.

    Raises:
        CheckpointMismatch: The checkpoint was made by another identity.
        ConflictEvalError: The checkpoint cannot be vouched for and ``adopt`` is off.
        BatchAborted: A call failed in a way every call would (a refused key, an
            endpoint that is not there); finished items stay in the checkpoint.
    """
    run = RunOptions.combine(
        options,
        concurrency=concurrency,
        progress=progress,
        restart=restart,
        retry_failed=retry_failed,
        executor=executor,
        item_timeout=item_timeout,
        adopt=adopt,
    )
    return await _run(fn, items, run, key, checkpoint, desc, identity, inputs, keep_records)


async def _run(
    fn: Callable[[T], Awaitable[Any]],
    items: Iterable[T],
    run: RunOptions,
    key: Callable[[T], Any] | None,
    checkpoint: str | os.PathLike[str] | None,
    desc: str,
    identity: dict[str, Any] | None,
    inputs: Callable[[T], Any] | None,
    keep_records: bool,
) -> BatchResult:
    """:func:`run_batch` once its run settings are combined into ``run``."""
    runner = _executor(run)
    fn = bounded_items(fn, run.item_timeout)  # the executor runs it (picklable for Ray)
    ids, item_list, fingerprints = _ids(items, key, inputs)
    from conflicteval.models.answerers import active_answerer

    answerer = active_answerer()
    path = _checkpoint_path(checkpoint, answerer)
    writer, done, changed = _open_checkpoint(path, identity, fingerprints, run)
    todo_ids = [i for i in ids if i not in done]
    todo = _todo(item_list, ids, todo_ids, key)
    del item_list
    tally = _Tally(keep_records or path is None)
    resumed = tally.resume(ids, done)
    del done  # held by the tally when records are kept; read back lazily otherwise
    bar = progress_bar(len(ids), resumed, desc, run.progress)
    stored = _Store(writer, tally, bar, fingerprints)
    error = await _execute(runner, fn, (todo, todo_ids), run.concurrency or 1, stored)
    if error is not None:
        raise _aborted(error, len(tally.finished) - resumed, path)
    result = tally.result(ids, path, resumed=resumed, changed=changed, executor=runner.name)
    answerer.batch_done(desc, result.counts)  # a dry run reports its batches' items
    return result


def _checkpoint_path(checkpoint: str | os.PathLike[str] | None, answerer: Any) -> Path | None:
    """The checkpoint to use: none when the active answerer writes nothing.

    A dry run writes nothing: every item runs (its calls are counted, served from the
    cache or left pending) and no checkpoint is read, written or locked.
    """
    if checkpoint is None or not answerer.writes:
        return None
    return Path(checkpoint)


def _executor(run: RunOptions) -> Any:
    """The executor object the settings name (checking the concurrency first)."""
    if run.concurrency is None or run.concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    from conflicteval.executors.choice import resolve_executor

    return resolve_executor(run.executor)


def _ids(
    items: Iterable[T], key: Callable[[T], Any] | None, inputs: Callable[[T], Any] | None
) -> tuple[list[str], Any, dict[str, str] | None]:
    """The items' ids (each one once), the items, and their input fingerprints.

    Items read from a file (:class:`~conflicteval.jsonio.LazyItems`) stay there: one
    pass for ids and fingerprints here, one to feed the executor (:func:`_todo`); any
    other iterable is held as a list.
    """
    item_list: Any = items if isinstance(items, LazyItems) else list(items)
    ids, fingerprints = item_ids(item_list, key or _default_key, inputs)
    return ids, item_list, fingerprints


def _todo(
    item_list: Any, ids: list[str], todo_ids: list[str], key: Callable[[Any], Any] | None
) -> Sequence[tuple[str, Any]]:
    """``(id, item)`` of the items still to do (read again from the file for lazy items)."""
    if isinstance(item_list, LazyItems):
        return PendingItems(item_list, ids, todo_ids, key or _default_key)
    wanted = set(todo_ids)
    return [(i, it) for i, it in zip(ids, item_list, strict=True) if i in wanted]


def _open_checkpoint(
    path: Path | None,
    identity: dict[str, Any] | None,
    fingerprints: dict[str, str] | None,
    run: RunOptions,
) -> tuple[_Writer, dict[str, Record], int]:
    """Lock and read the checkpoint: its writer, the finished records to keep, how many changed."""
    writer = _Writer(path)  # locks the checkpoint before it is read
    try:
        if path is not None and run.restart:
            moved = _move_aside(path)
            writer.reopen()
            if moved is not None:
                log.warning("%s: starting over; the old checkpoint is now %s", path, moved)
        done = read_checkpoint(path) if path is not None else {}
        if path is not None:
            _check_identity(path, identity, done, run.adopt)
        done, changed, stamped = _stale_inputs(path, done, fingerprints, run.adopt)
        for rec in stamped:
            writer.write(rec.model_dump_json())
    except BaseException:
        writer.close()
        raise
    if run.retry_failed:
        done = {k: v for k, v in done.items() if v.status != "model_error"}
    if changed:
        log.warning(
            "%s: %d items' inputs changed since they were recorded: computing them again",
            path,
            changed,
        )
    return writer, done, changed


class _Store:
    """Where each finished record goes: the checkpoint (with its fingerprint), tally, bar."""

    def __init__(
        self, writer: _Writer, tally: _Tally, bar: Any, fingerprints: dict[str, str] | None
    ) -> None:
        self.writer = writer
        self.tally = tally
        self.bar = bar
        self.fingerprints = fingerprints

    def add(self, rec: Record, line: str) -> None:
        if rec.status == "pending":  # never checkpointed: the next round runs it again
            self.tally.add(rec, fresh=True)
            self.bar.update(1)
            return
        if self.fingerprints is not None and rec.id in self.fingerprints:
            rec = rec.model_copy(update={"inputs": self.fingerprints[rec.id]})
            line = rec.model_dump_json()
        self.writer.write(line)
        self.tally.add(rec, fresh=True)
        self.bar.update(1)

    def close(self) -> None:
        self.writer.close()
        self.bar.close()


async def _execute(
    runner: Any,
    fn: Callable[[Any], Awaitable[Any]],
    pending: tuple[Sequence[tuple[str, Any]], list[str]],
    concurrency: int,
    store: _Store,
) -> BaseException | None:
    """Run the pending items on the executor; the fatal error that stopped them, if any."""
    fatal, token = open_signal()  # the executor's tasks inherit it

    def emit(rec: Record, line: str) -> None:
        if fatal.error is not None:
            raise _Stop  # not written: a re-run does this item again
        store.add(rec, line)

    try:
        try:
            await runner.run(fn, pending[0], concurrency=concurrency, emit=emit)
        except _Stop:
            pass
        if fatal.error is None:
            for item_id in pending[1]:  # an executor that lost an item: counted, never dropped
                if item_id not in store.tally.finished:
                    emit(*finish_record(_lost(item_id, runner.name)))
    finally:
        close_signal(token)
        store.close()
    return fatal.error


def _aborted(error: BaseException, finished: int, path: Path | None) -> BatchAborted:
    where = f"; {finished} items finished this run are kept in {path}" if path and finished else ""
    return BatchAborted(
        f"stopped at the first call that every call would repeat: {error}{where}. "
        + _fatal_hint(error),
        error=error,
        finished=finished,
    )


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

    def resume(self, ids: list[str], done: dict[str, Record]) -> int:
        """Count the records resumed from the checkpoint, in input order; how many."""
        for i in ids:
            if i in done:
                self.add(done[i], fresh=False)
        return len(self.finished)

    def result(self, ids: list[str], path: Path | None, **fields: Any) -> BatchResult:
        if self.keep:
            return BatchResult(records=[self.records[i] for i in ids], usage=self.now, **fields)
        from conflicteval.execution.lazyrecords import CheckpointRecords

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
