"""Where a batch export keeps its files, and its manifest of exported requests.

Beside every request file ``requests.jsonl`` live its manifest
(``requests.manifest.jsonl``: one line per exported request, with ``custom_id``,
``model``, ``request_model``, ``file`` and ``round``), ``batch run``'s state
(``requests.batches.json``) and downloaded results (``requests.results/``).
The manifest is rewritten whole (temporary file + rename) on every export
round; a torn last line (a write cut short) is skipped when read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from conflicteval._atomic import atomic_open
from conflicteval._diskindex import IdSet
from conflicteval.errors import DataError

log = logging.getLogger("conflicteval.batch")

# --------------------------------------------------------------------------- paths


def manifest_path(export: str | os.PathLike[str]) -> Path:
    """``requests.jsonl`` → ``requests.manifest.jsonl`` (beside it)."""
    p = Path(export)
    return p.with_name(f"{_stem(p)}.manifest.jsonl")


def state_path(export: str | os.PathLike[str]) -> Path:
    """``requests.jsonl`` → ``requests.batches.json`` (``batch run``'s state)."""
    p = Path(export)
    return p.with_name(f"{_stem(p)}.batches.json")


def results_dir(export: str | os.PathLike[str]) -> Path:
    """Where ``batch run`` keeps downloaded result files: ``requests.results/``."""
    p = Path(export)
    return p.with_name(f"{_stem(p)}.results")


def result_file(export: str | os.PathLike[str], batch_id: str, kind: str) -> Path:
    """Where ``batch run`` stores one downloaded result file of batch ``batch_id``.

    The id comes from the server, so it is never used as a path as it is: only
    letters, digits, ``-`` and ``_`` are kept, and an id with anything else (a
    ``/``, ``..``) is named by its sha256 instead, inside :func:`results_dir`.
    """
    folder = results_dir(export)
    safe = re.sub(r"[^A-Za-z0-9_-]", "", batch_id)
    if safe != batch_id or not safe:
        safe = "batch-" + hashlib.sha256(batch_id.encode("utf-8", "replace")).hexdigest()[:24]
    return folder / f"{safe}.{kind}.jsonl"


def _stem(p: Path) -> str:
    return p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.stem


def _part_path(export: Path, index: int) -> Path:
    return export.with_name(f"{_stem(export)}.{index:03d}.jsonl")


def _stale_parts(export: Path) -> list[Path]:
    stem = _stem(export)
    out = [export] if export.exists() else []
    for p in export.parent.glob(f"{stem}.[0-9][0-9][0-9].jsonl"):
        out.append(p)
    return out


# --------------------------------------------------------------------------- manifest


@dataclass(frozen=True)
class ManifestEntry:
    """One exported request.

    ``request_model`` is the body's ``model`` (the name sent to the server);
    manifests written before it was recorded leave it empty.
    """

    custom_id: str
    model: str
    file: str
    round: int
    request_model: str = ""

    @property
    def sent_model(self) -> str:
        """The model name the request body carried (from the spec when not recorded)."""
        return self.request_model or self.model.split("/", 1)[-1]


def _manifest_lines(p: Path) -> Iterator[tuple[int, bytes, bool]]:
    """``(line number, bytes, complete)`` of a manifest, read line by line.

    The last line is incomplete when torn (no final newline).
    """
    with p.open("rb") as fh:
        for n, raw in enumerate(fh, start=1):
            if raw.endswith(b"\n"):
                yield n, raw[:-1], True
            elif raw:
                yield n, raw, False  # no final newline: a torn write


def read_manifest(path: str | os.PathLike[str]) -> list[ManifestEntry]:
    """The entries of a manifest file (missing file: none); see :func:`iter_manifest`."""
    return list(iter_manifest(path))


def iter_manifest(path: str | os.PathLike[str]) -> Iterator[ManifestEntry]:
    """The entries of a manifest file one at a time (missing file: none).

    A torn last line (a write cut off before its newline) is skipped with a
    warning: its requests were never submitted from this manifest.

    Raises:
        DataError: A complete line is not a manifest entry (names file and line).
    """
    p = Path(path)
    if not p.exists():
        return
    for lineno, raw, complete in _manifest_lines(p):
        if not raw.strip():
            continue
        try:
            entry = _entry(raw, p, lineno)
        except DataError:
            if not complete:
                log.warning("%s: line %d is torn (no final newline); ignoring it", p, lineno)
                continue
            raise
        yield entry


def _entry(raw: bytes, path: Path, lineno: int) -> ManifestEntry:
    """One manifest line as an entry; a DataError naming the file, line and field if it is none.

    ``custom_id``, ``model`` and ``file`` must be non-empty text, ``round`` a whole number
    from 1, ``request_model`` text when present: the export writes nothing else.
    """
    try:
        row = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, nested too deep
        reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:80]
        raise DataError(path, lineno, None, f"not a manifest entry: {reason}") from None
    if not isinstance(row, dict):
        raise DataError(path, lineno, None, "not a manifest entry: a line must be a JSON object")
    for name in ("custom_id", "model", "file"):
        if not isinstance(row.get(name), str) or not row[name]:
            raise DataError(path, lineno, name, "missing or not a non-empty string")
    number = row.get("round")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise DataError(path, lineno, "round", "missing or not a whole number from 1")
    sent = row.get("request_model")
    if sent is not None and not isinstance(sent, str):
        raise DataError(path, lineno, "request_model", "not a string")
    return ManifestEntry(row["custom_id"], row["model"], row["file"], number, sent or "")


def copy_manifest(path: Path, out: IO[str]) -> None:
    """Write the complete lines of the manifest at ``path`` (if any) to ``out``, line by line."""
    if path.exists():
        for _, raw, complete in _manifest_lines(path):
            if complete:
                out.write(raw.decode("utf-8") + "\n")


def _append_manifest(path: Path, lines: list[str]) -> None:
    """Add ``lines`` to the manifest by writing it whole (temporary file + rename)."""
    with atomic_open(path) as fh:
        copy_manifest(path, fh)
        fh.write("".join(lines))


def known_ids(export: str | os.PathLike[str]) -> IdSet:
    """The custom ids ever exported to ``export`` (from its manifest), as a set on disk.

    A :class:`~conflicteval._diskindex.IdSet` (a scratch index): memory flat in the
    number of requests ever exported.
    """
    return IdSet(e.custom_id for e in iter_manifest(manifest_path(export)))


def latest_round(export: str | os.PathLike[str]) -> tuple[int, list[Path]]:
    """The last export round of ``export`` and the request files it wrote.

    The manifest is read twice, entry by entry (never whole).
    """
    mpath = manifest_path(export)
    last = max((e.round for e in iter_manifest(mpath)), default=None)
    if last is None:
        return 0, []
    names: list[str] = []
    for e in iter_manifest(mpath):
        if e.round == last and e.file not in names:
            names.append(e.file)
    base = Path(export).parent
    return last, [base / n for n in names]
