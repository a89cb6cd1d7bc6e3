"""Writing output files atomically: a failed write leaves no partial or empty file behind.

The text goes to a hidden temporary file beside the target, which replaces the
target (``os.replace``) only once everything was written. When writing fails
(bad input found half-way, a full disk, Ctrl-C) the temporary file is removed
and an existing target keeps its old content.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from os import PathLike
from pathlib import Path
from typing import Any, TextIO


@contextmanager
def atomic_open(path: str | PathLike[str], *, encoding: str = "utf-8") -> Iterator[TextIO]:
    """Open ``path`` for writing text; the file appears only when the block succeeds.

    Args:
        path: The file to write (its folder is created when missing).
        encoding: Text encoding.

    Yields:
        A text file object writing to a temporary file beside ``path``.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with tmp.open("x", encoding=encoding, newline="") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, out)
    except BaseException:
        with suppress(OSError):
            tmp.unlink()
        raise


def atomic_write_text(path: str | PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, encoding=encoding) as fh:
        fh.write(text)


def write_json(
    path: str | PathLike[str], value: Any, *, indent: int = 2, sort_keys: bool = False
) -> None:
    """Write ``value`` as indented JSON and a final newline, atomically: every JSON output file."""
    atomic_write_text(path, json.dumps(value, indent=indent, sort_keys=sort_keys) + "\n")
