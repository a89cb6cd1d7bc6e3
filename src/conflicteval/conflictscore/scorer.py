"""ConflictScorer: decomposition + labelling + aggregation for one or many responses.

The result types and the text table are in ``score_results``; their names stay
importable from here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from conflicteval._sync import run_sync
from conflicteval.errors import ModelError, ParseFailure, UsageError
from conflicteval.jsonio import LazyItems
from conflicteval.runs import BatchResult, RunOptions, Stage
from conflicteval.types import Document

from .aggregate import aggregate
from .decompose import Decomposer, SentenceDecomposer
from .labelers import Labeler, LabelResult
from .lexical_labeler import LexicalLabeler
from .score_results import (
    ScoreBatchResult,
    ScoreItem,
    ScoreResult,
    column_labels,
    format_result,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

__all__ = [
    "ConflictScorer",
    "ScoreBatchResult",
    "ScoreItem",
    "ScoreResult",
    "column_labels",
    "format_result",
]

NO_SOURCES = (
    "no documents: a response scored against no documents has no ConflictScore "
    "(every claim would count as unconflicted)"
)


def _lazy_score_item(index: int, value: Any) -> ScoreItem:
    """One item of a :class:`~conflicteval.jsonio.LazyItems` as a ScoreItem, checked.

    The runner's first pass over the file converts every item, so an item with no
    documents is refused before any call, as for items given as a list.
    """
    item = ScoreItem.coerce(value, index)
    if not item.documents:
        raise UsageError(f"item {item.id!r}: {NO_SOURCES}")
    return item


def response_inputs(item: ScoreItem) -> dict[str, Any]:
    """What one item's score is made from: the response and its documents (ids, titles, text)."""
    return {"response": item.response, "documents": item.documents}


class ConflictScorer:
    """ConflictScore of responses against their documents.

    Args:
        decomposer: Stage 1 (default: :class:`SentenceDecomposer`, offline).
        labeler: Stage 2 (default: :class:`LexicalLabeler`, offline).

    Example:
        >>> scorer = ConflictScorer(LLMDecomposer(model), LLMLabeler(model))
        >>> result = scorer.score(report, ["doc one ...", {"id": "d2", "text": "..."}])
        >>> result.cs_c, result.cs_r
    """

    def __init__(
        self, decomposer: Decomposer | None = None, labeler: Labeler | None = None
    ) -> None:
        self.decomposer: Decomposer = decomposer or SentenceDecomposer()
        self.labeler: Labeler = labeler or LexicalLabeler()

    def __repr__(self) -> str:
        return f"ConflictScorer({self.decomposer!r}, {self.labeler!r})"

    def identity(self) -> dict[str, Any]:
        """The decomposer and labeler with their models and settings (a run's identity)."""
        from conflicteval.runs.identity import describe

        return {"decomposer": describe(self.decomposer), "labeler": describe(self.labeler)}

    async def ascore(self, response: str, documents: Sequence[Any]) -> ScoreResult:
        """Score one response against its documents (strings or Document-like objects).

        Raises:
            ModelError: The decomposition call failed for good. (A failed
                labelling call only fails its pairs.)
            UsageError: No documents: a response scored against none has no
                ConflictScore (every claim would count as unconflicted).
        """
        docs = [Document.coerce(d, i) for i, d in enumerate(documents)]
        if not docs:
            raise UsageError(NO_SOURCES)
        dec = await self.decomposer.decompose(response)
        usage = dec.usage.model_copy()
        base: dict[str, Any] = {
            "response": response,
            "document_ids": [d.id for d in docs],
            "decomposer": self.decomposer.name,
            "labeler": self.labeler.name,
        }
        if dec.error or not dec.claims:
            return ScoreResult(
                **base,
                claims=[],
                labels=[],
                cs_c=None,
                cs_r=None,
                aggregate=None,
                calls=dec.calls,
                usage=usage,
                error=dec.error or "no claims",
                raw=dec.raw,
            )
        labelled: LabelResult = await self.labeler.label(dec.claims, docs)
        shape_ok = len(labelled.pairs) == len(dec.claims) and all(
            len(row) == len(docs) for row in labelled.pairs
        )
        if not shape_ok:
            raise ValueError(
                f"labeler {self.labeler.name!r} returned a table that is not "
                f"{len(dec.claims)} claims x {len(docs)} documents"
            )
        usage.add(labelled.usage)
        agg = aggregate(labelled.pairs)
        return ScoreResult(
            **base,
            claims=dec.claims,
            labels=labelled.pairs,
            cs_c=agg.cs_c,
            cs_r=agg.cs_r,
            aggregate=agg,
            calls=dec.calls + labelled.calls,
            usage=usage,
        )

    def score(self, response: str, documents: Sequence[Any]) -> ScoreResult:
        """Synchronous :meth:`ascore`; also works inside a running event loop."""
        return run_sync(self.ascore(response, documents))

    async def _work(self, item: ScoreItem) -> dict[str, Any]:
        result = await self.ascore(item.response, item.documents)
        if result.error:
            raise ParseFailure(result.error, raw=result.raw)
        pairs = [p for row in result.labels for p in row]
        if pairs and all(p.label is None for p in pairs):
            errors = sorted({p.error or "" for p in pairs})
            message = f"every pair failed: {'; '.join(errors)[:500]}"
            if any(e.startswith("model error") for e in errors):
                raise ModelError(message)
            raise ParseFailure(message, raw=next((p.raw for p in pairs if p.raw), None))
        return result.model_dump(mode="json")

    async def ascore_many(
        self,
        items: Iterable[Any],
        *,
        checkpoint: str | os.PathLike[str] | None = None,
        desc: str = "conflictscore",
        keep_records: bool = True,
        **run: Unpack[RunKeywords],
    ) -> ScoreBatchResult:
        """Score many responses through :func:`conflicteval.runs.run_batch`.

        Args:
            items: :class:`ScoreItem` or mappings ``{"id", "response", "documents"}``.
            checkpoint: JSONL file: finished items are written as they finish;
                a re-run skips them and makes no model call for them.
            **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency``
                is responses in flight at once (default 8).
            desc: Progress bar label.
            keep_records: False (with a checkpoint): records are read back from
                the checkpoint when asked, so memory does not grow with the
                number of items (see ``keep_records`` of
                :func:`conflicteval.runs.run_batch`).

        Returns:
            The runner's BatchResult (a :class:`ScoreBatchResult`, whose
            ``to_pandas()`` gives one row per claim x document pair);
            ``record.result`` of an ``ok`` item is a :class:`ScoreResult` as a
            dict (``ScoreResult.model_validate`` reads it back). An item ends
            ``parse_error`` when its decomposition gave no claim or every pair
            had no parsable label, and ``model_error`` when a call failed for good.

        Raises:
            UsageError: An item has no documents (named; no item is run).
        """
        score_items: Iterable[ScoreItem]
        if isinstance(items, LazyItems):  # read from its file when run, checked on the way
            score_items = items.map(_lazy_score_item)
        else:
            score_items = [ScoreItem.coerce(it, i) for i, it in enumerate(items)]
            empty = [it.id for it in score_items if not it.documents]
            if empty:  # refused before any call: never a score from nothing
                raise UsageError(f"item {empty[0]!r} ({len(empty)} in all): {NO_SOURCES}")
        stage = Stage(
            desc,
            checkpoint,
            identity={"task": "conflictscore", **self.identity()},
            inputs=response_inputs,
            keep_records=keep_records,
        )
        batch = await stage.run(
            self._work,
            score_items,
            RunOptions.of(run, concurrency=8),
        )
        return ScoreBatchResult(**{name: getattr(batch, name) for name in BatchResult.model_fields})

    def score_many(self, items: Iterable[Any], **options: Any) -> ScoreBatchResult:
        """Synchronous :meth:`ascore_many` (same options)."""
        return run_sync(self.ascore_many(items, **options))
