"""Field parsing shared by the WikiContradict readers (each error names file, row, field)."""

from __future__ import annotations

from typing import Any

from conflicteval.errors import DataError
from conflicteval.readers import PathArg, require_text
from conflicteval.wikicontradict.instance import ContradictionType


def contradiction_type(value: Any, path: PathArg, row: int | str, field: str) -> ContradictionType:
    """Map ``Explicit`` / ``Implicit (reasoning required)`` (any case) to the short label.

    Raises:
        DataError: For an empty or unknown value.
    """
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    text = str(value or "").strip().lower()
    if text.startswith("explicit"):
        return "explicit"
    if text.startswith("implicit"):
        return "implicit"
    raise DataError(
        path,
        row,
        field,
        f"unknown contradiction type {value!r} (expected 'Explicit' or "
        "'Implicit (reasoning required)')",
    )


def same_passage(value: Any, path: PathArg, row: int | str, field: str) -> bool:
    """Map ``Same`` / ``Different`` (any case; also true/false) to a bool.

    Raises:
        DataError: For an empty or unknown value.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    text = str(value or "").strip().lower()
    if text in ("same", "true", "yes", "1"):
        return True
    if text in ("different", "false", "no", "0"):
        return False
    raise DataError(path, row, field, f"unknown value {value!r} (expected 'Same' or 'Different')")


def required_text(value: Any, path: PathArg, row: int | str, field: str) -> str:
    """Return ``value`` as raw text, or raise when it is missing or blank.

    Raises:
        DataError: When the value is missing, not text, or only whitespace.
    """
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        value = value[0]
    return require_text(path, row, field, value)


def optional_text(value: Any) -> str | None:
    """Return ``value`` as raw text, or None when missing or blank."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def optional_str(value: Any, path: PathArg, row: int | str, field: str) -> str | None:
    """Like :func:`optional_text`, but a number, object or list is refused, not stringified.

    Raises:
        DataError: When the value is present and not text.
    """
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if value is None:
        return None
    if not isinstance(value, str):
        raise DataError(path, row, field, f"expected text, got {type(value).__name__}")
    return value if value.strip() else None
