"""Batch execution: bounded concurrency, progress, JSONL checkpoint and resume.

:func:`run_batch` runs an async function over items with ids. Every item ends
``ok``, ``parse_error`` or ``model_error``; a failure never stops the batch and
is never dropped. Each finished item is appended at once as one JSON line to
the checkpoint (flushed), so a run that is killed loses nothing it finished,
and a re-run with the same checkpoint makes no call for a finished id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from conflicteval._sync import run_sync
from conflicteval.errors import ConflictEvalError, ModelError, ParseFailure, PendingCall
from conflicteval.models.core import usage_scope
from conflicteval.types import Status, Usage

log = logging.getLogger("conflicteval.runner")

T = TypeVar("T")


class Record(BaseModel):
    """How one item of a batch ended.

    Attributes:
        id: The item's id.
        status: ``ok``, ``parse_error``, ``model_error``, or ``pending`` (waiting
            for a batch result; never written to the checkpoint).
        result: The item function's (JSON-serialisable) result when ``ok``.
        error: The reason when not ``ok``.
        raw: The raw model text behind a parse failure, if any.
        usage: Token usage of this item's model calls.
    """

    id: str
    status: Status
    result: Any = None
    error: str | None = None
    raw: str | None = None
    usage: Usage = Field(default_factory=Usage)


class BatchResult(BaseModel):
    """All records of a batch, in input order, with counts and usage."""

    records: list[Record]
    resumed: int = 0
    usage: Usage = Field(default_factory=Usage)
    """Usage of the model calls made by this run (items resumed from a checkpoint excluded)."""

    @property
    def total_usage(self) -> Usage:
        """Usage of every record, those resumed from the checkpoint included."""
        total = Usage()
        for rec in self.records:
            total.add(rec.usage)
        return total

    @property
    def counts(self) -> dict[str, int]:
        """Items per status, plus ``total`` (``pending`` only when some are)."""
        counts = {"ok": 0, "parse_error": 0, "model_error": 0, "pending": 0}
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
        """One line: counts per status, resumed items and token usage."""
        c = self.counts
        u = self.usage
        n = c.get("pending", 0)
        pending = f", {n} pending" if n else ""  # waiting for batch results
        return (
            f"{c['total']} items: {c['ok']} ok, {c['parse_error']} parse errors, "
            f"{c['model_error']} model errors{pending} ({self.resumed} resumed from checkpoint); "
            f"this run: {u.calls} model calls ({u.cached_calls} from cache), "
            f"{u.prompt_tokens} prompt + {u.completion_tokens} completion tokens"
        )

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
            rows.append(row)
        return pd.DataFrame(rows)


def read_checkpoint(path: str | os.PathLike[str]) -> dict[str, Record]:
    """Read a checkpoint file into {id: Record}.

    A last line cut short by a kill is ignored (with a warning); any other
    unreadable line is an error naming the file and line. When an id appears
    twice, the later line wins.
    """
    records: dict[str, Record] = {}
    p = Path(path)
    if not p.exists():
        return records
    with p.open("r", encoding="utf-8") as fh:
        lines = fh.readlines()
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = Record.model_validate_json(line)
        except ValueError as exc:
            if lineno == len(lines) and not line.endswith("\n"):
                log.warning("%s: ignoring a partial last line (interrupted write)", p)
                continue
            raise ConflictEvalError(f"{p}: line {lineno}: not a checkpoint record: {exc}") from exc
        records[rec.id] = rec
    return records


class _Writer:
    """Owns the checkpoint while a batch runs: a lock, then one flushed line per record.

    The lock (``<checkpoint>.lock``, an advisory ``flock`` where the platform
    has one) keeps a second process from appending to the same checkpoint at
    the same time, which would interleave lines and repeat work.
    """

    def __init__(self, path: Path | None) -> None:
        self.fh: Any = None
        self.lock: Any = None
        self.path = path
        self.closed = False
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = _lock(path)
        if path.exists():
            _drop_partial_last_line(path)

    def write(self, line: str) -> None:
        """Append one record's JSON line and flush it."""
        if self.path is None:
            return
        if self.closed:  # never write to a checkpoint whose lock is given up
            raise ConflictEvalError(f"{self.path}: write after the batch ended")
        if self.fh is None:
            self.fh = self.path.open("a", encoding="utf-8")
        self.fh.write(line + "\n")
        self.fh.flush()

    def close(self) -> None:
        self.closed = True
        if self.fh is not None:
            self.fh.close()
            self.fh = None
        if self.lock is not None:
            self.lock.close()  # closing the file releases the flock
            self.lock = None


def _lock(path: Path) -> Any:
    """Take the checkpoint's lock, or raise when another process holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock, documented
        return None
    fh = path.with_name(path.name + ".lock").open("a")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        fh.close()
        raise ConflictEvalError(
            f"{path}: the checkpoint is in use by another running batch; "
            "wait for it to finish or use another checkpoint"
        ) from exc
    return fh


def _drop_partial_last_line(path: Path) -> None:
    """Cut a last line that a kill left without its newline (it was never a record)."""
    size = path.stat().st_size
    if size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        block = min(size, 1 << 20)
        while True:
            fh.seek(size - block)
            data = fh.read(block)
            cut = data.rfind(b"\n")
            if cut != -1:
                fh.truncate(size - block + cut + 1)
                return
            if block == size:
                fh.truncate(0)
                return
            block = min(size, block * 2)


def _progress(total: int, initial: int, desc: str, enabled: bool | None) -> Any:
    from tqdm.auto import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, initial=initial, desc=desc, disable=not enabled, unit="item")


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

    Returns:
        A BatchResult with one record per item, in input order.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    keyfn = key or _default_key
    item_list = list(items)
    ids = [str(keyfn(it)) for it in item_list]
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise ValueError(f"duplicate item id {i!r} in batch")
        seen.add(i)
    path = Path(checkpoint) if checkpoint is not None else None
    writer = _Writer(path)  # locks the checkpoint before it is read
    try:
        done = read_checkpoint(path) if path is not None else {}
    except BaseException:
        writer.close()
        raise
    if retry_failed:
        done = {k: v for k, v in done.items() if v.status != "model_error"}
    todo = [(i, it) for i, it in zip(ids, item_list, strict=True) if i not in done]
    results: dict[str, Record] = {i: done[i] for i in ids if i in done}
    resumed = len(results)
    bar = _progress(len(ids), resumed, desc, progress)
    queue: asyncio.Queue[tuple[str, T]] = asyncio.Queue()
    for pair in todo:
        queue.put_nowait(pair)

    async def run_one(item_id: str, item: T) -> Record:
        with usage_scope() as usage:
            try:
                result = await fn(item)
                rec = Record(id=item_id, status="ok", result=result, usage=usage)
            except ParseFailure as exc:
                rec = Record(
                    id=item_id, status="parse_error", error=exc.reason, raw=exc.raw, usage=usage
                )
            except ModelError as exc:
                rec = Record(id=item_id, status="model_error", error=str(exc), usage=usage)
            except PendingCall as exc:  # batch export: done in a later round, not a failure
                rec = Record(id=item_id, status="pending", error=str(exc), usage=usage)
            except asyncio.CancelledError as exc:
                cancelling = getattr(asyncio.current_task(), "cancelling", None)
                if cancelling is None or cancelling():
                    raise  # the batch itself is cancelled (on 3.10 it cannot be told apart)
                # raised inside the item (a helper task it awaited was cancelled)
                log.warning("item %s raised CancelledError", item_id)
                rec = Record(
                    id=item_id,
                    status="model_error",
                    error=f"CancelledError: {exc}".rstrip(": "),
                    usage=usage,
                )
            except Exception as exc:
                log.warning("item %s raised %s: %s", item_id, type(exc).__name__, exc)
                rec = Record(
                    id=item_id,
                    status="model_error",
                    error=f"{type(exc).__name__}: {exc}",
                    usage=usage,
                )
        return rec

    async def worker() -> None:
        while True:
            try:
                item_id, item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            rec = await run_one(item_id, item)
            if rec.status == "pending":  # never checkpointed: the next round runs it again
                results[item_id] = rec
                bar.update(1)
                continue
            try:
                line = rec.model_dump_json()
            except (TypeError, ValueError) as exc:
                rec = Record(
                    id=item_id,
                    status="model_error",
                    error=f"result is not JSON-serialisable: {exc}",
                    usage=rec.usage,
                )
                line = rec.model_dump_json()
            else:
                # the record as a resumed run reads it back (a pydantic result becomes
                # its dict, a tuple a list), so fresh and resumed runs give the same results
                rec = Record.model_validate_json(line)
            writer.write(line)
            results[item_id] = rec
            bar.update(1)

    workers = [asyncio.ensure_future(worker()) for _ in range(min(concurrency, max(1, len(todo))))]
    try:
        await asyncio.gather(*workers)
    finally:
        try:
            # gather does not stop the other workers when one fails: stop them before the
            # checkpoint's lock is given up, so none goes on calling models and writing
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
        finally:
            writer.close()
            bar.close()
    records = [results[i] for i in ids]
    now = Usage()
    for rec in records:
        if rec.id not in done:
            now.add(rec.usage)
    return BatchResult(records=records, resumed=resumed, usage=now)


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
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("w", encoding="utf-8") as fh:
        for row in rows:
            if isinstance(row, BaseModel):
                fh.write(row.model_dump_json() + "\n")
            else:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n
