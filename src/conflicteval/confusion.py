"""Confusion tables of a classifier whose predictions may fail, and their figures.

A confusion table here has one column more than it has classes: the last counts the
items whose prediction failed (see :mod:`conflicteval.stats` for how failures count).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)


def confusion_figures(conf: np.ndarray, failures: str) -> dict[str, np.ndarray]:
    """Figures of confusion tensors ``(..., K, K + 1)`` (last column: failed)."""
    k = conf.shape[-2]
    answered = conf[..., :, :k]
    tp = np.diagonal(answered, axis1=-2, axis2=-1)
    predicted = answered.sum(axis=-2)
    support = conf.sum(axis=-1) if failures == "wrong" else answered.sum(axis=-1)
    precision = _div(tp, predicted)
    recall = _div(tp, support)
    f1 = _div(2 * precision * recall, precision + recall)
    present = (predicted > 0) | (support > 0)
    n_present = present.sum(axis=-1)
    macro = _div((f1 * present).sum(axis=-1), n_present)
    correct = tp.sum(axis=-1)
    n_answered = answered.sum(axis=(-2, -1))
    n_all = conf.sum(axis=(-2, -1)) if failures == "wrong" else n_answered
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "macro_f1": macro,
        "accuracy": _div(correct, n_all),
        "answered_accuracy": _div(correct, n_answered),
        "n_answered": n_answered,
    }


def confusion_cells(
    gold: Sequence[str], predicted: Sequence[str | None], labels: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Each item's confusion cell index and the ``k × (k + 1)`` confusion (last column: failed).

    Raises:
        ValueError: Different lengths, or a label outside ``labels``.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    index = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    for value in [*gold, *(p for p in predicted if p is not None)]:
        if value not in index:
            raise ValueError(f"unknown label {value!r} (expected one of {list(labels)})")
    g = np.asarray([index[v] for v in gold], dtype=np.int64)
    p = np.asarray([k if v is None else index[v] for v in predicted], dtype=np.int64)
    cell = g * (k + 1) + p
    conf = np.bincount(cell, minlength=k * (k + 1)).reshape(k, k + 1)
    return cell, conf
