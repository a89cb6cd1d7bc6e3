"""The reader layer: text, CSV and id rules shared by every loader.

Every dataset loader reads its files through this module (CSV, text) and
:mod:`conflicteval.jsonio` (JSON, JSON lines, which builds on this one), so a
malformed file fails the same way everywhere, with a
:class:`~conflicteval.errors.DataError` naming the file, the row or line and
the field:

* **Encoding.** Files are UTF-8; a UTF-8 byte-order mark is dropped. UTF-16 and
  UTF-32 files (recognised by their byte-order mark, or by NUL bytes when they
  have none) and bytes that are not UTF-8 are refused with the line where the
  problem is. ``*.gz`` files are decompressed on the fly.
* **CSV.** Rows longer or shorter than the header, a header naming a column
  twice, and fields over a limit are refused. The limit is set for each row
  this layer reads and restored at once, under a lock (Python's ``csv``
  module only has a process-wide limit): another module's CSV reader never
  sees a limit it did not set itself, except while one of our rows is parsed
  in another thread, when it may accept a larger field than its own limit.
* **Types and ids.** :func:`get_id` accepts a string or an integer and refuses
  null, objects, lists, booleans and floats; :class:`UniqueIds` refuses an id
  given twice, naming both rows.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import threading
import zlib
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from conflicteval.errors import DataError

if TYPE_CHECKING:
    from conflicteval._diskindex import IdSet

PathArg = str | PathLike[str]

CSV_FIELD_LIMIT = 32 * 1024 * 1024
"""Largest CSV field (characters) a reader accepts by default; Python's default is 131,072."""

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)

_CSV_LOCK = threading.Lock()


def _check_head(path: PathArg, head: bytes) -> None:
    """Refuse UTF-16/UTF-32 text by its byte-order mark."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            raise DataError(
                path, 1, None, f"{name} text (byte-order mark found): save the file as UTF-8"
            )


def _nul_error(path: PathArg, line: int | None) -> DataError:
    return DataError(
        path,
        line,
        None,
        "NUL byte in the text: the file is binary or UTF-16/UTF-32 text; save it as UTF-8",
    )


def _decode_error(path: PathArg, line: int | None, exc: UnicodeDecodeError) -> DataError:
    return DataError(
        path,
        line,
        None,
        f"not valid UTF-8 text ({exc.reason} at byte {exc.start}); save the file as UTF-8",
    )


def _open_binary(path: PathArg) -> IO[bytes]:
    p = Path(path)
    try:
        if p.suffix == ".gz":
            return cast(IO[bytes], gzip.open(p, "rb"))
        return p.open("rb")
    except FileNotFoundError:
        raise DataError(p, None, None, "file not found") from None
    except OSError as exc:
        raise DataError(p, None, None, f"cannot read file: {exc.strerror or exc}") from None


def read_text(path: PathArg) -> str:
    """Read a whole UTF-8 text file (``*.gz`` decompressed), dropping a UTF-8 byte-order mark.

    Raises:
        DataError: The file is missing or unreadable, is UTF-16/UTF-32, holds
            NUL bytes, or is not valid UTF-8 (with the line of the first bad byte).
    """
    try:
        with _open_binary(path) as fh:
            raw = fh.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError(path, None, None, f"cannot read file: {exc}") from None
    _check_head(path, raw[:4])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _decode_error(path, raw.count(b"\n", 0, exc.start) + 1, exc) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise _nul_error(path, text.count("\n", 0, nul) + 1)
    return text


def iter_lines(path: PathArg) -> Iterator[tuple[int, str]]:
    """Stream ``(1-based line number, line)`` from a UTF-8 text file (``*.gz`` decompressed).

    Lines keep their line ending; a UTF-8 byte-order mark is dropped. Memory
    stays bounded by the longest line.

    Raises:
        DataError: As :func:`read_text`, naming the line at fault.
    """
    with _open_binary(path) as fh:
        lineno = 0
        try:
            for raw in fh:
                lineno += 1
                if lineno == 1:
                    _check_head(path, raw[:4])
                    raw = raw.removeprefix(codecs.BOM_UTF8)
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise _decode_error(path, lineno, exc) from None
                if "\x00" in line:
                    raise _nul_error(path, lineno)
                yield lineno, line
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError(path, lineno + 1, None, f"cannot read file: {exc}") from None


def iter_csv(
    path: PathArg,
    *,
    delimiter: str = ",",
    text: str | None = None,
    field_limit: int | None = None,
) -> Iterator[tuple[int, list[str]]]:
    """Stream ``(line where the record starts, cells)`` of a CSV/TSV file; blank lines skipped.

    The file is decoded line by line through :func:`iter_lines`, so an
    encoding error names its line.

    Args:
        path: The file (named in errors; read unless ``text`` is given).
        delimiter: ``","`` for CSV, a tab for TSV.
        text: The file's content, when the caller has read it already.
        field_limit: Largest field in characters, for this reader only
            (default :data:`CSV_FIELD_LIMIT`).

    Raises:
        DataError: Bad encoding, NUL bytes, a field over ``field_limit``, or
            malformed quoting; the error names the file and line.
    """
    limit = CSV_FIELD_LIMIT if field_limit is None else field_limit
    source: Iterator[str]
    if text is not None:
        source = iter(io.StringIO(text, newline=""))
    else:
        source = (line for _, line in iter_lines(path))
    raw: list[str] = []  # the lines of the record being read

    def lines() -> Iterator[str]:
        for line in source:
            raw.append(line)
            yield line

    reader = csv.reader(lines(), delimiter=delimiter, strict=False)
    pending: tuple[int, list[str], list[str]] | None = None  # held back one record
    while True:
        start = reader.line_num + 1
        raw.clear()
        with _CSV_LOCK:
            old = csv.field_size_limit(limit)
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                if "field larger than field limit" in str(exc):
                    msg = f"a field is longer than the limit of {limit} characters"
                else:
                    msg = f"bad CSV: {exc}"
                raise DataError(path, start, None, msg) from None
            finally:
                csv.field_size_limit(old)
        if not cells:
            continue
        if any("\x00" in cell for cell in cells):
            raise _nul_error(path, start)
        if pending is not None:
            yield pending[0], pending[1]
        pending = (start, cells, list(raw))
    if pending is not None:
        _check_not_cut(path, pending[0], pending[2], delimiter, limit)
        yield pending[0], pending[1]


def _check_not_cut(path: PathArg, line: int, raw: list[str], delimiter: str, limit: int) -> None:
    """Refuse a last record that ends inside a quoted field at the end of the file.

    Such a file ends with a quote still open (usually without a final newline):
    it was cut short (a download or a copy that stopped), and its last field
    would be read cut.
    """
    if not raw:
        return
    with _CSV_LOCK:
        old = csv.field_size_limit(limit)
        try:
            list(
                csv.reader(io.StringIO("".join(raw), newline=""), delimiter=delimiter, strict=True)
            )
        except csv.Error as exc:
            if "unexpected end of data" not in str(exc):
                return
            cells = next(csv.reader(io.StringIO("".join(raw), newline=""), delimiter=delimiter))
            raise DataError(
                path,
                line,
                None,
                f"the file ends inside the quoted field {len(cells)} of this row (a quote is "
                "never closed): it looks cut short (download or copy it again)",
            ) from None
        finally:
            csv.field_size_limit(old)


@dataclass(frozen=True)
class CsvRow:
    """One CSV record under its header.

    Attributes:
        line: The 1-based line where the record starts (the header is line 1).
        number: The 1-based number of the record among the data rows.
        values: Column name → cell text.
    """

    line: int
    number: int
    values: dict[str, str]


def iter_csv_rows(
    path: PathArg,
    *,
    required: Sequence[str] = (),
    delimiter: str = ",",
    text: str | None = None,
    field_limit: int | None = None,
) -> Iterator[CsvRow]:
    """Stream the records of a CSV file with a header row, checked against the header.

    Header names are stripped of surrounding spaces.

    Args:
        path: The file (named in errors; read unless ``text`` is given).
        required: Columns the header must have.
        delimiter: The field separator.
        text: The file's content, when the caller has read it already.
        field_limit: Largest field in characters (default :data:`CSV_FIELD_LIMIT`).

    Raises:
        DataError: Everything :func:`iter_csv` refuses; no header; a column
            named twice; a missing required column; a row with more or fewer
            fields than the header.
    """
    rows = iter_csv(path, delimiter=delimiter, text=text, field_limit=field_limit)
    first = next(rows, None)
    if first is None:
        raise DataError(path, None, None, "the file is empty (no header row)")
    header_line, raw_header = first
    header = [h.strip() for h in raw_header]
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise DataError(path, header_line, name, "the header names this column twice")
        seen.add(name)
    missing = [c for c in required if c not in seen]
    if missing:
        raise DataError(
            path,
            header_line,
            missing[0],
            f"missing column(s) {', '.join(missing)}; header is {','.join(header)}",
        )
    for number, (line, cells) in enumerate(rows, start=1):
        if len(cells) > len(header):
            raise DataError(
                path,
                line,
                None,
                f"{len(cells)} fields but the header has {len(header)} columns "
                "(more fields than the header has columns)",
            )
        if len(cells) < len(header):
            raise DataError(
                path,
                line,
                header[len(cells)],
                f"{len(cells)} fields but the header has {len(header)} columns "
                "(the row is cut short)",
            )
        yield CsvRow(line, number, dict(zip(header, cells, strict=True)))


def get_id(
    path: PathArg | None,
    row: int | str | None,
    record: Mapping[str, Any],
    field: str,
    *,
    required: bool = True,
) -> str | None:
    """Read an id: a non-empty string, or an integer (returned as its decimal text).

    Raises:
        DataError: The id is missing or null (when ``required``), empty, or of
            another type (object, list, boolean, float).
    """
    if field not in record or record[field] is None:
        if required:
            what = "missing field" if field not in record else "null id"
            raise DataError(path, row, field, what)
        return None
    return id_text(path, row, field, record[field])


def id_text(path: PathArg | None, row: int | str | None, field: str, value: Any) -> str:
    """``value`` as an id (see :func:`get_id`), or raise DataError."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DataError(
            path, row, field, f"expected a string or integer id, got {type(value).__name__}"
        )
    text = str(value).strip()
    if not text:
        raise DataError(path, row, field, "empty id")
    return text


def require_text(path: PathArg | None, row: int | str | None, field: str, value: Any) -> str:
    """``value`` if it is a string with non-space text, else raise DataError (never stringifies)."""
    if value is None:
        raise DataError(path, row, field, "missing value")
    if not isinstance(value, str):
        raise DataError(path, row, field, f"expected text, got {type(value).__name__}")
    if not value.strip():
        raise DataError(path, row, field, "empty value")
    return value


_KIND_WORDS: dict[type, str] = {str: "a string", list: "a list", dict: "an object"}


def require_field(
    path: PathArg | None, row: int | str | None, record: Mapping[str, Any], field: str, kind: type
) -> Any:
    """``record[field]`` if it is a ``kind`` (str, list or dict), else raise DataError.

    The error names the file, the row and the field: "missing or not a string" (a list,
    an object).
    """
    value = record.get(field)
    if not isinstance(value, kind):
        raise DataError(path, row, field, f"missing or not {_KIND_WORDS[kind]}")
    return value


_BITMAP_IDS = 1 << 24
"""Integer ids below this are kept as bits (at most 2 MiB) by a compact :class:`UniqueIds`."""


READER_ID_CACHE_KIB = 1024
"""Page cache of a compact :class:`UniqueIds`' on-disk ids (KiB): its most memory."""


class UniqueIds:
    """Refuses an id given twice in one file, naming the file and both rows.

    By default every id is kept with its row. For streams of many records,
    pass ``first_row``: then only membership is kept (non-negative integer ids
    below 2**24 as one bit each, others in a scratch index on disk, so memory
    does not grow with the ids), and on a duplicate ``first_row(id)`` looks the
    first row up again (e.g. by re-reading the file).

    Example:
        >>> ids = UniqueIds("items.jsonl", "id")
        >>> ids.add("a", 1)
        >>> ids.add("a", 3)  # DataError: items.jsonl, row 3, field 'id': duplicate ...
    """

    def __init__(
        self,
        path: PathArg | None,
        field: str,
        what: str = "id",
        *,
        first_row: Callable[[Hashable], int | str | None] | None = None,
    ) -> None:
        self.path = path
        self.field = field
        self.what = what
        self._first: dict[Hashable, int | str] = {}
        self._first_row = first_row
        self._bits = bytearray()
        self._other: IdSet | None = None  # made on the first id the bitmap cannot hold

    def _seen_before(self, value: Hashable) -> bool:
        """Compact mode: whether ``value`` was seen, recording it."""
        if type(value) is int and 0 <= value < _BITMAP_IDS:
            byte, bit = divmod(value, 8)
            if byte >= len(self._bits):
                self._bits.extend(bytes(max(byte + 1 - len(self._bits), len(self._bits))))
            if self._bits[byte] >> bit & 1:
                return True
            self._bits[byte] |= 1 << bit
            return False
        if self._other is None:
            from conflicteval._diskindex import IdSet

            self._other = IdSet(cache_kib=READER_ID_CACHE_KIB)
        # repr keeps 1 and "1" apart, as the set of values did
        return not self._other.insert(repr(value))

    def add(self, value: Hashable, row: int | str) -> None:
        """Record ``value`` as seen at ``row``.

        Raises:
            DataError: ``value`` was seen before (the message names the first row).
        """
        if self._first_row is not None:
            if not self._seen_before(value):
                return
            first: int | str | None = self._first_row(value)
        else:
            first = self._first.get(value)
            if first is None:
                self._first[value] = row
                return
        raise DataError(
            self.path,
            row,
            self.field,
            f"duplicate {self.what} {value!r} (first at row {first})",
        )
