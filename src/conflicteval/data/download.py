"""Downloading one plain-HTTPS dataset file, resuming only what is provably the same file.

A download goes to ``<file>.part``; beside it ``<file>.part.json`` records what
the server said the file is (its total length, ``ETag`` and ``Last-Modified``).
A resumed download asks for the rest with ``Range`` and ``If-Range`` and keeps
the partial bytes only when the answer is a ``206`` whose ``Content-Range``
starts where the part ends, whose total length is the one recorded, and whose
validators are unchanged; anything else (a ``200``, a ``206`` from another
offset, another length or ``ETag``) starts over from the first byte. A body
shorter than its announced length is an error (the part is kept, to resume).
When the server announces no length at all, completeness cannot be known: the
file is kept, and ``<file>.unknown-length`` beside it says so (a first-use hash
is never recorded for it).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_write_text
from conflicteval.errors import ConflictEvalError

__all__ = ["IncompleteDownload", "download", "unknown_length_marker"]


class IncompleteDownload(ConflictEvalError):
    """The body ended before the length the server announced."""


def unknown_length_marker(target: Path) -> Path:
    """The marker beside ``target`` saying its download had no announced length."""
    return target.with_name(target.name + ".unknown-length")


def _meta_path(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def _read_meta(part: Path) -> dict[str, Any]:
    try:
        data = json.loads(_meta_path(part).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _fresh_part(part: Path) -> None:
    """Remove ``part`` and its record; a symlink planted there is removed, never followed."""
    for p in (part, _meta_path(part)):
        if p.is_symlink() or p.exists():
            p.unlink()


def _open_part(part: Path, append: bool) -> Any:
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    flags |= getattr(os, "O_NOFOLLOW", 0)  # never write through a symlink
    return os.fdopen(os.open(part, flags, 0o644), "wb")


_RANGE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")


def _resume_ok(resp: Any, have: int, meta: dict[str, Any]) -> bool:
    """Whether a ``206`` answer continues exactly the bytes already in the part."""
    m = _RANGE.fullmatch(resp.headers.get("content-range", "").strip())
    if m is None or int(m.group(1)) != have:
        return False
    total = None if m.group(3) == "*" else int(m.group(3))
    if total is None or total != meta.get("total"):
        return False
    for header in ("etag", "last-modified"):
        if meta.get(header) and resp.headers.get(header) not in (None, meta[header]):
            return False
    return True


def _total_of(resp: Any, have: int) -> int | None:
    if resp.status_code == 206:
        m = _RANGE.fullmatch(resp.headers.get("content-range", "").strip())
        if m and m.group(3) != "*":
            return int(m.group(3))
    length = resp.headers.get("content-length")
    return have + int(length) if length and length.isdigit() else None


def download(url: str, target: Path, desc: str, progress: Any) -> None:
    """Download ``url`` to ``target`` through ``target.part`` (see the module docstring).

    ``progress(total, initial)`` returns a progress bar (a context manager with ``update``).

    Raises:
        httpx.HTTPError: The server could not be reached or answered an error.
        IncompleteDownload: The body was shorter than announced (the part is kept).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(target.name + ".part")
    if part.is_symlink() or (part.exists() and not part.is_file()):
        _fresh_part(part)
    for attempt in range(2):
        if _fetch_once(url, part, progress, resume=attempt == 0):
            break
    meta = _read_meta(part)
    marker = unknown_length_marker(target)
    if meta.get("total") is None:
        marker.write_text("the server announced no length\n", encoding="utf-8")
    elif marker.exists():
        marker.unlink()
    os.replace(part, target)
    _meta_path(part).unlink(missing_ok=True)


def _fetch_once(url: str, part: Path, progress: Any, *, resume: bool) -> bool:
    """One GET; False when the partial bytes cannot be continued (the caller starts over)."""
    import httpx

    meta = _read_meta(part) if resume else {}
    have = part.stat().st_size if resume and part.exists() else 0
    if have and meta.get("total") is None:
        have = 0  # nothing recorded to tell the same file by: never resume blind
    if not have:
        _fresh_part(part)
    headers = {"Range": f"bytes={have}-"} if have else {}
    validator = meta.get("etag") or meta.get("last-modified")
    if have and validator:
        headers["If-Range"] = validator
    with httpx.stream("GET", url, headers=headers, follow_redirects=True, timeout=60.0) as resp:
        if (
            have
            and resp.status_code in (200, 206, 416)
            and not (resp.status_code == 206 and _resume_ok(resp, have, meta))
        ):
            _fresh_part(part)  # another file, or an answer that ignores the range
            return False
        if resp.status_code not in (200, 206) or (resp.status_code == 206 and not have):
            raise httpx.HTTPStatusError(
                f"HTTP {resp.status_code} for {url}", request=resp.request, response=resp
            )
        total = _total_of(resp, have)
        if not have:
            record: dict[str, Any] = {"total": total}
            record.update(
                {h: resp.headers[h] for h in ("etag", "last-modified") if h in resp.headers}
            )
            atomic_write_text(_meta_path(part), json.dumps(record))  # never read half-written
        written = have
        with _open_part(part, append=bool(have)) as fh, progress(total, have) as bar:
            for chunk in resp.iter_bytes():
                fh.write(chunk)
                written += len(chunk)
                bar.update(len(chunk))
    if total is not None and written != total:
        raise IncompleteDownload(
            f"{url}: the download ended after {written} of {total} bytes; run the fetch "
            "again to resume it"
        )
    return True
