"""Reading back what a run wrote: a record of the wrong shape is a DataError, not a traceback.

A checkpoint, ``records.jsonl``, ``generations.jsonl`` or a run's JSON summaries hold
what conflicteval wrote, so the code that reads them back expects its own layout. A
file edited by hand (or written by another program) can break that layout anywhere: a
number where a list was, a missing key, an object where text was. Each place that turns
one such record back into figures or a report item does it inside
:func:`reading_record`, which turns the error this raises (``TypeError``,
``AttributeError``, ``KeyError``, ``IndexError``, or a ``ValueError`` such as a pydantic
validation error) into a :class:`~conflicteval.errors.DataError` naming the file, the
record and, where the error says it, the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from os import PathLike
from typing import Any

from conflicteval.errors import ConflictEvalError, DataError

__all__ = ["SHAPE_ERRORS", "reading_record", "record_error"]

SHAPE_ERRORS: tuple[type[Exception], ...] = (
    TypeError,
    AttributeError,
    KeyError,
    IndexError,
    ValueError,
)
"""What reading a record of an unexpected layout raises (the errors :func:`reading_record` turns
into a DataError)."""


def _field_and_reason(exc: BaseException) -> tuple[str | None, str]:
    """The field an error names (if it names one) and what is wrong, on one line."""
    errors = getattr(exc, "errors", None)
    if callable(errors):  # a pydantic ValidationError: the first problem, with its place
        try:
            found: list[dict[str, Any]] = list(errors())
        except Exception:  # any other object with an errors attribute
            found = []
        if found:
            first = found[0]
            field = ".".join(str(part) for part in first.get("loc", ())) or None
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            return field, f"{first.get('msg', 'invalid value')}{more}"
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0]), "missing"
    text = " ".join(str(exc).split())
    return None, f"a value of an unexpected type or form ({text or type(exc).__name__})"


def record_error(
    path: str | PathLike[str] | None, row: int | str | None, exc: BaseException
) -> DataError:
    """A DataError saying that ``row`` of ``path`` does not have the layout conflicteval wrote."""
    field, reason = _field_and_reason(exc)
    return DataError(
        path,
        row,
        field,
        f"{reason}: not what conflicteval writes here (was the file edited by hand?)",
    )


@contextmanager
def reading_record(
    path: str | PathLike[str] | None, row: int | str | None = None
) -> Iterator[None]:
    """Turn an error raised while one record of ``path`` is read back into a DataError.

    Errors conflicteval raises on purpose (a :class:`~conflicteval.errors.ConflictEvalError`,
    e.g. a DataError that already names its place) pass through unchanged.

    Example:
        >>> with reading_record("run/checkpoint.jsonl", "r0"):
        ...     figures = float(record.result["cs_c"])
    """
    try:
        yield
    except ConflictEvalError:
        raise
    except SHAPE_ERRORS as exc:
        raise record_error(path, row, exc) from exc
