"""Agreement metrics between judge labels and human labels (paper Table 3). Pure functions."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from conflicteval.wikicontradict.verdict import VERDICTS


class ClassScores(BaseModel):
    """Precision, recall and F1 of one class (0.0 where undefined), and its support."""

    precision: float
    recall: float
    f1: float
    support: int


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
    """

    n: int
    failed: int
    accuracy: float
    macro_f1: float
    per_class: dict[str, ClassScores]
    kappa: float
    labels: list[str]
    confusion: list[list[int]]

    def to_markdown(self) -> str:
        """The figures as a Markdown block (percentages, like Table 3)."""
        lines = [
            f"n = {self.n} (judge failures, not counted: {self.failed})",
            "",
            f"Acc {100 * self.accuracy:.1f} | Macro-F {100 * self.macro_f1:.1f} | "
            f"Cohen's kappa {self.kappa:.3f}",
            "",
            "| class | P | R | F | support |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for label, s in self.per_class.items():
            lines.append(
                f"| {label} | {100 * s.precision:.1f} | {100 * s.recall:.1f} | "
                f"{100 * s.f1:.1f} | {s.support} |"
            )
        lines += ["", "confusion (rows: human, columns: judge)", ""]
        lines.append("| human \\ judge | " + " | ".join(self.labels) + " |")
        lines.append("| --- |" + " ---: |" * len(self.labels))
        for label, row in zip(self.labels, self.confusion, strict=True):
            lines.append(f"| {label} | " + " | ".join(str(v) for v in row) + " |")
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


def _div(a: float, b: float) -> float:
    return float(a / b) if b else 0.0


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
    for value in [*human, *(j for j in judge if j is not None)]:
        if value not in labels:
            raise ValueError(f"unknown label {value!r} (expected one of {list(labels)})")
    pairs = [(h, j) for h, j in zip(human, judge, strict=True) if j is not None]
    failed = len(human) - len(pairs)
    m = confusion_matrix([h for h, _ in pairs], [j for _, j in pairs], labels)
    n = int(m.sum())
    per_class: dict[str, ClassScores] = {}
    present_f1 = []
    for i, label in enumerate(labels):
        tp = int(m[i, i])
        predicted = int(m[:, i].sum())
        actual = int(m[i, :].sum())
        p, r = _div(tp, predicted), _div(tp, actual)
        f = _div(2 * p * r, p + r)
        per_class[label] = ClassScores(precision=p, recall=r, f1=f, support=actual)
        if predicted or actual:
            present_f1.append(f)
    return AgreementReport(
        n=n,
        failed=failed,
        accuracy=_div(int(np.trace(m)), n),
        macro_f1=float(np.mean(present_f1)) if present_f1 else 0.0,
        per_class=per_class,
        kappa=cohen_kappa(m),
        labels=list(labels),
        confusion=m.tolist(),
    )
