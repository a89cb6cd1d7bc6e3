"""Batch execution: bounded concurrency, progress, JSONL checkpoint and resume.

:func:`run_batch` runs an async function over items with ids. Every item ends
``ok``, ``parse_error`` or ``model_error``; a failure never stops the batch and
is never dropped. Each finished item is appended at once as one JSON line to
the checkpoint (flushed), so a run that is killed loses nothing it finished,
and a re-run with the same checkpoint makes no call for a finished id (made
from the same inputs, when the batch fingerprints them: see ``inputs``). Its
parts live beside it: the checkpoint file (records, locks, identity file) in
:mod:`~conflicteval.runs.checkpoint`, the result in
:mod:`~conflicteval.runs.results`, how one item ends in
:mod:`~conflicteval.runs.itemrun`, the item bound in
:mod:`~conflicteval.runs.bounds`, the bar in
:mod:`~conflicteval.runs.progress` and the settings in
:mod:`~conflicteval.runs.options`.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from conflicteval._atomic import atomic_open
from conflicteval._fatal import close_signal, open_signal
from conflicteval._sync import run_sync
from conflicteval.errors import BatchAborted, ConflictEvalError
from conflicteval.jsonio import LazyItems
from conflicteval.runs.bounds import bounded_items
from conflicteval.runs.checkpoint import (
    Record,
    _check_identity,
    _move_aside,
    _os_reason,
    _unmarked_error,
    _Writer,
)
from conflicteval.runs.itemrun import finish_record
from conflicteval.runs.lazyrecords import TodoItems
from conflicteval.runs.options import RunOptions
from conflicteval.runs.progress import progress_bar
from conflicteval.runs.results import BatchResult
from conflicteval.runs.runindex import RunIndex
from conflicteval.runs.tally import Tally

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
    keep_replies: bool | None = None,
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
        identity: What produces the results (:func:`conflicteval.runs.identity.describe`),
            recorded in ``<checkpoint>.meta.json``; resuming with another one
            raises :class:`CheckpointMismatch` naming the differing fields.
        inputs: Item → exactly the inputs its result is made from (JSON-able); an
            item whose inputs' fingerprint changed is computed again on resume
            (``BatchResult.changed``). None: items resume by id alone.
        keep_records: False (with a checkpoint): ``result.records`` reads the
            records back from the checkpoint one at a time (constant memory).
        concurrency, progress, retry_failed, restart, item_timeout, executor,
        adopt, keep_replies: The run settings (:class:`~conflicteval.runs.options.RunOptions`);
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
        keep_replies=keep_replies,
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
    index = RunIndex()  # every item's id, fingerprint and place: on disk, not in memory
    try:
        item_list = _ids(items, key, inputs, index)
        from conflicteval.models.answerers import active_answerer

        answerer = active_answerer()
        path = _checkpoint_path(checkpoint, answerer)
        writer, changed = _open_checkpoint(path, identity, index, run)
        tally = Tally(index, keep_records or path is None)
        resumed = tally.resume(path)
        todo = TodoItems(item_list, index, index.count - resumed, key or _default_key)
        del item_list
        bar = progress_bar(index.count, resumed, desc, run.progress)
        stored = _Store(writer, tally, bar, run.keep_replies)
        error = await _execute(runner, fn, todo, run.concurrency or 1, stored)
        if error is not None:
            raise _aborted(error, tally.fresh, path)
        result = tally.result(
            path,
            resumed=resumed,
            resumed_failed=tally.resumed_failed,
            changed=changed,
            executor=runner.name,
        )
    except BaseException:
        index.close()
        raise
    if tally.keep:  # else the records read from the checkpoint own the index
        index.close()
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
    from conflicteval.runs.executor import resolve_executor

    return resolve_executor(run.executor)


def _ids(
    items: Iterable[T],
    key: Callable[[T], Any] | None,
    inputs: Callable[[T], Any] | None,
    index: RunIndex,
) -> Any:
    """The items, once their ids (each one once) and fingerprints are in ``index``.

    Items read from a file (:class:`~conflicteval.jsonio.LazyItems`) stay there: one
    pass for ids and fingerprints here, one to feed the executor
    (:class:`~conflicteval.runs.lazyrecords.TodoItems`); any other iterable is held
    as a list.

    Raises:
        ValueError: An id is given twice.
    """
    item_list: Any = items if isinstance(items, LazyItems) else list(items)
    index.add_items(item_list, key or _default_key, inputs)
    return item_list


def _open_checkpoint(
    path: Path | None, identity: dict[str, Any] | None, index: RunIndex, run: RunOptions
) -> tuple[_Writer, int]:
    """Lock and read the checkpoint into the index: its writer, how many items changed.

    The checkpoint is read line by line into ``index`` (where each id's last line
    is), never into memory; the items whose records stand are marked resumed.
    """
    writer = _Writer(path)  # locks the checkpoint before it is read
    try:
        changed = _read_into(path, identity, index, writer, run) if path is not None else 0
    except BaseException:
        writer.close()
        raise
    if changed:
        log.warning(
            "%s: %d items' inputs changed since they were recorded: computing them again",
            path,
            changed,
        )
    return writer, changed


def _read_into(
    path: Path, identity: dict[str, Any] | None, index: RunIndex, writer: _Writer, run: RunOptions
) -> int:
    """Check the checkpoint and note its records in ``index``; how many items changed."""
    if run.restart:
        moved = _move_aside(path)
        writer.reopen()
        if moved is not None:
            log.warning("%s: starting over; the old checkpoint is now %s", path, moved)
    finished = index.scan_checkpoint(path)
    _check_identity(path, identity, finished, run.adopt)
    if not finished:
        return 0
    if index.fingerprinted:
        unmarked, first = index.unmarked()
        if unmarked and not run.adopt:
            raise _unmarked_error(path, unmarked, first)
        if unmarked:  # adopted: trusted as made from these inputs, written so again
            index.stamp(path, writer.write)
    changed = index.changed()
    index.resume(run.retry_failed)
    return changed


class _Store:
    """Where each finished record goes: the checkpoint (with its fingerprint), tally, bar."""

    def __init__(self, writer: _Writer, tally: Tally, bar: Any, keep_replies: bool) -> None:
        self.writer = writer
        self.keep_replies = keep_replies
        self.tally = tally
        self.bar = bar
        self.index = tally.index

    def add(self, rec: Record, line: str) -> None:
        if rec.status == "pending":  # never checkpointed: the next round runs it again
            self.tally.add(rec, None, line)
            self.bar.update(1)
            return
        update: dict[str, Any] = {}
        if not self.keep_replies and rec.calls:
            update["calls"] = []
        fp = self.index.fingerprint(rec.id)
        if fp is not None:
            update["inputs"] = fp
        if update:
            rec = rec.model_copy(update=update)
            line = rec.model_dump_json()
        off = self.writer.write(line)
        self.tally.add(rec, off if self.writer.path is not None else None, None)
        self.bar.update(1)

    def close(self) -> None:
        self.writer.close()
        self.bar.close()


async def _execute(
    runner: Any,
    fn: Callable[[Any], Awaitable[Any]],
    todo: TodoItems,
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
            await runner.run(fn, todo, concurrency=concurrency, emit=emit)
        except _Stop:
            pass
        if fatal.error is None:
            for item_id in store.index.unfinished():  # an executor that lost an item: counted
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
    """Write rows (dicts or pydantic models) as JSON lines, atomically; returns the count.

    The file appears (or replaces an earlier one) only once every row is written.
    """
    n = 0
    p = Path(path)
    try:
        with atomic_open(p) as fh:
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
