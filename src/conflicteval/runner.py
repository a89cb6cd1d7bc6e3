"""Batch execution: bounded concurrency, progress, JSONL checkpoint and resume.

:func:`run_batch` runs an async function over items with ids. Every item ends
``ok``, ``parse_error`` or ``model_error``; a failure never stops the batch and
is never dropped. Each finished item is appended at once as one JSON line to
the checkpoint (flushed), so a run that is killed loses nothing it finished,
and a re-run with the same checkpoint makes no call for a finished id.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import json
import logging
import math
import os
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from conflicteval._atomic import atomic_write_text
from conflicteval._fatal import close_signal, open_signal
from conflicteval._sync import run_sync
from conflicteval.errors import (
    BatchAborted,
    CheckpointMismatch,
    ConflictEvalError,
    ModelError,
    ParseFailure,
    PendingCall,
)
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
    executor: str = "local"
    """The executor that computed this run's items (``local``, ``ray``, ...)."""

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
            f"{c['model_error']} model errors{pending} ({self.resumed} resumed from checkpoint); "
            f"this run: {u.calls} model calls ({u.cached_calls} from cache{u.truncated_note()}), "
            f"{u.tokens_text()}; {cost_text(u)}; executor {self.executor}"
        )

    def failure_reasons(self, limit: int = 5) -> list[tuple[str, int, str]]:
        """The most common failure reasons: ``[(reason, count, example id), ...]``.

        Failures are the records with status ``parse_error`` or ``model_error``.

        Reasons are grouped by status and the error text with numbers and
        quoted parts masked, so "item 3 ..." and "item 7 ..." count together.
        """
        groups: dict[str, list[Record]] = {}
        for rec in self.records:
            if rec.status in ("parse_error", "model_error"):
                groups.setdefault(_reason_key(rec), []).append(rec)
        ranked = sorted(groups.values(), key=lambda recs: -len(recs))[:limit]
        return [(_reason_text(recs[0]), len(recs), recs[0].id) for recs in ranked]

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
        self.lock = _lock(path.resolve())  # one file reached through a link is one checkpoint
        self.written = 0
        if path.exists():
            _drop_partial_last_line(path)

    def write(self, line: str) -> None:
        """Append one record's JSON line and flush it."""
        if self.path is None:
            return
        if self.closed:  # never write to a checkpoint whose lock is given up
            raise ConflictEvalError(f"{self.path}: write after the batch ended")
        try:
            if self.fh is None:
                self.fh = self.path.open("a", encoding="utf-8")
            self.fh.write(line + "\n")
            self.fh.flush()
        except OSError as exc:
            raise ConflictEvalError(
                f"{self.path}: could not write the checkpoint ({_os_reason(exc)}); "
                f"the {self.written} items finished in this run before it, and all earlier "
                "ones, are safe in it: free the space (or fix the file) and run the same "
                "command again to resume"
            ) from exc
        self.written += 1

    def close(self) -> None:
        self.closed = True
        if self.fh is not None:
            self.fh.close()
            self.fh = None
        if self.lock is not None:
            # remove the lock file while still holding the lock (a process that opened it
            # meanwhile sees that the path no longer names its file and takes a new one)
            try:
                os.unlink(_lock_path(self.path))  # type: ignore[arg-type]
            except OSError:
                pass
            self.lock.close()  # closing the file releases the flock
            self.lock = None


def _os_reason(exc: OSError) -> str:
    """An OS error in words: "no space left on the device" for a full disk."""
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    return exc.strerror or str(exc)


def _lock(path: Path) -> Any:
    """Take the checkpoint's lock, or raise when another process holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock, documented
        return None
    for _ in range(100):
        fh = _lock_path(path).open("a")
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            fh.close()
            raise ConflictEvalError(
                f"{path}: the checkpoint is in use by another running batch; "
                "wait for it to finish or use another checkpoint"
            ) from exc
        try:
            same = os.stat(_lock_path(path)).st_ino == os.fstat(fh.fileno()).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fh
        fh.close()  # the holder removed the file as it finished: lock the new one
    raise ConflictEvalError(f"{path}: could not take the checkpoint's lock")  # pragma: no cover


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


META_SUFFIX = ".meta.json"


def meta_path(checkpoint: str | os.PathLike[str]) -> Path:
    """Where the identity of a checkpoint is recorded: ``<checkpoint>.meta.json``."""
    p = Path(checkpoint)
    return p.with_name(p.name + META_SUFFIX)


def read_identity(checkpoint: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The identity recorded with a checkpoint (None when none was recorded)."""
    p = meta_path(checkpoint)
    if not p.exists():
        return None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConflictEvalError(f"{p}: unreadable checkpoint identity: {exc}") from exc
    ident = data.get("identity") if isinstance(data, dict) else None
    if not isinstance(ident, dict):
        raise ConflictEvalError(f"{p}: no 'identity' object in the checkpoint identity file")
    return ident


def record_identity(checkpoint: str | os.PathLike[str], identity: dict[str, Any]) -> None:
    """Record ``identity`` as the checkpoint's (for a workflow that extends its own run)."""
    from conflicteval.identity import describe

    _write_identity(Path(checkpoint), describe(identity))


def _write_identity(checkpoint: Path, identity: dict[str, Any]) -> None:
    """Write ``<checkpoint>.meta.json`` atomically (a kill leaves the old file or the new)."""
    payload = {"identity": identity, "note": "what produced " + checkpoint.name}
    atomic_write_text(meta_path(checkpoint), json.dumps(payload, indent=2, sort_keys=True) + "\n")


def _move_aside(path: Path) -> Path | None:
    """Move a checkpoint (and its identity) aside as ``<name>.old`` (``.old2``, ...)."""
    if not path.exists():
        meta_path(path).unlink(missing_ok=True)
        return None
    n = 1
    while True:
        target = path.with_name(f"{path.name}.old{'' if n == 1 else n}")
        if not target.exists():
            break
        n += 1
    os.replace(path, target)
    if meta_path(path).exists():
        os.replace(meta_path(path), meta_path(target))
    return target


def _check_identity(path: Path, identity: dict[str, Any] | None, done: dict[str, Record]) -> None:
    """Refuse a checkpoint made by another configuration; record this run's identity."""
    from conflicteval.identity import describe, diff_identity

    if identity is None:
        return
    new = describe(identity)
    old = read_identity(path)
    if old is not None and done:
        differences = diff_identity(old, new)
        if differences:
            raise CheckpointMismatch(str(path), differences)
        return
    if old is None and done:
        log.warning(
            "%s: no record of the configuration that made this checkpoint; "
            "assuming it is this run's (recording it now)",
            path,
        )
    _write_identity(path, new)


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


class _ItemTimeout(Exception):
    pass


async def _bounded(work: Awaitable[Any], seconds: float | None) -> Any:
    """Await ``work``, stopping it after ``seconds`` (None: no bound)."""
    if seconds is None:
        return await work
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        return await asyncio.wait_for(work, seconds)
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

    Returns:
        A BatchResult with one record per item, in input order.

    Raises:
        CheckpointMismatch: The checkpoint was made by another identity.
        BatchAborted: A call failed in a way every call would (a refused or
            missing API key); the batch stopped at once. Finished items are
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
        if path is not None and restart:
            moved = _move_aside(path)
            if moved is not None:
                log.warning("%s: starting over; the old checkpoint is now %s", path, moved)
        done = read_checkpoint(path) if path is not None else {}
        if path is not None:
            _check_identity(path, identity, done)
    except BaseException:
        writer.close()
        raise
    if retry_failed:
        done = {k: v for k, v in done.items() if v.status != "model_error"}
    todo = [(i, it) for i, it in zip(ids, item_list, strict=True) if i not in done]
    results: dict[str, Record] = {i: done[i] for i in ids if i in done}
    resumed = len(results)
    bar = _progress(len(ids), resumed, desc, progress)

    def emit(rec: Record, line: str) -> None:
        if fatal.error is not None:
            raise _Stop  # not written: a re-run does this item again
        if rec.status == "pending":  # never checkpointed: the next round runs it again
            results[rec.id] = rec
            bar.update(1)
            return
        writer.write(line)
        results[rec.id] = rec
        bar.update(1)

    fatal, token = open_signal()  # the executor's tasks inherit it
    try:
        try:
            await runner.run(fn, todo, concurrency=concurrency, emit=emit)
        except _Stop:
            pass
        if fatal.error is None:
            for item_id, _ in todo:  # an executor that lost an item: counted, never dropped
                if item_id not in results:
                    emit(*finish_record(_lost(item_id, runner.name)))
    finally:
        close_signal(token)
        writer.close()
        bar.close()
    if fatal.error is not None:
        finished = len(results) - resumed
        where = f"; {finished} items finished this run are kept in {path}" if path else ""
        raise BatchAborted(
            f"stopped at the first call that every call would repeat: {fatal.error}{where}. "
            + _fatal_hint(fatal.error),
            error=fatal.error,
            finished=finished,
        )
    records = [results[i] for i in ids]
    now = Usage()
    for rec in records:
        if rec.id not in done:
            now.add(rec.usage)
    return BatchResult(records=records, resumed=resumed, usage=now, executor=runner.name)


async def run_item(fn: Callable[[T], Awaitable[Any]], item_id: str, item: T) -> Record:
    """Run ``fn`` on one item and say how it ended; never raises for the item's failure."""
    with usage_scope() as usage:
        try:
            result = await fn(item)
            rec = Record(id=item_id, status="ok", result=result, usage=usage)
        except _ItemTimeout as exc:
            log.warning("item %s: %s", item_id, exc)
            rec = Record(id=item_id, status="model_error", error=str(exc), usage=usage)
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


def finish_record(rec: Record) -> tuple[Record, str]:
    """The record as its checkpoint line, and as a resumed run reads that line back.

    A result that is not JSON-serialisable ends the item ``model_error``. A
    pydantic result becomes its dict, a tuple a list: fresh and resumed runs
    give the same results.
    """
    try:
        line = rec.model_dump_json()
    except (TypeError, ValueError) as exc:
        rec = Record(
            id=rec.id,
            status="model_error",
            error=f"result is not JSON-serialisable: {exc}",
            usage=rec.usage,
        )
        line = rec.model_dump_json()
    else:
        rec = Record.model_validate_json(line)
    return rec, line


def _lost(item_id: str, executor: str) -> Record:
    return Record(
        id=item_id,
        status="model_error",
        error=f"the {executor} executor returned no result for this item",
    )


class _Stop(Exception):
    """Raised in a worker to stop the batch (a fatal failure was reported)."""


def _fatal_hint(error: BaseException) -> str:
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
