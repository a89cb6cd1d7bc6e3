"""Paired tests of two runs over the same items: exact McNemar, a paired sign-flip
permutation test, a paired bootstrap interval, and Holm's adjustment. Pure (numpy)."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

import numpy as np

__all__ = ["holm", "mcnemar_exact", "paired_ci", "permutation_p"]

PERMUTATIONS = 10_000
"""Random sign flips of the permutation test (exact enumeration at 2**n <= this)."""


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p: the binomial test of ``b`` against ``b + c`` discordant
    pairs at 1/2 (``b``: pairs where only A succeeded, ``c``: only B).

    ``p = min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``; 1.0 when no
    pair is discordant.
    """
    if b < 0 or c < 0:
        raise ValueError("discordant counts cannot be negative")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2.0 * tail)


def permutation_p(diffs: Sequence[float], seed: int = 0, n: int = PERMUTATIONS) -> float:
    """Two-sided p of a paired sign-flip permutation test of the mean difference.

    Under the null each item's difference is as likely negative as positive: flip the
    signs at random (all ``2**len(diffs)`` patterns when that is at most ``n``, else ``n``
    seeded random ones) and count the flips whose mean is at least as far from 0 as the
    observed one; the Monte Carlo p is ``(1 + hits) / (1 + n)``.
    """
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        raise ValueError("no paired items: a test needs at least one")
    observed = abs(d.mean())
    eps = 1e-12 * max(1.0, observed)
    if 2**d.size <= n:
        patterns = ((np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1) * 2 - 1
        means = np.abs(patterns @ d) / d.size
        return float(np.mean(means >= observed - eps))
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    while done < n:
        size = min(n - done, max(1, 2_000_000 // d.size))
        signs = rng.integers(0, 2, size=(size, d.size)) * 2 - 1
        hits += int(np.sum(np.abs(signs @ d) / d.size >= observed - eps))
        done += size
    return (1 + hits) / (1 + n)


def paired_ci(diffs: Sequence[float]) -> list[float]:
    """The percentile bootstrap interval of the mean paired difference (items resampled,
    the same draw for both runs: :func:`conflicteval.stats.bootstrap_ci`, seed 0)."""
    from conflicteval.stats import bootstrap_ci

    low, high = bootstrap_ci(list(diffs))
    return [low, high]


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment across the tests (``None`` entries are left out).

    Sorted ascending, the i-th smallest p (from 0) becomes ``(m - i) * p``, made
    non-decreasing along the order and capped at 1.
    """
    known = [(p, i) for i, p in enumerate(p_values) if p is not None]
    m = len(known)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(sorted(known)):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out
