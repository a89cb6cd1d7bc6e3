"""How a figure is written for people: one number, one interval, one rule for what is missing.

Every report, table, terminal line and page writes its figures through :func:`number` and
:func:`interval`, so a figure has the same digits, scale and unit wherever it is shown. What a
missing figure is called differs by what it means, and the caller says it: ``–`` in a table
cell (the default), ``undefined`` for a score with no denominator (CS-C of a response with no
scored claim), ``n/a`` where a report has always written that.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MISSING", "NOT_AVAILABLE", "UNDEFINED", "format_ci", "interval", "number"]

MISSING = "–"
"""A missing figure in a table cell."""
UNDEFINED = "undefined"
"""A score with nothing to divide by (CS-C of a response with no scored claim)."""
NOT_AVAILABLE = "n/a"
"""A missing figure in the reports that have always written it so (ConflictQA, ClashEval)."""


def number(
    value: float | None,
    digits: int = 4,
    *,
    scale: float = 1.0,
    unit: str = "",
    missing: str = MISSING,
) -> str:
    """``value`` times ``scale`` with ``digits`` decimals and ``unit`` after it, or ``missing``.

    >>> number(0.12345), number(0.5, 1, scale=100, unit="%"), number(None, missing="undefined")
    ('0.1235', '50.0%', 'undefined')
    """
    if value is None:
        return missing
    return f"{scale * value:.{digits}f}{unit}"


def interval(
    ci: Sequence[float] | None,
    digits: int = 4,
    *,
    scale: float = 1.0,
    unit: str = "",
    sep: str = ", ",
    missing: str = "[–]",
) -> str:
    """``[low, high]``, each end written as :func:`number` writes it, or ``missing``.

    >>> interval([0.1, 0.25], 1, scale=100, unit="%"), interval([0.1, 0.2], 1, scale=100, sep="-")
    ('[10.0%, 25.0%]', '[10.0-20.0]')
    """
    if ci is None:
        return missing
    low = number(ci[0], digits, scale=scale, unit=unit)
    high = number(ci[1], digits, scale=scale, unit=unit)
    return f"[{low}{sep}{high}]"


def format_ci(ci: Sequence[float] | None, digits: int = 4, scale: float = 1.0) -> str:
    """``[low, high]`` as text (``[–]`` when there is no interval): :func:`interval`."""
    return interval(ci, digits, scale=scale)
