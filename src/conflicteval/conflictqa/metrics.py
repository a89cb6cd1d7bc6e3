"""The paper's measures of one experiment, as pure functions with bootstrap intervals.

Each reply is read (:func:`~conflicteval.conflictqa.answers.parse_choice`) and given the role
of the option it chooses: ``memory`` (the model's memory answer), ``counter`` (the counter
answer), ``uncertain``, or ``unreadable`` (no single option could be read: a failure, counted).

* The share of each outcome is over every reply (the four shares add up to 1).
* The memorization ratio is the paper's ``f_m / (f_m + f_c)``: among the replies choosing the
  memory or the counter answer, the share choosing memory. With no such reply it is None,
  never 0.

Intervals: percentile bootstrap over the questions (:func:`conflicteval.stats.mean_ci`:
1,000 resamples, seed 0, 95%); the memorization ratio's is over the replies in its denominator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conflicteval.conflictqa.answers import parse_choice
from conflicteval.errors import ParseFailure
from conflicteval.stats import mean_ci

OUTCOMES: tuple[str, ...] = ("memory", "counter", "uncertain", "unreadable")


def outcome(reply: str, options: Mapping[str, str], roles: Mapping[str, str]) -> str:
    """The role of the option ``reply`` chooses, or ``unreadable``."""
    try:
        letter = parse_choice(reply, options)
    except ParseFailure:
        return "unreadable"
    return roles[letter]


def _figure(values: Sequence[float]) -> dict[str, Any]:
    value, ci = mean_ci(values)
    return {"value": value, "ci": ci, "n": len(values)}


def experiment_metrics(outcomes: Sequence[str]) -> dict[str, Any]:
    """Counts, shares (each with an interval) and the memorization ratio of one experiment.

    Raises:
        ValueError: An outcome that is not one of :data:`OUTCOMES`.
    """
    bad = [o for o in outcomes if o not in OUTCOMES]
    if bad:
        raise ValueError(f"unknown outcome {bad[0]!r} (known: {', '.join(OUTCOMES)})")
    counts = {o: sum(1 for x in outcomes if x == o) for o in OUTCOMES}
    shares = {o: _figure([1.0 if x == o else 0.0 for x in outcomes]) for o in OUTCOMES}
    decided = [1.0 if x == "memory" else 0.0 for x in outcomes if x in ("memory", "counter")]
    return {
        "replies": len(outcomes),
        "counts": counts,
        "shares": shares,
        "memorization_ratio": _figure(decided),
    }
