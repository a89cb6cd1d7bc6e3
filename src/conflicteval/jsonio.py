"""Reading JSON lines and JSON arrays with errors that name the file, record and field.

Every loader of the project reads JSON through these helpers, so a malformed
file gives the same kind of error everywhere: ``DataError(file, row, field, ...)``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from os import PathLike
from pathlib import Path
from typing import Any

from conflicteval.errors import DataError


def _first_line(path: Path) -> str:
    with path.open(encoding="utf-8-sig") as fh:
        for line in fh:
            if line.strip():
                return line.strip()
    return ""


def iter_json_lines(path: str | PathLike[str]) -> Iterator[tuple[int, Any]]:
    """Stream ``(line number, value)`` from a JSON-lines file, skipping blank lines.

    The file is read line by line (bounded memory); a byte-order mark is ignored.

    Raises:
        DataError: naming the file and line of the first line that is not JSON.
    """
    with Path(path).open(encoding="utf-8-sig") as fh:
        lineno = 0
        lines = iter(fh)
        while True:
            try:
                line = next(lines)
            except StopIteration:
                return
            except UnicodeDecodeError as exc:
                raise DataError(path, None, None, f"not UTF-8 text: {exc}") from exc
            lineno += 1
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(path, lineno, None, f"invalid JSON: {exc.msg}") from exc


def iter_json_records(path: str | PathLike[str]) -> Iterator[tuple[int | str, Any]]:
    """Yield ``(row, record)`` from a JSON array, a JSON-lines file, or a single JSON object.

    JSON lines are streamed line by line (``row`` is the 1-based line number). A
    JSON array is read whole (``row`` is ``"[i]"``, the 0-based index). A file
    holding one JSON object yields that object once with row ``"[0]"``.

    Raises:
        DataError: when the file is not valid JSON / JSON lines.
    """
    p = Path(path)
    if not p.is_file():
        raise DataError(p, None, None, "file not found")
    try:
        first = _first_line(p)
    except UnicodeDecodeError as exc:
        raise DataError(p, None, None, f"not UTF-8 text: {exc}") from exc
    if not first:
        return
    if first.startswith("{"):
        try:
            json.loads(first)
            is_lines = True
        except json.JSONDecodeError:
            is_lines = False
        if is_lines:
            yield from iter_json_lines(p)
            return
    try:
        with p.open(encoding="utf-8-sig") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(p, exc.lineno, None, f"invalid JSON: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise DataError(p, None, None, f"not UTF-8 text: {exc}") from exc
    if isinstance(data, list):
        for i, record in enumerate(data):
            yield f"[{i}]", record
    else:
        yield "[0]", data


def index_of(row: int | str) -> int:
    """The 0-based record index of a row from :func:`iter_json_records` (lines: line - 1)."""
    if isinstance(row, int):
        return row - 1
    return int(row.strip("[]"))


def require_mapping(path: str | PathLike[str], row: int | str, record: Any) -> dict[str, Any]:
    """Check that a record is a JSON object."""
    if not isinstance(record, dict):
        raise DataError(path, row, None, f"expected a JSON object, got {type(record).__name__}")
    return record


def get_str(
    path: str | PathLike[str],
    row: int | str,
    record: dict[str, Any],
    field: str,
    *,
    required: bool = True,
    allow_empty: bool = False,
) -> str | None:
    """Read a string field (numbers are turned into strings), or raise DataError."""
    if field not in record or record[field] is None:
        if required:
            raise DataError(path, row, field, "missing field")
        return None
    value = record[field]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise DataError(path, row, field, f"expected a string, got {type(value).__name__}")
    text = str(value)
    if required and not allow_empty and not text.strip():
        raise DataError(path, row, field, "empty value")
    return text


def get_list(
    path: str | PathLike[str], row: int | str, record: dict[str, Any], field: str
) -> list[Any]:
    """Read a list field, or raise DataError."""
    if field not in record:
        raise DataError(path, row, field, "missing field")
    value = record[field]
    if not isinstance(value, list):
        raise DataError(path, row, field, f"expected a list, got {type(value).__name__}")
    return value
