"""Conflict-detection metrics (paper §4.1, Table 2): pure functions, no model calls.

A prediction is *Conflict* iff at least one document was labelled SUPPORTS and
at least one CONTRADICTS. Failures are counted, never folded into a class:

* an item whose labelling failed as a whole has no prediction (failed item);
* an item with some failed pairs keeps its prediction only when the failed
  pairs could not change it: a Conflict prediction always stands; a
  No-conflict prediction stands only when there are fewer failed pairs than
  relations (of SUPPORTS / CONTRADICTS) still missing. Otherwise the item is
  *undetermined* and counted as failed.

Failed items are left out of precision, recall, F1 and the accuracies and
reported beside them; failed pairs are left out of the per-relation accuracy.
Undefined ratios (0/0) are None.

Every figure has a percentile bootstrap 95 % interval (``*_ci``: the scored items
resampled, 1,000 resamples, seed 0; resamples where a ratio is 0/0 are left out of
its interval; see :mod:`conflicteval.stats`). The relation accuracies' intervals
resample items too (an item's pairs stay together).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from pydantic import BaseModel, Field

from conflicteval.conflictbench.items import SOURCE_LABELS, SOURCES
from conflicteval.formatting import MISSING, interval, number
from conflicteval.tables import markdown_table
from conflicteval.types import RELATIONS, Relation

PAPER_TABLE2: dict[str, tuple[float, float, float, float, float, float]] = {
    "contraqa": (0.9971, 0.8208, 0.9004, 0.9035, 0.8208, 0.9973),
    "macnoise-nq": (0.8763, 0.9043, 0.8901, 0.8945, 0.9043, 0.8857),
    "macnoise-tqa": (0.9655, 0.9655, 0.9655, 0.9621, 0.9655, 0.9579),
    "ambigdocs": (0.9962, 0.8935, 0.9420, 0.9508, 0.8935, 0.9972),
    "conflictingqa": (0.9720, 0.9775, 0.9747, 0.9585, 0.9775, 0.8734),
    "overall": (0.9763, 0.9000, 0.9366, 0.932, 0.9000, 0.9724),
}
"""GPT-4.1 results of the paper's Table 2: (P, R, F1, Acc, Acc_conf, Acc_noConf)."""


class DetectionOutcome(BaseModel):
    """The labels of one item's claim against each of its documents.

    Attributes:
        id: Item id.
        source: Item source.
        gold_conflict: Gold conflict label.
        gold: Gold relation of each document.
        labels: Predicted relation of each document (None for a failed pair),
            or None when the item's labelling failed as a whole.
        error: Why the item failed, if it did.
    """

    id: str
    source: str
    gold_conflict: bool
    gold: list[Relation]
    labels: list[Relation | None] | None = None
    error: str | None = None


def predict_conflict(labels: Sequence[Relation | None] | None) -> bool | None:
    """Conflict iff ≥1 SUPPORTS and ≥1 CONTRADICTS; None when failures leave it undetermined."""
    if labels is None:
        return None
    valid = {lab for lab in labels if lab is not None}
    if "SUPPORTS" in valid and "CONTRADICTS" in valid:
        return True
    failed = sum(lab is None for lab in labels)
    missing = ("SUPPORTS" not in valid) + ("CONTRADICTS" not in valid)
    return None if failed >= missing else False


def predict_response_conflict(table: Sequence[Sequence[Relation | None]]) -> bool | None:
    """Conflict of a response's claims x documents label table (ConflictScore's "CS-C > 0").

    Conflict iff some claim is Conflict by :func:`predict_conflict` (at least one
    document supports it and at least one contradicts it), i.e. CS-C > 0. No
    claim Conflict: No-conflict, unless a claim's failed pairs could have made
    it Conflict (:func:`predict_conflict` is None for it); then, or for a table
    without claims, None (no prediction, a failed item).
    """
    undetermined = not table
    for row in table:
        pred = predict_conflict(row)
        if pred:
            return True
        undetermined = undetermined or pred is None
    return None if undetermined else False


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def binary_scores(tp: int, fp: int, fn: int, tn: int) -> dict[str, float | None]:
    """Precision, recall, F1, accuracy, Acc_conf and Acc_noConf of confusion counts (pure).

    Conflict is the positive class. A ratio with a zero denominator is None;
    F1 is 0.0 when precision and recall are both defined and both 0.
    """
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1: float | None = None
    if precision is not None and recall is not None:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "accuracy": _ratio(tp + tn, tp + fp + fn + tn),
        "acc_conf": _ratio(tp, tp + fn),
        "acc_noconf": _ratio(tn, tn + fp),
    }


class DetectionMetrics(BaseModel):
    """Table 2 metrics for one source (or overall), with failure counts.

    Attributes:
        n_items: Items in the group.
        failed_items: Items without a prediction (labelling failed or undetermined).
        tp / fp / fn / tn: Confusion counts over scored items (Conflict = positive).
        precision, recall, f1, accuracy, acc_conf, acc_noconf: Table 2 columns
            (None when undefined).
        n_pairs / failed_pairs: Claim-document pairs and how many failed.
        relation_total / relation_correct: Valid pairs per gold relation, and
            how many of them were labelled with the gold relation.
        relation_accuracy: Per gold relation, plus ``"all"``.
    """

    n_items: int = 0
    failed_items: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    accuracy: float | None = None
    acc_conf: float | None = None
    acc_noconf: float | None = None
    n_pairs: int = 0
    failed_pairs: int = 0
    relation_total: dict[str, int] = Field(default_factory=dict)
    relation_correct: dict[str, int] = Field(default_factory=dict)
    relation_accuracy: dict[str, float | None] = Field(default_factory=dict)
    precision_ci: list[float] | None = None
    recall_ci: list[float] | None = None
    f1_ci: list[float] | None = None
    accuracy_ci: list[float] | None = None
    acc_conf_ci: list[float] | None = None
    acc_noconf_ci: list[float] | None = None
    relation_accuracy_ci: dict[str, list[float] | None] = Field(default_factory=dict)

    @property
    def scored_items(self) -> int:
        """Items with a prediction."""
        return self.tp + self.fp + self.fn + self.tn


def _count(m: DetectionMetrics, pred: bool | None, gold: bool) -> None:
    """Add one item's prediction to the confusion counts (None: a failed item)."""
    if pred is None:
        m.failed_items += 1
    elif pred and gold:
        m.tp += 1
    elif pred:
        m.fp += 1
    elif gold:
        m.fn += 1
    else:
        m.tn += 1


def metrics_from_predictions(predictions: Iterable[tuple[bool | None, bool]]) -> DetectionMetrics:
    """Table 2 detection metrics of ``(prediction, gold)`` pairs (prediction None: failed item).

    The counts and ratios :func:`compute_metrics` gives, for predictions made
    elsewhere (e.g. :func:`predict_response_conflict` of a scored report); no
    relation accuracy or pair counts.
    """
    m = DetectionMetrics()
    for pred, gold in predictions:
        m.n_items += 1
        _count(m, pred, gold)
    for name, value in binary_scores(m.tp, m.fp, m.fn, m.tn).items():
        setattr(m, name, value)
    return m


def compute_metrics(outcomes: Iterable[DetectionOutcome]) -> DetectionMetrics:
    """Table 2 metrics of one group of outcomes."""
    m = DetectionMetrics()
    total: dict[str, int] = dict.fromkeys(RELATIONS, 0)
    correct: dict[str, int] = dict.fromkeys(RELATIONS, 0)
    # per item: tp, fp, fn, tn, then (valid, correct) pairs per relation (for the intervals)
    rows: list[list[int]] = []
    for o in outcomes:
        row = [0] * (4 + 2 * len(RELATIONS))
        m.n_items += 1
        m.n_pairs += len(o.gold)
        if o.labels is None:
            m.failed_pairs += len(o.gold)
        else:
            if len(o.labels) != len(o.gold):
                raise ValueError(
                    f"item {o.id!r}: {len(o.labels)} labels for {len(o.gold)} documents"
                )
            for gold, lab in zip(o.gold, o.labels, strict=True):
                if lab is None:
                    m.failed_pairs += 1
                    continue
                total[gold] += 1
                correct[gold] += lab == gold
                r = 4 + 2 * RELATIONS.index(gold)
                row[r] += 1
                row[r + 1] += lab == gold
        pred = predict_conflict(o.labels)
        _count(m, pred, o.gold_conflict)
        if pred is not None:  # one of tp, fp, fn, tn, as _count counted it
            row[(0 if o.gold_conflict else 1) if pred else (2 if o.gold_conflict else 3)] = 1
        rows.append(row)
    for name, value in binary_scores(m.tp, m.fp, m.fn, m.tn).items():
        setattr(m, name, value)
    m.relation_total = dict(total)
    m.relation_correct = dict(correct)
    m.relation_accuracy = {r: _ratio(correct[r], total[r]) for r in RELATIONS}
    m.relation_accuracy["all"] = _ratio(sum(correct.values()), sum(total.values()))
    if rows:
        _set_intervals(m, np.asarray(rows, dtype=float))
    return m


def _ratio_array(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)


def _set_intervals(m: DetectionMetrics, rows: np.ndarray) -> None:
    """Bootstrap intervals of every figure (items resampled; failed items resampled too)."""
    from conflicteval.stats import bootstrap_sums, percentile_ci

    sums = bootstrap_sums(rows)
    tp, fp, fn, tn = (sums[:, i] for i in range(4))
    precision = _ratio_array(tp, tp + fp)
    recall = _ratio_array(tp, tp + fn)
    f1 = _ratio_array(2 * precision * recall, precision + recall)
    f1 = np.where((precision == 0) & (recall == 0), 0.0, f1)
    figures = {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "accuracy": _ratio_array(tp + tn, tp + fp + fn + tn),
        "acc_conf": recall,
        "acc_noconf": _ratio_array(tn, tn + fp),
    }
    for name, values in figures.items():
        setattr(m, f"{name}_ci", percentile_ci(values) if getattr(m, name) is not None else None)
    rel_total = sums[:, 4::2].sum(axis=1)
    rel_correct = sums[:, 5::2].sum(axis=1)
    for k, rel in enumerate(RELATIONS):
        ratio = _ratio_array(sums[:, 5 + 2 * k], sums[:, 4 + 2 * k])
        m.relation_accuracy_ci[rel] = (
            percentile_ci(ratio) if m.relation_accuracy.get(rel) is not None else None
        )
    m.relation_accuracy_ci["all"] = (
        percentile_ci(_ratio_array(rel_correct, rel_total))
        if m.relation_accuracy.get("all") is not None
        else None
    )


def detection_metrics(outcomes: Iterable[DetectionOutcome]) -> dict[str, DetectionMetrics]:
    """Metrics per source (Table 2 row order, sources present only) and ``"overall"``."""
    items = list(outcomes)
    by_source: dict[str, list[DetectionOutcome]] = {}
    for o in items:
        by_source.setdefault(o.source, []).append(o)
    order = [s for s in SOURCES if s in by_source] + sorted(
        s for s in by_source if s not in SOURCES
    )
    out = {s: compute_metrics(by_source[s]) for s in order}
    out["overall"] = compute_metrics(items)
    return out


def table2(metrics: Mapping[str, DetectionMetrics], *, paper: bool = False) -> str:
    """Markdown table in the layout of Table 2, plus relation accuracy and failures.

    Args:
        metrics: Output of :func:`detection_metrics`.
        paper: Add a row with the paper's GPT-4.1 numbers under each group.
    """
    head = ["Category", "Prec", "Rec", "F1", "Acc", "Acc_conf", "Acc_noConf"]
    head += ["RelAcc S", "RelAcc C", "RelAcc I", "Items", "Failed items", "Pairs", "Failed pairs"]
    rows: list[list[object]] = []
    for key, m in metrics.items():
        label = "Overall" if key == "overall" else SOURCE_LABELS.get(key, key)
        ra = m.relation_accuracy
        rows.append(
            [
                label,
                number(m.precision),
                number(m.recall),
                number(m.f1),
                number(m.accuracy),
                number(m.acc_conf),
                number(m.acc_noconf),
                number(ra.get("SUPPORTS")),
                number(ra.get("CONTRADICTS")),
                number(ra.get("IRRELEVANT")),
                m.n_items,
                m.failed_items,
                m.n_pairs,
                m.failed_pairs,
            ]
        )
        if paper and key in PAPER_TABLE2:
            rows.append([f"{label} (paper, GPT-4.1)", *(f"{v:.4f}" for v in PAPER_TABLE2[key])])
    return markdown_table(head, rows)


def table2_intervals(metrics: Mapping[str, DetectionMetrics]) -> str:
    """Markdown table of the 95 % intervals of :func:`table2`'s figures (bootstrap over items)."""
    head = ["Category", "Prec 95% CI", "Rec 95% CI", "F1 95% CI", "Acc 95% CI"]
    head += ["Acc_conf 95% CI", "Acc_noConf 95% CI", "RelAcc 95% CI"]
    rows: list[list[object]] = []
    for key, m in metrics.items():
        label = "Overall" if key == "overall" else SOURCE_LABELS.get(key, key)
        cis = [m.precision_ci, m.recall_ci, m.f1_ci, m.accuracy_ci, m.acc_conf_ci]
        cis += [m.acc_noconf_ci, m.relation_accuracy_ci.get("all")]
        rows.append([label, *(interval(ci, missing=MISSING) for ci in cis)])
    return markdown_table(head, rows, ["left"] * len(head))
