"""Uncertainty and classification metrics shared by every report. Pure and vectorised (numpy).

**Intervals.** Every interval the library prints is a *percentile bootstrap* interval:
resample the items (responses, claims, graded answers, questions) with replacement
``n_resamples`` times (default 1,000), recompute the figure on each resample, and take
the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the recomputed figures
(default ``level`` 0.95). Items are resampled, never model calls: the pairs of one
item (one claim against several documents) stay together. The random generator is
numpy's PCG64 seeded with ``seed`` (default 0), so a run's intervals are reproducible.

A percentile bootstrap needs no distributional assumption but is too narrow for very
few items (with one item every resample is that item and the interval has width 0).

**Classification metrics** (:func:`classification_metrics`): per-class precision,
recall, F1 and support, macro-F1, accuracy and the confusion matrix of gold labels
against predicted labels, where a prediction may be missing (``None``: the labeler or
judge failed). Failures are counted, never dropped; how they enter the figures is the
caller's documented choice:

* ``failures="wrong"`` (the labeler bench): a failed item counts as a wrong answer in
  accuracy and in its gold class's recall (it is in that class's support); it
  predicts no class, so it lowers no class's precision. ``answered_accuracy`` is the
  accuracy over the answered items alone.
* ``failures="excluded"`` (judge calibration, as Table 3 of the WikiContradict paper
  compares graded pairs): failed items are left out of every figure and reported in
  ``failed``.

Precision, recall and F1 are 0.0 where their denominator is 0 (as in the judge
calibration before); macro-F1 is the mean F1 over the classes present in the gold
labels or the predictions.

**Too few units.** An interval over fewer than :data:`MIN_INTERVAL_UNITS` (10) resampled
units (items, questions, claims; the text names the unit) is printed with a note that it
is too small to mean much. A *proportion* (a share of 0/1 outcomes) on so few units gets
a Wilson score interval instead, which does not collapse to ``[0, 0]`` or ``[1, 1]`` when
every outcome agrees, as a bootstrap does.

**Not measured.** A share over nothing graded is not 0: it is "not measured" with the
reason; a class without any gold item has no recall and prints "not measured" rather than
0.0000. The formatters that apply these rules are in :mod:`conflicteval.stats_text`.

**Comparing two runs**: the difference of two figures is called *larger than its
interval* when the percentile bootstrap interval of the difference does not contain 0
and has a width (a zero-width interval, all resamples equal, is never "larger"); two
paired runs sharing fewer than :data:`MIN_INTERVAL_UNITS` items get no verdict.
Two runs over different items (:func:`compare_means`) are resampled independently; two
labelers on the same gold items (:func:`classification_difference`) are resampled
*paired*: each resample draws the same items for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from conflicteval.confusion import confusion_cells, confusion_figures
from conflicteval.formatting import format_ci

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "MIN_INTERVAL_UNITS",
    "ClassScore",
    "ClassificationMetrics",
    "bootstrap_ci",
    "bootstrap_sums",
    "classification_difference",
    "classification_metrics",
    "compare_means",
    "format_ci",
    "larger_than_interval",
    "mean",
    "mean_ci",
    "percentile_ci",
    "resample_counts",
]

DEFAULT_RESAMPLES = 1000
"""Bootstrap resamples of every interval."""
DEFAULT_SEED = 0
"""Seed of every interval's random generator."""
DEFAULT_LEVEL = 0.95
"""Coverage of every interval."""

MIN_INTERVAL_UNITS = 10
"""An interval over fewer resampled units is said to be too small to mean much."""

_CELLS = 4_000_000
"""Resampled cells drawn at once (bounds the memory of one bootstrap chunk)."""


def mean(values: Any, axis: int | None = None) -> Any:
    """The arithmetic mean (numpy's), the default statistic of :func:`bootstrap_ci`."""
    return np.mean(values, axis=axis)


def _check(n_resamples: int, level: float) -> None:
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")


def resample_counts(n: int, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """How often each of ``n`` items is drawn in each bootstrap resample, in chunks.

    Yields ``int64`` arrays of shape ``(chunk, n)`` whose rows sum to ``n``; over all
    chunks there are ``n_resamples`` rows. The draw depends only on ``n``,
    ``n_resamples`` and ``seed``.
    """
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, _CELLS // max(n, 1)))
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        draws = rng.integers(0, n, size=(size, n))
        offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
        counts = np.bincount((draws + offsets).ravel(), minlength=size * n)
        yield counts.reshape(size, n)
        done += size


def bootstrap_sums(
    rows: Any, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> np.ndarray:
    """Column sums of ``rows`` (one row per item) in each bootstrap resample of the items.

    Returns an array of shape ``(n_resamples, columns)``: a figure that is a function of
    sums (a ratio of counts) is then computed vectorised on every resample at once.
    """
    data = np.asarray(rows, dtype=float)
    if data.ndim == 1:
        data = data[:, None]
    if data.shape[0] == 0:
        raise ValueError("no values: an interval needs at least one item")
    return np.concatenate(
        [counts @ data for counts in resample_counts(data.shape[0], n_resamples, seed)]
    )


def percentile_ci(samples: Any, level: float = DEFAULT_LEVEL) -> list[float] | None:
    """The percentile interval of bootstrap replicates, ``[low, high]``.

    Replicates that are undefined (NaN: a ratio whose denominator was 0 in that
    resample) are left out; None when every replicate is undefined.
    """
    values = np.asarray(samples, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return None
    return list(_quantiles(values, level))


def _quantiles(samples: np.ndarray, level: float) -> tuple[float, float]:
    low, high = np.quantile(samples, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return float(low), float(high)


def bootstrap_ci(
    values: Any,
    stat: Callable[..., Any] = mean,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat`` over ``values`` (items resampled).

    Args:
        values: One value per item (1-D), or one row per item (2-D; the rows are
            resampled whole, e.g. ``(numerator, denominator)`` pairs).
        stat: The statistic. It is first called vectorised as
            ``stat(resamples, axis=1)`` on an array of shape ``(k, n, ...)`` and must
            then return ``k`` values (numpy reductions do); a statistic without an
            ``axis`` argument is called once per resample instead.
        n_resamples: Resamples (default 1,000).
        seed: Seed of the random generator (the same seed gives the same interval).
        level: Coverage (default 0.95).

    Returns:
        ``(low, high)``.

    Raises:
        ValueError: No values (an interval from nothing is refused), a NaN value, or
            bad ``n_resamples`` / ``level``.
    """
    _check(n_resamples, level)
    data = np.asarray(values, dtype=float)
    if data.ndim == 0 or data.shape[0] == 0:
        raise ValueError("no values: an interval needs at least one item")
    if np.isnan(data).any():
        raise ValueError("a value is NaN: leave undefined items out (and count them) first")
    n = data.shape[0]
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, _CELLS // max(data[0].size * n, 1)))
    out: list[np.ndarray] = []
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        samples = data[rng.integers(0, n, size=(size, n))]
        out.append(_apply(stat, samples))
        done += size
    return _quantiles(np.concatenate(out), level)


def mean_ci(values: Sequence[float]) -> tuple[float | None, list[float] | None]:
    """The mean of ``values`` and its interval (:func:`bootstrap_ci` with the defaults);
    ``(None, None)`` for no values: a mean of nothing is refused, not 0."""
    if len(values) == 0:
        return None, None
    return sum(values) / len(values), list(bootstrap_ci(values))


def _apply(stat: Callable[..., Any], samples: np.ndarray) -> np.ndarray:
    try:
        result = np.asarray(stat(samples, axis=1), dtype=float)
    except TypeError:
        result = None
    if result is None or result.shape != (samples.shape[0],):
        result = np.asarray([float(stat(s)) for s in samples], dtype=float)
    return result


def larger_than_interval(low: float, high: float) -> bool:
    """A difference is larger than its interval when the interval excludes 0 and has a
    width: a zero-width interval (every resample the same) proves nothing."""
    return bool(high > low and (low > 0.0 or high < 0.0))


def compare_means(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, Any]:
    """The difference ``mean(b) - mean(a)`` of two runs, its interval and whether it is larger.

    The two runs' items are resampled independently (unpaired: two runs need not share
    items); ``larger_than_interval`` is True when the interval of the difference does
    not contain 0.

    Raises:
        ValueError: Either run has no values.
    """
    _check(n_resamples, level)
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.size == 0 or y.size == 0:
        raise ValueError("no values: a comparison needs items in both runs")
    mx = np.concatenate([c @ x / x.size for c in resample_counts(x.size, n_resamples, seed)])
    my = np.concatenate([c @ y / y.size for c in resample_counts(y.size, n_resamples, seed + 1)])
    low, high = _quantiles(my - mx, level)
    return {
        "difference": float(y.mean() - x.mean()),
        "difference_ci": [low, high],
        "larger_than_interval": larger_than_interval(low, high),
    }


# --------------------------------------------------------------------------- classification


class ClassScore(BaseModel):
    """Precision, recall and F1 of one class (0.0 where undefined), its support and intervals."""

    precision: float
    recall: float
    f1: float
    support: int
    precision_ci: list[float] | None = None
    recall_ci: list[float] | None = None
    f1_ci: list[float] | None = None


class ClassificationMetrics(BaseModel):
    """Gold labels against predicted labels (see the module docstring for failures).

    Attributes:
        labels: The classes, in row/column order of ``confusion``.
        n: Items in the figures (all items with ``failures="wrong"``, the answered
            ones with ``"excluded"``).
        failed: Items without a prediction.
        accuracy: Share of the ``n`` items predicted right.
        answered_accuracy: Share of the answered items predicted right (None: none).
        macro_f1: Mean F1 over the classes present in gold or predictions.
        per_class: Label → :class:`ClassScore`.
        confusion: ``confusion[i][j]``: items of gold ``labels[i]`` predicted
            ``labels[j]``; a last column counts each gold class's failed items.
        failures: ``"wrong"`` or ``"excluded"``.
        *_ci: Percentile bootstrap intervals ``[low, high]`` (None: no items).
        n_resamples, seed, level: How the intervals were drawn.
    """

    labels: list[str]
    n: int
    failed: int
    accuracy: float
    answered_accuracy: float | None
    macro_f1: float
    per_class: dict[str, ClassScore]
    confusion: list[list[int]]
    failures: Literal["wrong", "excluded"] = "wrong"
    accuracy_ci: list[float] | None = None
    answered_accuracy_ci: list[float] | None = None
    macro_f1_ci: list[float] | None = None
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL
    units: int = Field(default=0, description="items resampled by the bootstrap")

    def confusion_dict(self) -> dict[str, dict[str, int]]:
        """``{gold: {predicted: count, ..., "failed": count}}``."""
        cols = [*self.labels, "failed"]
        return {
            g: dict(zip(cols, row, strict=True))
            for g, row in zip(self.labels, self.confusion, strict=True)
        }


def _bootstrap_figures(
    cell: np.ndarray,
    k: int,
    groups: Sequence[Any] | None,
    failures: Literal["wrong", "excluded"],
    n_resamples: int,
    seed: int,
) -> tuple[dict[str, Any], int]:
    """The bootstrap distribution of every figure, resampling whole groups; and the unit count.

    Raises:
        ValueError: ``groups`` of another length than the items.
    """
    # One confusion tensor per bootstrap unit, then each resample is a weighted sum.
    n_items = len(cell)
    keys = list(range(n_items)) if groups is None else list(groups)
    if len(keys) != n_items:
        raise ValueError(f"{n_items} items but {len(keys)} groups")
    unit_index = {key: i for i, key in enumerate(dict.fromkeys(keys))}
    unit = np.asarray([unit_index[key] for key in keys], dtype=np.int64)
    n_units = len(unit_index)
    per_unit = np.bincount(unit * k * (k + 1) + cell, minlength=n_units * k * (k + 1)).reshape(
        n_units, k * (k + 1)
    )
    cis: dict[str, Any] = {}
    if n_units:
        boot = [
            confusion_figures((counts @ per_unit).reshape(-1, k, k + 1), failures)
            for counts in resample_counts(n_units, n_resamples, seed)
        ]
        for name in ("accuracy", "macro_f1", "precision", "recall", "f1"):
            cis[name] = np.concatenate([b[name] for b in boot])
        answered = np.concatenate([b["n_answered"] for b in boot]) > 0
        cis["answered_accuracy"] = np.concatenate([b["answered_accuracy"] for b in boot])[answered]
    return cis, n_units


def classification_metrics(
    gold: Sequence[str],
    predicted: Sequence[str | None],
    labels: Sequence[str],
    *,
    groups: Sequence[Any] | None = None,
    failures: Literal["wrong", "excluded"] = "wrong",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> ClassificationMetrics:
    """Per-class P/R/F1, macro-F1, accuracy and confusion, each figure with its interval.

    Args:
        gold: Gold label of each item (one of ``labels``).
        predicted: Predicted label of each item, None where the prediction failed.
        labels: The classes.
        groups: The bootstrap unit of each item (items of one group are resampled
            together, e.g. the documents of one question); default: each item alone.
        failures: ``"wrong"`` or ``"excluded"`` (module docstring).
        n_resamples: Bootstrap resamples (0 is not allowed; see :func:`bootstrap_ci`).
        seed: Bootstrap seed.
        level: Interval coverage.

    Raises:
        ValueError: Different lengths, or a label outside ``labels``.
    """
    _check(n_resamples, level)
    cell, conf = confusion_cells(gold, predicted, labels)
    k = len(labels)
    point = confusion_figures(conf, failures)
    cis, n_units = _bootstrap_figures(cell, k, groups, failures, n_resamples, seed)

    def ci(name: str, column: int | None = None) -> list[float] | None:
        if name not in cis or cis[name].size == 0:
            return None
        values = cis[name] if column is None else cis[name][:, column]
        return list(_quantiles(values, level))

    per_class = {
        label: ClassScore(
            precision=float(point["precision"][i]),
            recall=float(point["recall"][i]),
            f1=float(point["f1"][i]),
            support=int(conf[i].sum() if failures == "wrong" else conf[i, :k].sum()),
            precision_ci=ci("precision", i),
            recall_ci=ci("recall", i),
            f1_ci=ci("f1", i),
        )
        for i, label in enumerate(labels)
    }
    n_answered = int(point["n_answered"])
    failed = int(conf[:, k].sum())
    return ClassificationMetrics(
        labels=list(labels),
        n=n_answered + failed if failures == "wrong" else n_answered,
        failed=failed,
        accuracy=float(point["accuracy"]),
        answered_accuracy=float(point["answered_accuracy"]) if n_answered else None,
        macro_f1=float(point["macro_f1"]),
        per_class=per_class,
        confusion=conf.tolist(),
        failures=failures,
        accuracy_ci=ci("accuracy"),
        answered_accuracy_ci=ci("answered_accuracy") if n_answered else None,
        macro_f1_ci=ci("macro_f1"),
        n_resamples=n_resamples,
        seed=seed,
        level=level,
        units=n_units,
    )


def _unit_tensors(
    gold: Sequence[str],
    predicted: Sequence[str | None],
    labels: Sequence[str],
    unit: np.ndarray,
    n_units: int,
) -> np.ndarray:
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    g = np.asarray([index[v] for v in gold], dtype=np.int64)
    p = np.asarray([k if v is None else index[v] for v in predicted], dtype=np.int64)
    cells = unit * k * (k + 1) + g * (k + 1) + p
    return np.bincount(cells, minlength=n_units * k * (k + 1)).reshape(n_units, k * (k + 1))


def classification_difference(
    gold: Sequence[str],
    first: Sequence[str | None],
    second: Sequence[str | None],
    labels: Sequence[str],
    *,
    groups: Sequence[Any] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> dict[str, dict[str, Any]]:
    """Accuracy and macro-F1 of ``second`` minus ``first`` on the same gold items, paired.

    Failures count as wrong (as in the labeler bench). Returns, for ``accuracy`` and
    ``macro_f1``: ``difference``, ``difference_ci`` and ``larger_than_interval``.

    Raises:
        ValueError: Different lengths, unknown labels or no items.
    """
    _check(n_resamples, level)
    if not (len(gold) == len(first) == len(second)) or not gold:
        raise ValueError("a paired comparison needs the same, non-empty list of gold items")
    keys = list(range(len(gold))) if groups is None else list(groups)
    unit_index = {key: i for i, key in enumerate(dict.fromkeys(keys))}
    unit = np.asarray([unit_index[key] for key in keys], dtype=np.int64)
    k = len(labels)
    a = classification_metrics(gold, first, labels, n_resamples=1, seed=seed)
    b = classification_metrics(gold, second, labels, n_resamples=1, seed=seed)
    ta = _unit_tensors(gold, first, labels, unit, len(unit_index))
    tb = _unit_tensors(gold, second, labels, unit, len(unit_index))
    diffs: dict[str, list[np.ndarray]] = {"accuracy": [], "macro_f1": []}
    for counts in resample_counts(len(unit_index), n_resamples, seed):
        fa = confusion_figures((counts @ ta).reshape(-1, k, k + 1), "wrong")
        fb = confusion_figures((counts @ tb).reshape(-1, k, k + 1), "wrong")
        for name in diffs:
            diffs[name].append(fb[name] - fa[name])
    out: dict[str, dict[str, Any]] = {}
    for name, parts in diffs.items():
        low, high = _quantiles(np.concatenate(parts), level)
        out[name] = {
            "difference": float(getattr(b, name) - getattr(a, name)),
            "difference_ci": [low, high],
            "larger_than_interval": larger_than_interval(low, high),
        }
    return out
