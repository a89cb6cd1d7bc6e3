"""The FEVEROUS score, re-implemented from the official scorer's rules.

Rules (the official ``feverous_score``):

1. Predicted evidence is truncated in order: ``cell``, ``header_cell``,
   ``table_caption`` and ``item`` elements share a budget of ``max_cells``
   (25); every other type (sentence, section, title, ...) shares
   ``max_sentences`` (5). Duplicates count against the budgets and the
   precision denominator.
2. The label is correct when ``label`` and ``predicted_label`` are equal
   ignoring case.
3. A claim scores (strict) when the label is correct **and** every element
   of at least one gold evidence set is among the truncated predictions.
   NOT ENOUGH INFO gets no exemption.
4. Precision of a claim: predicted elements found in any gold set over
   predicted elements; no prediction gives 1.0. Recall: 1 when a gold set
   is fully predicted, else 0 (the label is ignored); a claim with no gold
   set (``evidence == []``) gets recall 1 but can never score strictly.
   A gold set that is itself empty is trivially covered. Both are averaged
   over all claims; F1 comes from the two averages.
5. Elements match by exact equality of ``(page, type, position)``: case- and
   Unicode-sensitive (no normalisation).

Where the official code divides by zero this module returns 0.0 instead:
strict score and label accuracy of an empty input, and F1 when precision and
recall are both 0. (On an empty input the official precision is 1.0 and
recall 0.0, kept here.)

Beside the five official figures (never changed by it) each gets a 95% percentile
bootstrap interval (``*_ci``), which the official scorer does not give: the claims'
per-claim rows are resampled with replacement 1,000 times (seed 0, as every interval
of the library, :mod:`conflicteval.stats`), the four averages are recomputed on each
resample and F1 from the resampled precision and recall. An empty input has no
interval (None).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from conflicteval.errors import ConflictEvalError
from conflicteval.stats import bootstrap_sums, percentile_ci

from .ids import CELL_TYPES, ElementIdError, as_element

Triple = tuple[str, str, str]

MAX_SENTENCES = 5
MAX_CELLS = 25


class ClaimScore(BaseModel):
    """The score of one claim.

    Attributes:
        index: Position of the instance in the input.
        id: The instance's ``id`` when it has one.
        label_correct: Label equal to the gold label, ignoring case.
        strict: The claim's FEVEROUS score (label correct and a gold set covered).
        precision: Share of the truncated predictions found in any gold set (1.0 if none).
        recall: 1.0 when a gold set is fully covered (or there is no gold set), else 0.0.
        matched_set: Index of the first fully covered gold set, else None.
        n_predicted: Predicted elements kept after truncation (duplicates included).
        n_truncated: Predicted elements dropped by the budgets.
    """

    index: int
    id: Any = None
    label_correct: bool
    strict: bool
    precision: float
    recall: float
    matched_set: int | None = None
    n_predicted: int
    n_truncated: int


class FeverousScore(BaseModel):
    """The official five numbers, plus a per-claim breakdown.

    Attributes:
        strict: The FEVEROUS score (share of claims with correct label and a covered set).
        label_accuracy: Share of claims with the correct label.
        precision: Evidence precision, averaged over claims.
        recall: Evidence recall, averaged over claims.
        f1: ``2PR/(P+R)`` of the averaged precision and recall (0.0 when both are 0).
        n: Number of claims scored.
        per_claim: One :class:`ClaimScore` per instance, in input order.
        strict_ci, label_accuracy_ci, precision_ci, recall_ci, f1_ci: 95% percentile
            bootstrap intervals ``[low, high]`` over the claims, an addition of this
            library beside the official figures (None for an empty input).
    """

    strict: float
    label_accuracy: float
    precision: float
    recall: float
    f1: float
    n: int
    per_claim: list[ClaimScore] = Field(default_factory=list, repr=False)
    strict_ci: list[float] | None = None
    label_accuracy_ci: list[float] | None = None
    precision_ci: list[float] | None = None
    recall_ci: list[float] | None = None
    f1_ci: list[float] | None = None

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        """``(strict, label_accuracy, precision, recall, f1)``, the official return order."""
        return (self.strict, self.label_accuracy, self.precision, self.recall, self.f1)

    def summary(self) -> dict[str, Any]:
        """The five numbers, ``n`` and the intervals as a plain dict (no per-claim rows)."""
        return self.model_dump(exclude={"per_claim"})


class ScoreInputError(ConflictEvalError, ValueError):
    """An instance handed to :func:`score` is malformed; names the instance and field."""

    def __init__(self, index: int, field: str, message: str) -> None:
        super().__init__(f"instance {index}, field {field!r}: {message}")
        self.index = index
        self.field = field


def truncate_predictions(
    predicted: Sequence[Triple],
    max_sentences: int | None = MAX_SENTENCES,
    max_cells: int | None = MAX_CELLS,
) -> list[Triple]:
    """Keep predicted elements in order until each type budget is spent.

    Args:
        predicted: ``(page, type, position)`` triples in prediction order.
        max_sentences: Budget of the non-table types; None for no limit.
        max_cells: Budget of cells, header cells, captions and list items; None for no limit.

    Returns:
        A new list; the input is not changed.
    """
    kept: list[Triple] = []
    n_cells = n_other = 0
    for triple in predicted:
        if triple[1] in CELL_TYPES:
            if max_cells is not None and n_cells >= max_cells:
                continue
            n_cells += 1
        else:
            if max_sentences is not None and n_other >= max_sentences:
                continue
            n_other += 1
        kept.append(triple)
    return kept


def score(
    instances: Iterable[Mapping[str, Any]],
    max_sentences: int | None = MAX_SENTENCES,
    max_cells: int | None = MAX_CELLS,
) -> FeverousScore:
    """Compute the FEVEROUS score exactly as the official scorer does.

    Args:
        instances: Mappings with ``label`` (gold), ``evidence`` (gold: a list
            of evidence sets, each a list of element-id strings or
            ``[page, type, position]`` triples, or a release-style
            ``{"content": [...], "context": ...}`` object), ``predicted_label``
            and ``predicted_evidence`` (a list of id strings or triples). An
            optional ``id`` is copied to the per-claim rows. Never mutated.
        max_sentences: Budget of non-table elements (5; None for no limit).
        max_cells: Budget of cells, header cells, captions and items (25; None for no limit).

    Returns:
        A :class:`FeverousScore`; see the module docstring for every rule.

    Raises:
        ScoreInputError: A required field is missing or malformed (names the
            instance index and the field).
    """
    rows: list[ClaimScore] = []
    for index, instance in enumerate(instances):
        rows.append(score_claim(instance, index, max_sentences, max_cells))
    n = len(rows)
    strict = sum(r.strict for r in rows) / n if n else 0.0
    accuracy = sum(r.label_correct for r in rows) / n if n else 0.0
    precision = sum(r.precision for r in rows) / n if n else 1.0
    recall = sum(r.recall for r in rows) / n if n else 0.0
    f1 = 2.0 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return FeverousScore(
        strict=strict,
        label_accuracy=accuracy,
        precision=precision,
        recall=recall,
        f1=f1,
        n=n,
        per_claim=rows,
        **score_intervals(rows),
    )


def score_intervals(rows: Sequence[ClaimScore]) -> dict[str, list[float] | None]:
    """Bootstrap intervals of the five figures over per-claim rows (claims resampled).

    The official figures are not computed here and so cannot change; an empty input
    gives None for every interval.
    """
    names = ("strict", "label_accuracy", "precision", "recall", "f1")
    if not rows:
        return {f"{name}_ci": None for name in names}
    table = [[float(r.strict), float(r.label_correct), r.precision, r.recall] for r in rows]
    means = bootstrap_sums(table) / len(rows)
    p, r = means[:, 2], means[:, 3]
    f1 = np.divide(2.0 * p * r, p + r, out=np.zeros_like(p), where=p + r > 0)
    columns = [means[:, 0], means[:, 1], p, r, f1]
    return {f"{name}_ci": percentile_ci(c) for name, c in zip(names, columns, strict=True)}


def score_claim(
    instance: Mapping[str, Any],
    index: int = 0,
    max_sentences: int | None = MAX_SENTENCES,
    max_cells: int | None = MAX_CELLS,
) -> ClaimScore:
    """Score one instance (see :func:`score`)."""
    if not isinstance(instance, Mapping):
        raise ScoreInputError(
            index, "<instance>", f"expected a mapping, got {type(instance).__name__}"
        )
    label = _label(instance, index, "label")
    predicted_label = _label(instance, index, "predicted_label")
    gold_sets = gold_evidence_sets(instance.get("evidence", _MISSING), index)
    predicted = _elements(instance.get("predicted_evidence", _MISSING), index, "predicted_evidence")

    kept = truncate_predictions(predicted, max_sentences, max_cells)
    kept_set = set(kept)
    label_correct = label.upper() == predicted_label.upper()

    matched: int | None = None
    for set_index, gold in enumerate(gold_sets):
        if all(element in kept_set for element in gold):
            matched = set_index
            break

    all_gold = {element for gold in gold_sets for element in gold}
    precision = sum(1 for e in kept if e in all_gold) / len(kept) if kept else 1.0
    recall = 1.0 if not gold_sets or matched is not None else 0.0
    return ClaimScore(
        index=index,
        id=instance.get("id"),
        label_correct=label_correct,
        strict=label_correct and matched is not None,
        precision=precision,
        recall=recall,
        matched_set=matched,
        n_predicted=len(kept),
        n_truncated=len(predicted) - len(kept),
    )


_MISSING: Any = object()


def _label(instance: Mapping[str, Any], index: int, field: str) -> str:
    value = instance.get(field, _MISSING)
    if value is _MISSING:
        raise ScoreInputError(index, field, "missing")
    if not isinstance(value, str):
        raise ScoreInputError(index, field, f"expected a string, got {value!r}")
    return value


def gold_evidence_sets(evidence: Any, index: int = 0) -> list[list[Triple]]:
    """Normalise gold evidence to a list of sets of ``(page, type, position)`` triples.

    Accepts a list whose items are lists of id strings / triples, release-style
    ``{"content": [...]}`` objects, or objects with a ``content`` attribute
    (:class:`~conflicteval.feverous.claims.EvidenceSet`).

    Raises:
        ScoreInputError: The evidence is missing or malformed.
    """
    if evidence is _MISSING:
        raise ScoreInputError(index, "evidence", "missing")
    if isinstance(evidence, (str, bytes, Mapping)) or not isinstance(evidence, Sequence):
        raise ScoreInputError(index, "evidence", "expected a list of evidence sets")
    sets: list[list[Triple]] = []
    for i, raw in enumerate(evidence):
        field = f"evidence[{i}]"
        if isinstance(raw, Mapping):
            if "content" not in raw:
                raise ScoreInputError(index, f"{field}.content", "missing")
            raw = raw["content"]
            field += ".content"
        elif hasattr(raw, "content") and not isinstance(raw, (str, bytes, Sequence)):
            raw = raw.content
            field += ".content"
        sets.append(_elements(raw, index, field))
    return sets


def _elements(value: Any, index: int, field: str) -> list[Triple]:
    if value is _MISSING:
        raise ScoreInputError(index, field, "missing")
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise ScoreInputError(
            index, field, "expected a list of element ids or [page, type, position] triples"
        )
    out: list[Triple] = []
    for j, element in enumerate(value):
        try:
            parsed = as_element(element)
        except ElementIdError as exc:
            raise ScoreInputError(index, f"{field}[{j}]", str(exc)) from None
        out.append((parsed.page, parsed.type, parsed.position))
    return out
