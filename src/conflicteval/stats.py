"""Uncertainty of headline numbers: a seeded percentile bootstrap over items."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from statistics import fmean

__all__ = ["bootstrap_ci"]


def bootstrap_ci(
    values: Sequence[float],
    stat: Callable[[Sequence[float]], float] = fmean,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat`` over items.

    Items are resampled with replacement ``n_resamples`` times (a ``random.Random(seed)``
    generator, so the same call gives the same interval); the interval is the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled statistics
    (nearest rank on the sorted values).

    Args:
        values: One value per item (e.g. 1.0 / 0.0 for correct / wrong).
        stat: The statistic (default: the mean).
        n_resamples: Number of resamples.
        seed: Seed of the resampling.
        level: Coverage of the interval, between 0 and 1.

    Returns:
        ``(low, high)``.

    Raises:
        ValueError: No values (an interval from nothing is refused), ``n_resamples`` below 1,
            or ``level`` outside (0, 1).
    """
    if not values:
        raise ValueError("no values: a bootstrap interval needs at least one item")
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if not 0 < level < 1:
        raise ValueError("level must be between 0 and 1")
    data = list(values)
    rng = random.Random(seed)
    n = len(data)
    stats = sorted(stat([data[rng.randrange(n)] for _ in range(n)]) for _ in range(n_resamples))
    lo_rank = round((1 - level) / 2 * (n_resamples - 1))
    hi_rank = round((1 + level) / 2 * (n_resamples - 1))
    return stats[lo_rank], stats[hi_rank]
