"""The share and its interval as text: the rules of :mod:`conflicteval.stats` in words.

One rule everywhere (written in :mod:`conflicteval.stats`): a share over nothing graded is
"not measured" with the reason, never 0; an interval over fewer than
:data:`~conflicteval.stats.MIN_INTERVAL_UNITS` resampled units says it is too small to mean
much and names the unit; a proportion over so few units uses the Wilson score interval
(:func:`wilson_ci`), which does not collapse at 0 or 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import NormalDist

from conflicteval.formatting import format_ci, number
from conflicteval.stats import DEFAULT_LEVEL, MIN_INTERVAL_UNITS

__all__ = ["proportion_ci", "share_text", "small_sample_note", "wilson_ci"]


def wilson_ci(successes: int, n: int, level: float = DEFAULT_LEVEL) -> list[float] | None:
    """The Wilson score interval of a proportion ``successes / n`` (None for ``n == 0``).

    Unlike the percentile bootstrap it does not collapse to ``[0, 0]`` or ``[1, 1]`` when
    every outcome agrees (3 of 3 right gives about ``[0.44, 1.0]`` at 95 %).
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    if n <= 0:
        return None
    z = NormalDist().inv_cdf((1.0 + level) / 2.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / denom
    return [max(0.0, centre - half), min(1.0, centre + half)]


def proportion_ci(
    outcomes: Sequence[float], bootstrap: Sequence[float] | None, level: float = DEFAULT_LEVEL
) -> list[float] | None:
    """The interval of a share of 0/1 ``outcomes``: the ``bootstrap`` one from
    :data:`~conflicteval.stats.MIN_INTERVAL_UNITS` outcomes on, the Wilson interval below
    (None for no outcomes)."""
    if not outcomes:
        return None
    if len(outcomes) >= MIN_INTERVAL_UNITS and bootstrap is not None:
        return list(bootstrap)
    return wilson_ci(round(sum(outcomes)), len(outcomes), level)


def small_sample_note(units: int, unit: str = "items") -> str | None:
    """The note an interval over fewer than :data:`MIN_INTERVAL_UNITS` units carries
    (None when there are enough): it names the unit resampled."""
    if units >= MIN_INTERVAL_UNITS:
        return None
    return f"interval over {units} {unit} (under {MIN_INTERVAL_UNITS}): too small to mean much"


def share_text(
    value: float | None,
    ci: Sequence[float] | None,
    n: int,
    unit: str,
    *,
    reason: str = "",
    percent: bool = True,
    digits: int = 1,
) -> str:
    """One share with its interval and ``n = <count> <unit>``, or "not measured (reason)".

    A share over nothing (``value`` None or ``n`` 0) is never printed as 0; an interval
    over fewer than :data:`MIN_INTERVAL_UNITS` units says it is too small to mean much.
    """
    if value is None or n == 0:
        return f"not measured ({reason or f'no {unit}'})"
    scale = 100.0 if percent else 1.0
    sign = "%" if percent else ""
    shown = number(value, digits, scale=scale, unit=sign)
    text = f"{shown} {format_ci(ci, digits, scale)} n = {n} {unit}"
    note = small_sample_note(n, unit)
    return f"{text} ({note})" if note else text
