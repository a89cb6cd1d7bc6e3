"""The shared interval and classification helpers (conflicteval.stats)."""

from __future__ import annotations

import numpy as np
import pytest

from conflicteval.stats import (
    bootstrap_ci,
    bootstrap_sums,
    classification_difference,
    classification_metrics,
    compare_means,
    percentile_ci,
)

LABELS = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")
S, C, IRR = LABELS


def test_fixed_seed_gives_identical_intervals_and_another_seed_another() -> None:
    values = np.random.default_rng(7).normal(size=80)
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)
    assert bootstrap_ci(values, seed=3) != bootstrap_ci(values, seed=4)
    gold = [S, C, IRR, S, C] * 8
    pred = [S, S, IRR, None, C] * 8
    a = classification_metrics(gold, pred, LABELS, seed=5)
    b = classification_metrics(gold, pred, LABELS, seed=5)
    assert a == b
    assert a.macro_f1_ci != classification_metrics(gold, pred, LABELS, seed=6).macro_f1_ci


def test_interval_of_a_known_distribution_covers_its_mean_at_the_expected_rate() -> None:
    # 200 samples of 60 draws from N(0.3, 1): a 95 % interval should hold 0.3 about 95 % of
    # the time (the percentile bootstrap runs a little narrow at this size).
    hits = 0
    trials = 200
    for k in range(trials):
        draws = np.random.default_rng(1000 + k).normal(0.3, 1.0, size=60)
        low, high = bootstrap_ci(draws, seed=k)
        hits += low <= 0.3 <= high
    assert 0.88 <= hits / trials <= 0.99


def test_interval_is_percentile_of_resampled_means() -> None:
    values = [0.0, 0.0, 1.0, 1.0]
    low, high = bootstrap_ci(values, n_resamples=2000)
    assert low == 0.0 and high == 1.0  # every mean of four 0/1 draws is k/4; 0 and 1 occur
    assert bootstrap_ci([0.5] * 10) == (0.5, 0.5)
    narrow = bootstrap_ci([0.0, 1.0] * 500)
    assert 0.46 < narrow[0] < 0.5 < narrow[1] < 0.54


def test_a_statistic_without_axis_is_applied_per_resample() -> None:
    values = np.random.default_rng(2).normal(size=50)
    assert bootstrap_ci(values, stat=np.median) == bootstrap_ci(
        values, stat=lambda x: float(np.median(x))
    )


def test_no_values_or_nan_are_refused() -> None:
    with pytest.raises(ValueError, match="no values"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_ci([1.0, float("nan")])
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci([1.0], level=1.5)


def test_bootstrap_sums_and_percentile_ci_drop_undefined_replicates() -> None:
    sums = bootstrap_sums([[1, 0], [0, 1], [1, 1]], n_resamples=50)
    assert sums.shape == (50, 2) and np.all(sums.sum(axis=1) <= 6)
    assert percentile_ci([np.nan, 1.0, 2.0, 3.0], level=0.5) == [1.5, 2.5]
    assert percentile_ci([np.nan]) is None


def test_exact_per_class_figures_of_a_known_confusion_matrix() -> None:
    # gold S: 4 (3 S, 1 C); gold C: 3 (1 S, 2 C); gold I: 3 (1 C, 1 IRR, 1 failed)
    gold = [S, S, S, S, C, C, C, IRR, IRR, IRR]
    pred = [S, S, S, C, S, C, C, C, IRR, None]
    m = classification_metrics(gold, pred, LABELS)
    assert m.confusion == [[3, 1, 0, 0], [1, 2, 0, 0], [0, 1, 1, 1]]
    assert (m.n, m.failed) == (10, 1)
    s, c, i = (m.per_class[x] for x in LABELS)
    assert (s.precision, s.recall, s.support) == (3 / 4, 3 / 4, 4)
    assert (c.precision, c.recall, c.support) == (2 / 4, 2 / 3, 3)
    assert (i.precision, i.recall, i.support) == (1.0, 1 / 3, 3)  # the failure counts as wrong
    assert c.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert m.macro_f1 == pytest.approx((0.75 + c.f1 + 0.5) / 3)
    assert m.accuracy == pytest.approx(6 / 10)
    assert m.answered_accuracy == pytest.approx(6 / 9)
    low, high = m.accuracy_ci or (None, None)
    assert low is not None and high is not None and low < 0.6 < high
    assert m.confusion_dict()["IRRELEVANT"]["failed"] == 1
    excluded = classification_metrics(gold, pred, LABELS, failures="excluded")
    assert (excluded.n, excluded.failed) == (9, 1)
    assert excluded.accuracy == pytest.approx(6 / 9)
    assert excluded.per_class[IRR].recall == pytest.approx(1 / 2)


def test_groups_resample_pairs_together() -> None:
    # two questions of ten pairs each, one all right, one all wrong: resampling questions
    # gives accuracies 0, 1/2 or 1; resampling pairs would give a narrow interval
    gold = [S] * 20
    pred = [S] * 10 + [C] * 10
    grouped = classification_metrics(gold, pred, LABELS, groups=["a"] * 10 + ["b"] * 10)
    assert grouped.accuracy_ci == [0.0, 1.0] and grouped.units == 2
    pairs = classification_metrics(gold, pred, LABELS)
    assert pairs.accuracy_ci is not None and 0.2 < pairs.accuracy_ci[0] < 0.5
    assert pairs.units == 20


def test_classification_refuses_unknown_labels_and_lengths() -> None:
    with pytest.raises(ValueError, match="unknown label"):
        classification_metrics([S], ["MAYBE"], LABELS)
    with pytest.raises(ValueError, match="predictions"):
        classification_metrics([S, C], [S], LABELS)


def test_compare_means_says_whether_a_difference_exceeds_its_interval() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(0.2, 0.1, size=100)
    b = rng.normal(0.5, 0.1, size=100)
    clear = compare_means(a, b)
    assert clear["larger_than_interval"] and clear["difference"] == pytest.approx(
        b.mean() - a.mean()
    )
    noise = compare_means(a, a + rng.normal(0, 0.001, size=100))
    assert not noise["larger_than_interval"]
    assert noise["difference_ci"][0] < 0 < noise["difference_ci"][1]


def test_paired_difference_of_two_labelers_on_the_same_items() -> None:
    gold = [S, C, IRR] * 30
    good = list(gold)
    good[0] = None  # one failure: counted as wrong
    poor = [S] * 90
    diff = classification_difference(gold, poor, good, LABELS)
    assert diff["accuracy"]["difference"] == pytest.approx(89 / 90 - 30 / 90)
    assert diff["accuracy"]["larger_than_interval"]
    assert diff["macro_f1"]["difference_ci"][0] > 0
    same = classification_difference(gold, good, good, LABELS)
    assert same["macro_f1"] == {
        "difference": 0.0,
        "difference_ci": [0.0, 0.0],
        "larger_than_interval": False,
    }
    with pytest.raises(ValueError, match="same, non-empty"):
        classification_difference(gold, good, good[:-1], LABELS)
