"""Running the conflict-detection task (paper §4.1) with any labeler.

Each item's claim is labelled against each of its documents by a labeler from
:mod:`conflicteval.conflictscore` (e.g. ``LLMLabeler(model)`` with the paper's
Table 7 prompt, or the offline ``LexicalLabeler()``). Items run through
:func:`conflicteval.runs.run_batch`, so a run is checkpointed and resumable,
and a failed item is recorded, never dropped. Metrics come from
:mod:`conflicteval.conflictbench.metrics` (pure functions).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING, Any, Protocol

from conflicteval.conflictbench.items import BenchItem
from conflicteval.conflictbench.metrics import (
    DetectionMetrics,
    DetectionOutcome,
    detection_metrics,
    predict_conflict,
    table2,
)
from conflicteval.errors import ModelError, ParseFailure
from conflicteval.record_errors import reading_record
from conflicteval.runs import BatchResult, Record, RunOptions, Stage, read_checkpoint
from conflicteval.types import Document, Usage

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords


class SupportsLabel(Protocol):
    """The labeler interface of :mod:`conflicteval.conflictscore`."""

    name: str

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> Any:
        """Label every claim against every document (a ``LabelResult``)."""
        ...


async def detect_item(item: BenchItem, labeler: SupportsLabel) -> dict[str, Any]:
    """Label one item's claim against its documents; the batch result of one item.

    Raises:
        ModelError: Every pair failed and at least one of them with a model
            error (the item is recorded ``model_error``, so ``retry_failed``
            runs it again on resume).
        ParseFailure: Every pair failed without a model error (no parsable label).
    """
    result = await labeler.label([item.claim], item.to_documents())
    row = result.pairs[0] if result.pairs else []
    labels = [p.label for p in row]
    if len(labels) != len(item.documents):
        raise ValueError(
            f"labeler returned {len(labels)} labels for {len(item.documents)} documents"
        )
    errors = [p.error for p in row if p.label is None]
    if row and len(errors) == len(row):
        reasons = sorted({e or "no label" for e in errors})
        message = f"every pair failed: {'; '.join(reasons)[:500]}"
        if any(r.startswith("model error") for r in reasons):
            raise ModelError(message)
        raise ParseFailure(message, raw=next((p.raw for p in row if p.raw), None))
    return {
        "source": item.source,
        "gold_conflict": item.conflict,
        "gold": item.gold_relations,
        "labels": labels,
        "pred_conflict": predict_conflict(labels),
        "failed_pairs": len(errors),
        "pair_errors": errors,
        # per document, what the labeler said beside its label (for the report's grid):
        # [snippet, reasoning, error, raw reply cut to RAW_KEPT characters]
        "pairs": [
            [p.snippet, p.reasoning, p.error, p.raw[:RAW_KEPT] if p.raw else None] for p in row
        ],
    }


RAW_KEPT = 4000
"""Characters of a pair's raw reply kept in a detection record (the rest is cut)."""


def detect_inputs(item: BenchItem) -> dict[str, Any]:
    """What one item's record is made from: the claim, the documents the labeler sees
    (ids, titles, text) and the source and gold labels the record copies."""
    return {
        "claim": item.claim,
        "documents": item.to_documents(),
        "source": item.source,
        "gold_conflict": item.conflict,
        "gold": item.gold_relations,
    }


def outcome_from_record(record: Record, item: BenchItem | None = None) -> DetectionOutcome:
    """Turn a batch record back into a :class:`DetectionOutcome`.

    A failed record needs ``item`` for its source and gold labels (an ``ok``
    record carries them).
    """
    if record.status == "ok":
        r = record.result
        return DetectionOutcome(
            id=record.id,
            source=r["source"],
            gold_conflict=r["gold_conflict"],
            gold=r["gold"],
            labels=r["labels"],
        )
    if item is None:
        raise ValueError(f"record {record.id!r} failed; its item is needed for the gold labels")
    return DetectionOutcome(
        id=record.id,
        source=item.source,
        gold_conflict=item.conflict,
        gold=item.gold_relations,
        labels=None,
        error=f"{record.status}: {record.error}",
    )


@dataclass
class DetectionRun:
    """The outcome of a detection run.

    Attributes:
        outcomes: One per item, in input order.
        batch: The runner's result (statuses, usage, resumed count).
        labeler: The labeler's name.
    """

    outcomes: list[DetectionOutcome]
    batch: BatchResult
    labeler: str = ""
    metrics: dict[str, DetectionMetrics] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.metrics:
            self.metrics = detection_metrics(self.outcomes)

    @property
    def usage(self) -> Usage:
        """Token usage of the run (resumed items count what they used then)."""
        return self.batch.usage

    def table(self, *, paper: bool = False) -> str:
        """Table 2 layout (see :func:`~conflicteval.conflictbench.metrics.table2`)."""
        return table2(self.metrics, paper=paper)

    def pairs_line(self) -> str:
        """Counts of failed or undetermined items and of failed pairs, on one line."""
        overall = self.metrics["overall"]
        return (
            f"labeler {self.labeler}: {overall.n_items} items, {overall.failed_items} failed or "
            f"undetermined; {overall.n_pairs} pairs, {overall.failed_pairs} failed"
        )

    def summary(self) -> str:
        """Counts of failed items and pairs, and the runner's summary line."""
        return self.pairs_line() + "\n" + self.batch.summary()


async def adetect(
    items: Iterable[BenchItem],
    labeler: SupportsLabel,
    *,
    checkpoint: str | PathLike[str] | None = None,
    **run: Unpack[RunKeywords],
) -> DetectionRun:
    """Run conflict detection over items (async).

    Args:
        items: ConflictBench items (e.g. from :func:`~conflicteval.conflictbench.read_items`).
        labeler: Any labeler with ``async label(claims, documents)``.
        checkpoint: JSONL checkpoint; a re-run skips finished items.
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency`` is
            items in flight at once (default 8).
    """
    from conflicteval.runs.identity import describe

    item_list = list(items)

    async def work(item: BenchItem) -> dict[str, Any]:
        return await detect_item(item, labeler)

    stage = Stage(
        "conflict detection",
        checkpoint,
        identity={"task": "conflictbench-detect", "labeler": describe(labeler)},
        inputs=detect_inputs,
    )
    batch = await stage.run(
        work,
        item_list,
        RunOptions.of(run, concurrency=8),
    )
    outcomes = []
    for rec, it in zip(batch.records, item_list, strict=True):
        with reading_record(checkpoint, rec.id):
            outcomes.append(outcome_from_record(rec, it))
    return DetectionRun(outcomes=outcomes, batch=batch, labeler=getattr(labeler, "name", ""))


def detect(items: Iterable[BenchItem], labeler: SupportsLabel, **options: Any) -> DetectionRun:
    """Synchronous :func:`adetect`, which documents the options (also inside a running loop)."""
    from conflicteval._sync import run_sync

    return run_sync(adetect(items, labeler, **options))


def outcomes_from_checkpoint(
    path: str | PathLike[str], items: Iterable[BenchItem] | None = None
) -> list[DetectionOutcome]:
    """Read a detection checkpoint back as outcomes (for ``conflictbench report``).

    Args:
        path: The checkpoint JSONL written by :func:`detect`.
        items: The items, needed to count failed records (their gold labels);
            without them failed records are skipped with their count in the error.

    Raises:
        ValueError: when a failed record is found and ``items`` is None; or, with
            ``items``, a record was made from other contents than its item
            (claim, documents or gold labels edited since: run detect again),
            carries no fingerprint of what it was made from (an earlier
            version's: run detect with ``--adopt-checkpoint`` or ``--restart``),
            or is of no item in ``items``.
    """
    from conflicteval.fingerprint import input_fingerprint

    by_id = {it.id: it for it in items} if items is not None else {}
    out = []
    for rec in read_checkpoint(path).values():
        item = by_id.get(rec.id)
        if items is not None and item is None:
            raise ValueError(
                f"{path}: record {rec.id!r} is of no item in the items file; pass the "
                "items file the run was made from"
            )
        if item is not None and rec.inputs is None:
            raise ValueError(
                f"{path}: record {rec.id!r} carries no fingerprint of what it was made from "
                "(an earlier version's checkpoint); run 'conflictbench detect' again with "
                "--adopt-checkpoint, or with --restart"
            )
        if item is not None:
            if rec.inputs != input_fingerprint(detect_inputs(item)):
                raise ValueError(
                    f"{path}: record {rec.id!r} was made from other contents than the item "
                    "now has (claim, documents or gold labels edited since); run "
                    "'conflictbench detect' again, which labels the edited items again"
                )
        if rec.status != "ok" and item is None:
            raise ValueError(
                f"{path}: record {rec.id!r} failed ({rec.status}); pass the items file "
                "so failed items are counted"
            )
        with reading_record(path, rec.id):
            out.append(outcome_from_record(rec, item))
    return out
