"""Agreement metrics between judge labels and human labels (paper Table 3). Pure functions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from conflicteval.stats import ClassScore, classification_metrics, format_ci
from conflicteval.tables import markdown_table
from conflicteval.wikicontradict.judge_template import VERDICTS

ClassScores = ClassScore
"""Precision, recall and F1 of one class (0.0 where undefined), its support and intervals
(the shared :class:`conflicteval.stats.ClassScore`)."""


class AgreementReport(BaseModel):
    """Table 3 figures for one judge against human labels.

    Attributes:
        n: Pairs compared (both labels present).
        failed: Pairs whose judge label is missing (parse or model failure);
            not in any other figure.
        accuracy: Share of pairs where the judge agrees with the human.
        macro_f1: Mean F1 over the classes present in either labelling.
        per_class: P/R/F1 per class.
        kappa: Cohen's kappa.
        labels: Row/column order of the confusion matrix.
        confusion: ``confusion[i][j]`` = pairs with human label ``labels[i]``
            and judge label ``labels[j]``.
        accuracy_ci, macro_f1_ci, kappa_ci: Percentile bootstrap 95 % intervals over
            the graded responses (1,000 resamples, seed 0; see :mod:`conflicteval.stats`);
            per-class intervals are in ``per_class``. None when nothing was compared.
    """

    n: int
    failed: int
    accuracy: float
    macro_f1: float
    per_class: dict[str, ClassScores]
    kappa: float
    labels: list[str]
    confusion: list[list[int]]
    accuracy_ci: list[float] | None = None
    macro_f1_ci: list[float] | None = None
    kappa_ci: list[float] | None = None

    def to_markdown(self) -> str:
        """The figures as a Markdown block (percentages, like Table 3)."""
        lines = [
            f"n = {self.n} (judge failures, not counted: {self.failed})",
            "",
            f"Acc {100 * self.accuracy:.1f} | Macro-F {100 * self.macro_f1:.1f} | "
            f"Cohen's kappa {self.kappa:.3f}",
            "",
            # 95 % intervals: percentile bootstrap over the graded responses
            f"95% intervals: Acc {format_ci(self.accuracy_ci, 1, 100)} | Macro-F "
            f"{format_ci(self.macro_f1_ci, 1, 100)} | kappa {format_ci(self.kappa_ci, 3)}",
            "",
        ]
        per_class = [
            [
                label,
                f"{100 * s.precision:.1f}",
                f"{100 * s.recall:.1f}",
                f"{100 * s.f1:.1f}",
                s.support,
                format_ci(s.f1_ci, 1, 100),
            ]
            for label, s in self.per_class.items()
        ]
        head = ["class", "P", "R", "F", "support", "F 95% interval"]
        lines.append(markdown_table(head, per_class, ["left", *(["right"] * 4), "left"]))
        lines += ["", "confusion (rows: human, columns: judge)", ""]
        rows = [[label, *row] for label, row in zip(self.labels, self.confusion, strict=True)]
        lines.append(markdown_table(["human \\ judge", *self.labels], rows))
        return "\n".join(lines)


def confusion_matrix(
    human: Sequence[str], judge: Sequence[str], labels: Sequence[str] = VERDICTS
) -> np.ndarray:
    """Counts of (human label, judge label) pairs; rows human, columns judge."""
    index = {label: i for i, label in enumerate(labels)}
    m = np.zeros((len(labels), len(labels)), dtype=int)
    for h, j in zip(human, judge, strict=True):
        m[index[h], index[j]] += 1
    return m


def cohen_kappa(matrix: np.ndarray) -> float:
    """Cohen's kappa of a square confusion matrix: ``(p_o - p_e) / (1 - p_e)``.

    ``p_o`` is the observed agreement (the diagonal share) and ``p_e`` the
    chance agreement (sum over classes of row share times column share).
    Where the formula is 0/0 it returns 0.0 for an empty matrix and 1.0 when
    both labellings use one and the same class throughout (then ``p_e = 1``
    and the agreement is perfect).
    """
    total = matrix.sum()
    if total == 0:
        return 0.0
    observed = np.trace(matrix) / total
    expected = float((matrix.sum(axis=0) * matrix.sum(axis=1)).sum()) / float(total * total)
    if expected >= 1.0:
        return 1.0 if observed >= 1.0 else 0.0
    return float((observed - expected) / (1.0 - expected))


def agreement(
    human: Sequence[str], judge: Sequence[str | None], labels: Sequence[str] = VERDICTS
) -> AgreementReport:
    """Accuracy, macro-F1, per-class P/R/F1, Cohen's kappa and the confusion matrix.

    Args:
        human: Human labels.
        judge: Judge labels, None where the judge failed (counted in ``failed``).
        labels: The label set (default: correct / partially correct / incorrect).

    Returns:
        An AgreementReport.

    Raises:
        ValueError: Different lengths, or a label outside ``labels``.
    """
    if len(human) != len(judge):
        raise ValueError(f"{len(human)} human labels but {len(judge)} judge labels")
    # Judge failures are left out of every figure (Table 3 compares graded pairs) and
    # counted in ``failed``; the shared module computes the figures and their intervals.
    shared = classification_metrics(human, judge, labels, failures="excluded")
    k = len(labels)
    m = np.asarray(shared.confusion, dtype=int)[:, :k]
    return AgreementReport(
        n=shared.n,
        failed=shared.failed,
        accuracy=shared.accuracy,
        macro_f1=shared.macro_f1,
        per_class=shared.per_class,
        kappa=cohen_kappa(m),
        labels=list(labels),
        confusion=m.tolist(),
        accuracy_ci=shared.accuracy_ci,
        macro_f1_ci=shared.macro_f1_ci,
        kappa_ci=_kappa_ci(human, judge, labels),
    )


def _kappa_ci(
    human: Sequence[str], judge: Sequence[str | None], labels: Sequence[str]
) -> list[float] | None:
    """Percentile bootstrap interval of Cohen's kappa over the graded responses."""
    from conflicteval.stats import bootstrap_ci

    index = {label: i for i, label in enumerate(labels)}
    pairs = [(index[h], index[j]) for h, j in zip(human, judge, strict=True) if j is not None]
    if not pairs:
        return None
    k = len(labels)

    def kappa(rows: np.ndarray) -> float:
        cells = rows[:, 0].astype(int) * k + rows[:, 1].astype(int)
        return cohen_kappa(np.bincount(cells, minlength=k * k).reshape(k, k))

    return list(bootstrap_ci(np.asarray(pairs, dtype=float), stat=kappa))
