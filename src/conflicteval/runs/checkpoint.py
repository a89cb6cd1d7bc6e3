"""The checkpoint file: its records, its lock, its identity and each record's inputs.

A checkpoint is a JSONL file with one :class:`Record` per finished item, appended
(and flushed) as items finish. :class:`_Writer` owns it while a batch runs (a lock
beside the file and a lock on the file itself, so every name of one file is one
checkpoint). ``<file>.meta.json`` records the identity of the configuration that
made it (see :mod:`conflicteval.runs.identity`); each record carries a fingerprint of
the inputs its item was made from. :mod:`conflicteval.runs.runner` uses them; the
public names are re-exported by :mod:`conflicteval.runs`.
"""

from __future__ import annotations

import errno
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, Field

from conflicteval._atomic import write_json
from conflicteval._filelock import lock_exclusive
from conflicteval.errors import CheckpointMismatch, ConflictEvalError
from conflicteval.types import CallReply, Status, Usage

log = logging.getLogger("conflicteval.runner")

__all__ = [
    "META_SUFFIX",
    "Record",
    "iter_checkpoint",
    "meta_path",
    "read_checkpoint",
    "read_identity",
    "record_identity",
]


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
        inputs: The fingerprint of the item's inputs that produced this record
            (see ``inputs`` of :func:`run_batch`; None when the batch gave none).
        calls: What each of the item's model calls replied, in the order the replies
            came (bounded; empty when the run keeps no replies, see
            ``RunOptions.keep_replies``).
        more_calls: Calls made beyond the kept ones (their replies are not kept).
    """

    id: str
    status: Status
    result: Any = None
    error: str | None = None
    raw: str | None = None
    usage: Usage = Field(default_factory=Usage)
    inputs: str | None = None
    # a record without replies is written as before they were kept (the same bytes)
    calls: list[CallReply] = Field(default_factory=list, exclude_if=lambda calls: not calls)
    more_calls: int = Field(default=0, exclude_if=lambda n: not n)


def read_checkpoint(path: str | os.PathLike[str]) -> dict[str, Record]:
    """Read a checkpoint file into {id: Record}.

    A last line cut short by a kill is ignored (with a warning); any other
    unreadable line is an error naming the file and line. When an id appears
    twice, the later line wins.
    """
    return {rec.id: rec for _, rec in iter_checkpoint(path)}


def iter_checkpoint(path: str | os.PathLike[str]) -> Iterator[tuple[int, Record]]:
    """Every record of a checkpoint file with the byte offset of its line, read line by line.

    Nothing when the file does not exist. A last line cut short by a kill is
    skipped (with a warning); any other unreadable line is an error naming the
    file and line.
    """
    p = Path(path)
    if not p.exists():
        return
    validate = Record.model_validate_json
    with p.open("rb") as fh:
        pos = 0
        for lineno, raw in enumerate(fh, start=1):
            off, pos = pos, pos + len(raw)
            # undecodable bytes stay in the line (escaped), so its line is named, not a traceback
            line = raw.decode("utf-8", "surrogateescape")
            if not line.strip():
                continue
            try:
                rec = validate(line)
            except ValueError as exc:
                if not line.endswith("\n"):  # only the last line can lack its newline
                    log.warning("%s: ignoring a partial last line (interrupted write)", p)
                    continue
                raise ConflictEvalError(
                    f"{p}: line {lineno}: not a checkpoint record: {exc}"
                ) from exc
            yield off, rec


def record_at(fh: BinaryIO, offset: int) -> Record:
    """The record whose line starts at byte ``offset`` of an open checkpoint, read as
    :func:`iter_checkpoint` reads it (undecodable bytes escaped), so a line the resume scan
    accepted reads back the same."""
    fh.seek(offset)
    return Record.model_validate_json(fh.readline().decode("utf-8", "surrogateescape"))


class _Writer:
    """Owns the checkpoint while a batch runs: a lock, then one flushed line per record.

    Two locks (advisory ``flock``, where the platform has one) keep a second
    process from appending to the same checkpoint at the same time, which
    would interleave lines and repeat work: one on ``<checkpoint>.lock`` beside
    the file the path resolves to (symbolic links followed), and one on the
    checkpoint file itself, which every hard link to it shares.
    """

    def __init__(self, path: Path | None) -> None:
        self.fh: Any = None
        self.lock: Any = None
        self.held: int | None = None  # a descriptor of the checkpoint file, locked
        self.path = path
        self.closed = False
        self.written = 0
        self.end = 0  # the checkpoint's size: where the next line goes
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self.lock = _lock(path)
        try:
            if path.exists():
                self._hold()
                _drop_partial_last_line(path)
        except BaseException:
            self.close()
            raise

    def _hold(self) -> None:
        """Lock the checkpoint file itself (all its names), through a read-only descriptor."""
        assert self.path is not None
        fd = os.open(self.path, os.O_RDONLY)
        try:
            lock_exclusive(
                fd,
                f"{self.path}: the checkpoint is in use by another running batch (through "
                "another name of the same file); wait for it to finish or use another checkpoint",
            )
        except BaseException:
            os.close(fd)
            raise
        self.held = fd

    def _release(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None
        if self.held is not None:
            os.close(self.held)
            self.held = None

    def reopen(self) -> None:
        """Let go of a file moved aside (``restart``); the next write opens the new one."""
        self._release()

    def write(self, line: str) -> int:
        """Append one record's JSON line and flush it; the line's byte offset in the file."""
        if self.path is None:
            return 0
        if self.closed:  # never write to a checkpoint whose lock is given up
            raise ConflictEvalError(f"{self.path}: write after the batch ended")
        data = (line + "\n").encode("utf-8")
        try:
            if self.fh is None:
                self.fh = self.path.open("ab")
                if self.held is None:  # created by this run
                    self._hold()
                self.end = os.fstat(self.fh.fileno()).st_size
            self.fh.write(data)
            self.fh.flush()
        except OSError as exc:
            raise ConflictEvalError(
                f"{self.path}: could not write the checkpoint ({_os_reason(exc)}); "
                f"the {self.written} items finished in this run before it, and all earlier "
                "ones, are safe in it: free the space (or fix the file) and run the same "
                "command again to resume"
            ) from exc
        self.written += 1
        off = self.end
        self.end += len(data)
        return off

    def close(self) -> None:
        self.closed = True
        self._release()
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
    for _ in range(100):
        fh = _lock_path(path).open("a")
        try:
            lock_exclusive(
                fh.fileno(),
                f"{path}: the checkpoint is in use by another running batch; "
                "wait for it to finish or use another checkpoint",
            )
        except BaseException:
            fh.close()
            raise
        try:
            same = os.stat(_lock_path(path)).st_ino == os.fstat(fh.fileno()).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fh
        fh.close()  # the holder removed the file as it finished: lock the new one
    raise ConflictEvalError(f"{path}: could not take the checkpoint's lock")  # pragma: no cover


def _lock_path(path: Path) -> Path:
    real = _real(path)  # one file reached through a symbolic link is one checkpoint
    return real.with_name(real.name + ".lock")


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


META_SUFFIX = ".meta.json"


def meta_path(checkpoint: str | os.PathLike[str]) -> Path:
    """Where the identity of a checkpoint is recorded.

    The identity belongs to the file, not to the name it is reached by: it is
    ``<file>.meta.json`` beside the file the path resolves to (symbolic links
    followed). For a file with several hard links whose own name has none, it
    is the identity file of another name of the same file in its directory.
    """
    real = _real(checkpoint)
    own = real.with_name(real.name + META_SUFFIX)
    if own.exists():
        return own
    try:
        links = real.stat().st_nlink
    except OSError:
        return own
    if links > 1:
        for candidate in sorted(real.parent.glob("*" + META_SUFFIX)):
            sibling = candidate.with_name(candidate.name[: -len(META_SUFFIX)])
            try:
                if sibling.exists() and os.path.samefile(sibling, real):
                    return candidate
            except OSError:
                continue
    return own


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
    from conflicteval.runs.identity import describe

    _write_identity(Path(checkpoint), describe(identity))


def _write_identity(checkpoint: Path, identity: dict[str, Any]) -> None:
    """Write the checkpoint's identity file atomically (a kill leaves the old file or the new)."""
    target = meta_path(checkpoint)
    name = target.name[: -len(META_SUFFIX)]
    payload = {"identity": identity, "note": "what produced " + name}
    write_json(target, payload, sort_keys=True)


def _move_aside(path: Path) -> Path | None:
    """Move a checkpoint (and its identity) aside as ``<name>.old`` (``.old2``, ...).

    The file the path resolves to is moved (a symbolic link stays and names the new one).
    """
    path = _real(path)
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


ADOPT_HINT = (
    "start over with --restart (restart=True), which moves it aside, or, if you know it was "
    "made by this configuration from these inputs, take it over with --adopt-checkpoint "
    "(adopt=True)"
)


def _check_identity(path: Path, identity: dict[str, Any] | None, done: int, adopt: bool) -> None:
    """Refuse a checkpoint made by another configuration; record this run's identity.

    ``done`` is how many finished items the checkpoint holds. A checkpoint with
    finished items but no identity record (deleted, or made before identities were
    recorded) is refused unless ``adopt``.
    """
    from conflicteval.runs.identity import describe, diff_identity

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
        if not adopt:
            raise ConflictEvalError(
                f"{path}: {done} finished items but no record of the configuration that "
                f"made them ({meta_path(path).name} is missing), so they cannot be told from "
                f"another run's; {ADOPT_HINT}"
            )
        log.warning("%s: adopting a checkpoint without an identity record as this run's", path)
    _write_identity(path, new)


def _unmarked_error(path: Path | None, n: int, first: str | None) -> ConflictEvalError:
    """Finished items that record no input fingerprint, in a run that fingerprints them."""
    return ConflictEvalError(
        f"{path}: {n} finished items do not record the inputs they were made "
        f"from (first: {first}; made by an earlier version), so a changed item "
        f"cannot be told from an unchanged one; {ADOPT_HINT}"
    )


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
