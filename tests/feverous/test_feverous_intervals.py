"""Bootstrap intervals of verify's label accuracy and macro-F1 (claims resampled)."""

from __future__ import annotations

import numpy as np
import pytest

from conflicteval.feverous import label_metrics
from conflicteval.stats import resample_counts

GOLD = ["SUPPORTS", "SUPPORTS", "REFUTES", "REFUTES", "NOT ENOUGH INFO"] * 4
PREDICTED = ["SUPPORTS", "REFUTES", "REFUTES", None, "SUPPORTS"] * 4


def _by_hand(gold: list[str], predicted: list[str | None]) -> tuple[list[float], list[float]]:
    """The intervals recomputed one resample at a time (claims drawn as the library draws)."""
    n = len(gold)
    accuracy, macro = [], []
    counts = np.concatenate(list(resample_counts(n, 1000, 0)))
    for row in counts:
        drawn = [i for i in range(n) for _ in range(int(row[i]))]
        g = [gold[i] for i in drawn]
        p = [predicted[i] for i in drawn]
        accuracy.append(sum(a == b for a, b in zip(g, p, strict=True)) / n)
        f1s = []
        for c in ("SUPPORTS", "REFUTES"):
            tp = sum(a == c and b == c for a, b in zip(g, p, strict=True))
            fp = sum(b == c and a != c for a, b in zip(g, p, strict=True))
            fn = sum(a == c and b != c for a, b in zip(g, p, strict=True))
            f1s.append(2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0)
        macro.append(sum(f1s) / 2)
    return (
        [float(x) for x in np.quantile(accuracy, [0.025, 0.975])],
        [float(x) for x in np.quantile(macro, [0.025, 0.975])],
    )


def test_label_accuracy_and_macro_f1_carry_a_claim_bootstrap_interval() -> None:
    m = label_metrics(GOLD, PREDICTED)  # type: ignore[arg-type]
    accuracy, macro = _by_hand(GOLD, PREDICTED)
    assert m.label_accuracy_ci == pytest.approx(accuracy)
    assert m.macro_f1_ci == pytest.approx(macro)
    assert m.label_accuracy_ci[0] <= m.label_accuracy <= m.label_accuracy_ci[1]  # type: ignore[index]
    assert m.macro_f1_ci[0] < m.macro_f1 < m.macro_f1_ci[1]  # type: ignore[index]
    # the same claims give the same interval (seeded)
    assert label_metrics(GOLD, PREDICTED).macro_f1_ci == m.macro_f1_ci  # type: ignore[arg-type]


def test_undefined_figures_have_no_interval() -> None:
    m = label_metrics([], [])
    assert (m.label_accuracy, m.label_accuracy_ci, m.macro_f1, m.macro_f1_ci) == (
        None,
        None,
        None,
        None,
    )
