"""Verifying FEVEROUS claims with a ConflictScore labeler.

A labeler labels each (claim, document) pair SUPPORTS, CONTRADICTS or
IRRELEVANT. Two ways to show it the evidence:

* ``mode="concat"`` (default): all evidence pieces in one document, one pair
  per claim; the pair's relation is the claim's relation.
* ``mode="per_element"``: one document per evidence piece. The claim's
  relation is CONTRADICTS if any pair is CONTRADICTS; otherwise, if any pair
  failed, the claim is *undecided* (the failed pair might have been a
  contradiction); otherwise SUPPORTS if any pair is SUPPORTS; otherwise
  IRRELEVANT.

The relation is then mapped to a FEVEROUS label, by default SUPPORTS →
SUPPORTS, CONTRADICTS → REFUTES, IRRELEVANT → NOT ENOUGH INFO (configurable).
NOT ENOUGH INFO claims in FEVEROUS always have partial, related evidence, so
"irrelevant" is only an approximation of that class.

A failed pair (``PairLabel.label is None``) is counted, never mapped to a
label: a claim whose relation it leaves open ends ``undecided`` with no
predicted label, and counts as wrong in accuracy and F1. A claim with no
evidence text is not sent to the labeler and gets the label mapped from
IRRELEVANT; one whose evidence ids are all missing from the database fails
instead (its label would come from nothing). Items run through
:func:`conflicteval.runs.run_batch`, so a checkpoint makes a run resumable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, Field

from conflicteval._sync import run_sync
from conflicteval.errors import ConflictEvalError
from conflicteval.record_errors import reading_record
from conflicteval.runs import BatchResult, Record, RunOptions, Stage
from conflicteval.types import RELATIONS, Document, PairLabel, Relation, Usage, row_labels

from .claims import Label, normalize_label
from .feverous_score import MAX_CELLS, MAX_SENTENCES, FeverousScore, score
from .items import VerifyItem
from .metrics import LabelMetrics, label_metrics

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

DEFAULT_MAPPING: dict[Relation, Label] = {
    "SUPPORTS": "SUPPORTS",
    "CONTRADICTS": "REFUTES",
    "IRRELEVANT": "NOT ENOUGH INFO",
}
"""Labeler relation → FEVEROUS label."""

Mode = Literal["concat", "per_element"]
ClaimStatus = Literal["ok", "undecided", "parse_error", "model_error", "pending"]


class LabelResultLike(Protocol):
    """What a labeler returns: ``pairs[claim][document]`` and the number of model calls."""

    @property
    def pairs(self) -> Sequence[Sequence[PairLabel]]:
        """One :class:`~conflicteval.types.PairLabel` per (claim, document), claims first."""
        ...

    @property
    def calls(self) -> int:
        """How many model calls the labelling took."""
        ...


class Labeler(Protocol):
    """Any ConflictScore labeler (``LexicalLabeler``, ``LLMLabeler``, ...)."""

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResultLike:
        """Label every (claim, document) pair SUPPORTS, CONTRADICTS or IRRELEVANT.

        A pair that could not be labelled has ``label=None`` (and its error).
        """
        ...


class VerifyRecord(BaseModel):
    """The outcome for one claim.

    Attributes:
        id: The item id.
        label: Gold label (None when unknown).
        predicted_label: The mapped label; None unless ``status`` is ``ok``.
        relation: The claim-level relation (None unless ``ok``).
        status: ``ok``; ``undecided`` (failed pairs left the relation open);
            or the runner's ``parse_error`` / ``model_error`` (the labeler raised).
        pair_labels: One relation per document (None for a failed pair).
        failed_pairs: How many pairs failed.
        errors: The failed pairs' error messages (and the runner's, if any).
        calls: Model calls the labeler reported.
    """

    id: str
    label: Label | None = None
    predicted_label: Label | None = None
    relation: Relation | None = None
    status: ClaimStatus
    pair_labels: list[Relation | None] = Field(default_factory=list)
    failed_pairs: int = 0
    errors: list[str] = Field(default_factory=list)
    calls: int = 0


class VerifyResult(BaseModel):
    """Records, verdict metrics and (with predicted evidence) the FEVEROUS score.

    Attributes:
        records: One :class:`VerifyRecord` per item, in input order.
        metrics: Label accuracy and macro-F1 over the items with a gold label.
        feverous: The FEVEROUS score over the items with gold and predicted
            evidence, or None when no item has predicted evidence.
        counts: Claims per status, plus ``failed_pairs``, ``pairs`` and ``total``; and
            ``evidence_missing``, the claims with evidence ids missing from the database,
            when there are any.
        usage: Token usage measured by the model layer.
        mode: The evidence mode used.
        mapping: The relation → label mapping used.
        batch: The runner's BatchResult (not serialised).
    """

    records: list[VerifyRecord]
    metrics: LabelMetrics
    feverous: FeverousScore | None = None
    counts: dict[str, int]
    usage: Usage = Field(default_factory=Usage)
    mode: Mode = "concat"
    mapping: dict[str, str] = Field(
        default_factory=lambda: {str(k): str(v) for k, v in DEFAULT_MAPPING.items()}
    )
    batch: BatchResult | None = Field(default=None, exclude=True, repr=False)
    """The runner's result (failure reasons, resumed items); not serialised."""

    def summary(self) -> dict[str, Any]:
        """The headline numbers as a plain dict, each figure with its ``<name>_ci``
        (95% percentile bootstrap interval over the claims; None when the figure is None)."""
        out: dict[str, Any] = {
            "n": self.metrics.n,
            "label_accuracy": self.metrics.label_accuracy,
            "label_accuracy_ci": self.metrics.label_accuracy_ci,
            "macro_f1": self.metrics.macro_f1,
            "macro_f1_ci": self.metrics.macro_f1_ci,
            **{k: v for k, v in self.counts.items()},
        }
        if self.feverous is not None:
            out["feverous_score"] = self.feverous.strict
            out["feverous_score_ci"] = self.feverous.strict_ci
            out["evidence_recall"] = self.feverous.recall
            out["evidence_recall_ci"] = self.feverous.recall_ci
        return out


def documents_for(item: VerifyItem, mode: Mode) -> list[Document]:
    """The documents a labeler sees for ``item`` in ``mode`` (none when it has no evidence)."""
    if not item.evidence:
        return []
    if mode == "concat":
        text = "\n".join(piece.render() for piece in item.evidence)
        # Every line already names its page; a title is set only when there is one page.
        titles = list(dict.fromkeys(p.title for p in item.evidence if p.title))
        title = titles[0] if len(titles) == 1 else None
        return [Document(id=f"{item.id}:evidence", text=text, title=title)]
    if mode == "per_element":
        return [Document(id=p.id, text=p.render(), title=p.title) for p in item.evidence]
    raise ValueError(f"unknown mode {mode!r} (use 'concat' or 'per_element')")


def verify_inputs(item: VerifyItem, mode: Mode) -> dict[str, Any]:
    """What one claim's record is made from: the claim and the documents its labeler sees
    (evidence as rendered, so ``--keep-links`` and ``--evidence`` choices are part of it)."""
    return {"claim": item.claim, "documents": documents_for(item, mode)}


def combine_relations(relations: Sequence[Relation | None]) -> Relation | None:
    """The claim-level relation of per-element pair relations (None: undecided).

    CONTRADICTS wins; otherwise any failed pair (None) leaves the claim
    undecided; otherwise SUPPORTS if any; otherwise IRRELEVANT.
    """
    if "CONTRADICTS" in relations:
        return "CONTRADICTS"
    if any(r is None for r in relations):
        return None
    if "SUPPORTS" in relations:
        return "SUPPORTS"
    return "IRRELEVANT"


def _check_mapping(mapping: Mapping[str, str] | None) -> dict[Relation, Label]:
    if mapping is None:
        return dict(DEFAULT_MAPPING)
    out: dict[Relation, Label] = {}
    for relation in RELATIONS:
        if relation not in mapping:
            raise ValueError(f"mapping has no entry for {relation}")
        label = normalize_label(mapping[relation])
        if label is None:
            raise ValueError(
                f"mapping[{relation!r}] = {mapping[relation]!r} is not a FEVEROUS label"
            )
        out[relation] = label
    return out


async def verify(
    items: Sequence[VerifyItem],
    labeler: Labeler,
    *,
    mode: Mode = "concat",
    mapping: Mapping[str, str] | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    max_sentences: int | None = MAX_SENTENCES,
    max_cells: int | None = MAX_CELLS,
    **run: Unpack[RunKeywords],
) -> VerifyResult:
    """Label every claim against its evidence and score the verdicts.

    Args:
        items: Claims with evidence text (:func:`items_from_claims`, :func:`load_feverous_s`).
        labeler: Any object with ``async label(claims, documents)`` returning
            ``pairs`` (claims × documents of :class:`~conflicteval.types.PairLabel`)
            and ``calls``.
        mode: ``"concat"`` or ``"per_element"`` (see the module docstring).
        mapping: Relation → FEVEROUS label (default :data:`DEFAULT_MAPPING`).
        checkpoint: JSONL file for :func:`~conflicteval.runs.run_batch`;
            finished claims are skipped on a re-run.
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency`` is
            claims in flight at once (default 16).
        max_sentences: Sentence budget of the FEVEROUS score.
        max_cells: Cell budget of the FEVEROUS score.

    Returns:
        A :class:`VerifyResult`.
    """
    from conflicteval.runs.identity import describe

    if mode not in ("concat", "per_element"):
        raise ValueError(f"unknown mode {mode!r} (use 'concat' or 'per_element')")
    relation_to_label = _check_mapping(mapping)
    items = list(items)

    async def work(item: VerifyItem) -> dict[str, Any]:
        return await _label_item(item, labeler, mode)

    stage = Stage(
        "verifying",
        checkpoint,
        identity={"task": "feverous-verify", "labeler": describe(labeler), "mode": mode},
        inputs=lambda item: verify_inputs(item, mode),
    )
    batch = await stage.run(
        work,
        items,
        RunOptions.of(run, concurrency=16),
    )
    return _collect(items, batch, relation_to_label, mode, max_sentences, max_cells, checkpoint)


def verify_sync(items: Sequence[VerifyItem], labeler: Labeler, **options: Any) -> VerifyResult:
    """Synchronous :func:`verify`; also works inside a running event loop (notebooks)."""
    return run_sync(verify(items, labeler, **options))


async def _label_item(item: VerifyItem, labeler: Labeler, mode: Mode) -> dict[str, Any]:
    documents = documents_for(item, mode)
    if not documents and item.missing:  # its label would come from nothing: a failure
        raise ConflictEvalError(
            f"none of the claim's {len(item.missing)} evidence ids is in the database "
            f"(e.g. {item.missing[0]!r}): nothing to label"
        )
    if not documents:
        return {"pair_labels": [], "errors": [], "calls": 0}
    result = await labeler.label([item.claim], documents)
    labels, errors = row_labels(result.pairs[0] if result.pairs else [], len(documents))
    return {"pair_labels": labels, "errors": errors, "calls": int(result.calls)}


def _collect(
    items: Sequence[VerifyItem],
    batch: BatchResult,
    relation_to_label: Mapping[Relation, Label],
    mode: Mode,
    max_sentences: int | None,
    max_cells: int | None,
    checkpoint: str | os.PathLike[str] | None = None,
) -> VerifyResult:
    records = []
    for item, rec in zip(items, batch.records, strict=True):
        with reading_record(checkpoint, rec.id):
            records.append(_record(item, rec, relation_to_label))
    counts = {"ok": 0, "undecided": 0, "parse_error": 0, "model_error": 0}
    for r in records:
        counts[r.status] = counts.get(r.status, 0) + 1  # "pending" under batch export
    counts["failed_pairs"] = sum(r.failed_pairs for r in records)
    counts["pairs"] = sum(len(r.pair_labels) for r in records)
    counts["total"] = len(records)
    missing = sum(1 for item in items if item.missing)
    if missing:  # labelled on part of their evidence: counted and shown, never silent
        counts["evidence_missing"] = missing

    labeled = [r for r in records if r.label is not None]
    metrics = label_metrics(
        [r.label for r in labeled if r.label is not None],
        [r.predicted_label for r in labeled],
    )
    feverous = None
    scored = [
        (item, r)
        for item, r in zip(items, records, strict=True)
        if item.predicted_evidence is not None and item.gold_evidence is not None and r.label
    ]
    if scored:
        feverous = score(
            [
                {
                    "id": item.id,
                    "label": r.label,
                    "evidence": item.gold_evidence,
                    # A failed claim predicts no label, which matches no gold label.
                    "predicted_label": r.predicted_label or "",
                    "predicted_evidence": item.predicted_evidence,
                }
                for item, r in scored
            ],
            max_sentences=max_sentences,
            max_cells=max_cells,
        )
    return VerifyResult(
        records=records,
        metrics=metrics,
        feverous=feverous,
        counts=counts,
        usage=batch.usage,
        mode=mode,
        mapping={str(k): str(v) for k, v in relation_to_label.items()},
        batch=batch,
    )


def _record(
    item: VerifyItem, rec: Record, relation_to_label: Mapping[Relation, Label]
) -> VerifyRecord:
    if rec.status != "ok":
        return VerifyRecord(
            id=item.id,
            label=item.label,
            status=rec.status,
            errors=[rec.error or rec.status],
        )
    result = rec.result or {}
    pair_labels: list[Relation | None] = list(result.get("pair_labels", []))
    relation = combine_relations(pair_labels) if pair_labels else "IRRELEVANT"
    return VerifyRecord(
        id=item.id,
        label=item.label,
        predicted_label=relation_to_label[relation] if relation is not None else None,
        relation=relation,
        status="ok" if relation is not None else "undecided",
        pair_labels=pair_labels,
        failed_pairs=sum(1 for r in pair_labels if r is None),
        errors=list(result.get("errors", [])),
        calls=int(result.get("calls", 0)),
    )
