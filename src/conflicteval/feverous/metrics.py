"""Verdict metrics: label accuracy and macro-F1 over FEVEROUS labels.

Pure functions of gold and predicted labels. A prediction of ``None`` is a
failed claim: it matches no gold label (so it lowers accuracy and the recall
of its gold class) and is in no predicted class.

``label_accuracy`` and ``macro_f1`` carry a 95% percentile bootstrap interval
(``*_ci``): the claims are resampled with replacement 1,000 times (seed 0, as every
interval of the library, :mod:`conflicteval.stats`), a failed claim staying a wrong
answer in every resample, and both figures are recomputed on each resample. A figure
that is undefined (no claim) has no interval (None).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from conflicteval.stats import bootstrap_sums, percentile_ci

from .claims import LABELS, Label

FAILED = "FAILED"
"""The column of the confusion matrix that counts failed claims."""

TWO_CLASS: tuple[Label, Label] = ("SUPPORTS", "REFUTES")
"""The classes averaged by the FEVEROUS-S macro-F1 (ProgramFC)."""


class LabelMetrics(BaseModel):
    """Verdict quality of a run.

    Attributes:
        n: Claims with a gold label.
        n_answered: Of those, claims with a predicted label.
        label_accuracy: Correct predictions over ``n`` (failed claims count as wrong;
            None when ``n`` is 0: nothing was scored).
        label_accuracy_answered: Correct predictions over ``n_answered`` (None when none).
        macro_f1: Mean F1 of SUPPORTS and REFUTES (FEVEROUS-S); other predictions
            (NOT ENOUGH INFO, failed) are wrong for both classes (None when ``n`` is 0).
        macro_f1_3class: Mean F1 over the three FEVEROUS labels (None when ``n`` is 0).
        f1: F1 of each of the three labels.
        confusion: ``confusion[gold][predicted]`` counts; failed claims under ``"FAILED"``.
        label_accuracy_ci / macro_f1_ci: 95% percentile bootstrap intervals
            ``[low, high]`` over the claims (None when the figure is None).
    """

    n: int
    n_answered: int
    label_accuracy: float | None
    label_accuracy_answered: float | None
    macro_f1: float | None
    macro_f1_3class: float | None
    f1: dict[str, float]
    confusion: dict[str, dict[str, int]]
    label_accuracy_ci: list[float] | None = None
    macro_f1_ci: list[float] | None = None


def f1_for(gold: Sequence[str], predicted: Sequence[str | None], cls: str) -> float:
    """F1 of one class: ``2TP / (2TP + FP + FN)``, 0.0 when the class is absent from both."""
    tp = fp = fn = 0
    for g, p in zip(gold, predicted, strict=True):
        if p == cls and g == cls:
            tp += 1
        elif p == cls:
            fp += 1
        elif g == cls:
            fn += 1
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else 0.0


def label_metrics(gold: Sequence[Label], predicted: Sequence[Label | None]) -> LabelMetrics:
    """Accuracy, two- and three-class macro-F1 and the confusion matrix.

    Args:
        gold: Gold labels.
        predicted: Predicted labels, ``None`` for a failed claim (same length as ``gold``).

    Raises:
        ValueError: The sequences differ in length.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    n = len(gold)
    answered = [(g, p) for g, p in zip(gold, predicted, strict=True) if p is not None]
    correct = sum(1 for g, p in answered if g == p)
    f1: dict[str, float] = {cls: f1_for(gold, predicted, cls) for cls in LABELS}
    confusion: dict[str, dict[str, int]] = {g: {p: 0 for p in (*LABELS, FAILED)} for g in LABELS}
    for g, p in zip(gold, predicted, strict=True):
        confusion[g][p if p is not None else FAILED] += 1
    return LabelMetrics(
        n=n,
        n_answered=len(answered),
        label_accuracy=correct / n if n else None,
        label_accuracy_answered=correct / len(answered) if answered else None,
        macro_f1=sum(f1[c] for c in TWO_CLASS) / len(TWO_CLASS) if n else None,
        macro_f1_3class=sum(f1.values()) / len(f1) if n else None,
        f1=f1,
        confusion=confusion,
        **_intervals(gold, predicted),
    )


def _intervals(
    gold: Sequence[str], predicted: Sequence[str | None]
) -> dict[str, list[float] | None]:
    """Bootstrap intervals of label accuracy and the two-class macro-F1 (claims resampled)."""
    if not gold:
        return {"label_accuracy_ci": None, "macro_f1_ci": None}
    # One row per claim: correct, then TP, FP, FN of each of the two classes.
    rows = [
        [float(g == p)]
        + [float(x) for c in TWO_CLASS for x in (p == c and g == c, p == c != g, g == c != p)]
        for g, p in zip(gold, predicted, strict=True)
    ]
    sums = bootstrap_sums(rows)
    accuracy = sums[:, 0] / len(gold)
    f1s = []
    for k in range(len(TWO_CLASS)):
        tp, fp, fn = sums[:, 1 + 3 * k], sums[:, 2 + 3 * k], sums[:, 3 + 3 * k]
        denominator = 2 * tp + fp + fn
        f1s.append(np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0))
    return {
        "label_accuracy_ci": percentile_ci(accuracy),
        "macro_f1_ci": percentile_ci(np.mean(f1s, axis=0)),
    }
