"""Reading JSON lines and JSON arrays with errors that name the file, record and field.

Every loader of the project reads JSON through these helpers, so a malformed
file gives the same kind of error everywhere: ``DataError(file, row, field, ...)``.
The text rules (UTF-8 only, a byte-order mark dropped, UTF-16 refused) come
from :mod:`conflicteval.readers`; the JSON rules are here: nesting deeper than
:data:`MAX_JSON_DEPTH` is refused before parsing (no ``RecursionError``), and
so are ``NaN``/``Infinity`` literals (not JSON; Python's parser accepts them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from itertools import accumulate
from os import PathLike
from pathlib import Path
from typing import Any, Generic, TypeVar

from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.readers import iter_lines, read_text

T = TypeVar("T")
U = TypeVar("U")

MAX_JSON_DEPTH = 100
"""Deepest nesting of arrays/objects accepted (the project's formats need under 10)."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|-?Infinity|NaN')


class _BadConstant(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _reject_constant(name: str) -> Any:
    raise _BadConstant(name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
"""One decoder for every parse (``json.loads`` with options would build one per call)."""


def _too_deep(text: str, limit: int) -> bool:
    if text.count("[") + text.count("{") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit


def _locate(text: str, *, depth: int | None = None, constant: bool = False) -> int | None:
    """The 1-based line of the first bracket past ``depth`` or the first NaN/Infinity."""
    level = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token[0] == '"':
            continue
        if token in _STEP:
            level += _STEP[token]
            if depth is not None and level > depth:
                return text.count("\n", 0, match.start()) + 1
        elif constant:
            return text.count("\n", 0, match.start()) + 1
    return None


def parse_json(
    text: str,
    path: str | PathLike[str] | None,
    row: int | str | None = None,
    *,
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """Parse one JSON value with the project's rules.

    Args:
        text: The JSON text.
        path: The file it came from (named in errors).
        row: Its line or record when the text is one line of a file; None for
            a whole file (errors then name the line inside the text).
        max_depth: Deepest nesting accepted.

    Raises:
        DataError: Invalid JSON, nesting deeper than ``max_depth``, or a
            ``NaN``/``Infinity`` literal.
    """

    if _too_deep(text, max_depth):
        line = row if row is not None else _locate(text, depth=max_depth)
        raise DataError(path, line, None, f"JSON nested deeper than {max_depth} levels")
    try:
        value = _DECODER.decode(text)
    except _BadConstant as exc:
        line = row if row is not None else _locate(text, constant=True)
        raise DataError(
            path, line, None, f"{exc.name} is not valid JSON (NaN and Infinity are not allowed)"
        ) from None
    except json.JSONDecodeError as exc:
        line = row if row is not None else exc.lineno
        raise DataError(
            path, line, None, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise DataError(path, row, None, "JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise DataError(path, row, None, f"invalid JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(value, text, path, row)
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate_field(value: Any, where: str = "") -> str | None:
    """The field (``a.b[2]``) of the first string holding a lone UTF-16 surrogate, or None."""
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        name, item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return name or "(value)"
        elif isinstance(item, dict):
            for key, sub in reversed(list(item.items())):
                if _lone_surrogate_field(key) is not None:
                    return f"{name}.(key)" if name else "(key)"
                stack.append((f"{name}.{key}" if name else str(key), sub))
        elif isinstance(item, list):
            stack.extend((f"{name}[{i}]", sub) for i, sub in reversed(list(enumerate(item))))
    return None


def _refuse_lone_surrogates(
    value: Any, text: str, path: str | PathLike[str] | None, row: int | str | None
) -> None:
    """A lone ``\\udXXX`` escape decodes to text no file or model can hold: refuse it here."""
    field = _lone_surrogate_field(value)
    if field is None:
        return  # only surrogate pairs: valid characters
    match = _SURROGATE_ESCAPE.search(text)
    line = row if row is not None or match is None else text.count("\n", 0, match.start()) + 1
    raise DataError(
        path, line, field, "a lone UTF-16 surrogate escape (\\ud800-\\udfff): not valid text"
    )


def load_json(path: str | PathLike[str]) -> Any:
    """Read and parse a whole JSON file (``*.gz`` decompressed) with the project's rules.

    Raises:
        DataError: See :func:`conflicteval.readers.read_text` and :func:`parse_json`.
    """
    return parse_json(read_text(path), path)


def load_json_object(path: str | PathLike[str], shape: str) -> dict[str, Any]:
    """A user's JSON settings file that must be one object (a price table, a table of model
    families), read with the project's rules (:func:`load_json`).

    Raises:
        DataError: The file cannot be read, is not JSON, or is not one object (``shape`` says
            what it should hold, e.g. ``"one JSON object {model: prices}"``); names the file.
    """
    data = load_json(path)
    if not isinstance(data, dict):
        raise DataError(path, None, None, shape)
    return data


def read_description(path: str | PathLike[str], *, missing: str, unreadable: str) -> Any:
    """Parse a directory's own JSON description file (a run's ``run.json``, a profile's
    record), one rule for all: an absent file is ``"<path>: <missing>"`` and one that is not
    JSON (or not UTF-8) is ``"<path>: <unreadable>: <why>"``, each a :class:`ConflictEvalError`
    naming the file. The caller checks the value's shape.
    """
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConflictEvalError(f"{path}: {missing}") from None
    except ValueError as exc:
        raise ConflictEvalError(f"{path}: {unreadable}: {exc}") from exc


def iter_json_lines(path: str | PathLike[str]) -> Iterator[tuple[int, Any]]:
    """Stream ``(line number, value)`` from a JSON-lines file, skipping blank lines.

    The file is read line by line (bounded memory); a byte-order mark is ignored.

    Raises:
        DataError: naming the file and line of the first line that is not JSON
            (or not UTF-8, too deeply nested, or holding NaN).
    """
    for lineno, line in iter_lines(path):
        if not line.strip():
            continue
        yield lineno, parse_json(line, path, lineno)


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
    first = ""
    for _lineno, line in iter_lines(p):
        if line.strip():
            first = line.strip()
            break
    if not first:
        return
    if first.startswith("{"):
        try:
            if _too_deep(first, MAX_JSON_DEPTH):
                raise ValueError("too deep")
            _DECODER.decode(first)
            is_lines = True
        except (ValueError, _BadConstant):
            is_lines = False
        if is_lines:
            yield from iter_json_lines(p)
            return
    data = load_json(p)
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
    """Read a string field, or raise DataError.

    A number, boolean, object or list is refused, never turned into text (use
    :func:`conflicteval.readers.get_id` for ids, which may be integers).
    """
    if field not in record or record[field] is None:
        if required:
            raise DataError(path, row, field, "missing field")
        return None
    value = record[field]
    if not isinstance(value, str):
        raise DataError(path, row, field, f"expected a string, got {type(value).__name__}")
    text = value
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


class LazyItems(Generic[T]):
    """The items of a JSON-lines file, read again from the file each time they are iterated.

    Nothing is held between passes but the count, so a run over a file of a
    million items needs the memory of one item (:func:`conflicteval.runs.run_batch`
    reads it twice: once for the ids and input fingerprints, once to feed the
    items to run). Each pass converts every non-blank line with a converter made
    for that pass by ``make_convert()`` (so a converter may keep per-pass state,
    e.g. a :class:`~conflicteval.readers.UniqueIds`), which raises
    :class:`~conflicteval.errors.DataError` for a bad line.

    A pass refuses a file that changed since the first pass (size, modification
    time or inode differ), as the items would then not be the ones counted.

    Args:
        path: The JSON-lines file.
        make_convert: Called at the start of each pass; returns ``(line, value) -> item``.
        empty: The reason a file with no item is refused (None: an empty file is fine).
    """

    def __init__(
        self,
        path: str | PathLike[str],
        make_convert: Callable[[], Callable[[int, Any], T]],
        *,
        empty: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.make_convert = make_convert
        self.empty = empty
        self._count: int | None = None
        self._stamp: tuple[int, int, int] | None = None

    def _stat(self) -> tuple[int, int, int]:
        try:
            st = self.path.stat()
        except OSError as exc:
            raise DataError(self.path, None, None, f"cannot read: {exc.strerror or exc}") from exc
        return (st.st_size, st.st_mtime_ns, st.st_ino)

    def _check_unchanged(self) -> None:
        if self._stamp is not None and self._stat() != self._stamp:
            raise DataError(
                self.path,
                None,
                None,
                "the file changed while it was being read (it is read twice: once to count "
                "and check the items, once to run them); run again on a file that stays put",
            )

    def __iter__(self) -> Iterator[T]:
        self._check_unchanged()
        stamp = self._stat()
        convert = self.make_convert()
        n = 0
        for lineno, value in iter_json_lines(self.path):
            yield convert(lineno, value)
            n += 1
        if self._count is None:
            if not n and self.empty is not None:
                raise DataError(self.path, None, None, self.empty)
            self._count, self._stamp = n, stamp
        else:
            self._check_unchanged()
            if n != self._count:  # pragma: no cover - caught by the stamp first
                raise DataError(self.path, None, None, "the file changed while it was read")

    def __len__(self) -> int:
        if self._count is None:
            for _ in self:  # one pass: checks every item and counts them
                pass
        assert self._count is not None
        return self._count

    def map(self, fn: Callable[[int, T], U]) -> LazyItems[U]:
        """The same file, each item passed through ``fn(index, item)`` (still read lazily)."""
        make = self.make_convert

        def make_mapped() -> Callable[[int, Any], U]:
            convert = make()
            index = iter(range(1 << 62))

            def mapped(lineno: int, value: Any) -> U:
                return fn(next(index), convert(lineno, value))

            return mapped

        out: LazyItems[U] = LazyItems(self.path, make_mapped, empty=self.empty)
        out._count, out._stamp = self._count, self._stamp
        return out

    def __repr__(self) -> str:
        return f"LazyItems({str(self.path)!r})"
