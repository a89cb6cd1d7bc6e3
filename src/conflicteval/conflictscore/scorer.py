"""ConflictScorer: decomposition + labelling + aggregation for one or many responses."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from conflicteval._sync import run_sync
from conflicteval.dryrun import DryRunReport, PlannedCall, dry_run
from conflicteval.errors import ModelError, ParseFailure
from conflicteval.runner import BatchResult, run_batch
from conflicteval.types import Document, PairLabel, Usage

from .aggregate import Aggregate, aggregate
from .decompose import Decomposer, SentenceDecomposer
from .labelers import Labeler, LabelResult
from .lexical import LexicalLabeler

__all__ = ["ConflictScorer", "ScoreItem", "ScoreResult", "format_result"]


class ScoreItem(BaseModel):
    """One response and its documents, for :meth:`ConflictScorer.score_many`."""

    id: str
    response: str
    documents: list[Document]

    @classmethod
    def coerce(cls, value: Any, index: int = 0) -> ScoreItem:
        """From a ScoreItem or a mapping with ``response`` and ``documents`` (``id`` optional)."""
        if isinstance(value, ScoreItem):
            return value
        if not isinstance(value, dict):
            raise TypeError(f"cannot use {type(value).__name__} as a score item")
        docs = value.get("documents")
        if not isinstance(value.get("response"), str) or not isinstance(docs, list):
            raise ValueError("a score item needs 'response' (a string) and 'documents' (a list)")
        return cls(
            id=str(value.get("id", index)),
            response=value["response"],
            documents=[Document.coerce(d, i) for i, d in enumerate(docs)],
        )


class ScoreResult(BaseModel):
    """The ConflictScore of one response.

    Attributes:
        response: The scored response.
        document_ids: Ids of the documents, in column order.
        claims: The claims (rows of ``labels``).
        labels: Claims x documents table with label, snippet and reasoning.
        cs_c: ConflictScore-Count (None when undefined: no scored claim).
        cs_r: ConflictScore-Ratio (None when no claim has evidence).
        aggregate: All counts and per-claim D+/D- (None when decomposition failed).
        calls: Model calls made (decomposition + labelling).
        usage: Their token usage.
        decomposer: Name of the decomposer used.
        labeler: Name of the labeler used.
        error: Why the response could not be scored (decomposition failure).
        raw: The decomposition reply when it failed.
    """

    response: str
    document_ids: list[str]
    claims: list[str]
    labels: list[list[PairLabel]]
    cs_c: float | None
    cs_r: float | None
    aggregate: Aggregate | None
    calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    decomposer: str = ""
    labeler: str = ""
    error: str | None = None
    raw: str | None = None

    @property
    def n_failed_pairs(self) -> int:
        """Pairs without a label."""
        return sum(p.label is None for row in self.labels for p in row)


_MARK = {"SUPPORTS": "S", "CONTRADICTS": "C", "IRRELEVANT": ".", None: "?"}


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def format_result(result: ScoreResult, width: int = 72) -> str:
    """A per-claim text table: one column per document (S/C/./? for failed), then CS-C/CS-R."""
    lines: list[str] = []
    if result.error:
        return f"not scored: {result.error}"
    agg = result.aggregate
    n_docs = len(result.document_ids)
    head = " ".join(f"d{j}" for j in range(n_docs))
    lines.append(f"{'#':>3}  {head}  conf  ratio  claim")
    for i, claim in enumerate(result.claims):
        marks = " ".join(f"{_MARK[p.label]:>2}" for p in result.labels[i])
        conflicted = "yes" if agg and agg.conflicted[i] else "-"
        ratio = agg.ratios[i] if agg else None
        ratio_s = " n/a" if ratio is None else f"{ratio:.2f}"
        text = claim if len(claim) <= width else claim[: width - 3] + "..."
        lines.append(f"{i + 1:>3}  {marks}  {conflicted:>4}  {ratio_s:>5}  {text}")
    lines.append("(S supports, C contradicts, . irrelevant, ? failed)")
    if agg is not None:
        lines.append(
            f"CS-C {_fmt(agg.cs_c)} ({agg.n_conflicted} of {agg.n_scored} claims conflicted)   "
            f"CS-R {_fmt(agg.cs_r)} (mean over {agg.n_evidenced} claims with evidence; "
            f"{agg.n_no_evidence} without, {agg.n_unlabelled} unlabelled)"
        )
        if agg.n_failed_pairs:
            lines.append(f"failed pairs: {agg.n_failed_pairs} of {agg.n_pairs} (left out)")
    return "\n".join(lines)


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

    async def ascore(self, response: str, documents: Sequence[Any]) -> ScoreResult:
        """Score one response against its documents (strings or Document-like objects).

        Raises:
            ModelError: The decomposition call failed for good. (A failed
                labelling call only fails its pairs.)
        """
        docs = [Document.coerce(d, i) for i, d in enumerate(documents)]
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
        concurrency: int = 8,
        progress: bool | None = None,
        desc: str = "conflictscore",
        retry_failed: bool = False,
        executor: Any = None,
    ) -> BatchResult:
        """Score many responses through :func:`conflicteval.runner.run_batch`.

        Args:
            items: :class:`ScoreItem` or mappings ``{"id", "response", "documents"}``.
            checkpoint: JSONL file: finished items are written as they finish;
                a re-run skips them and makes no model call for them.
            concurrency: Responses in flight at once.
            progress: Progress bar (None: when stderr is a terminal).
            desc: Progress bar label.
            retry_failed: On resume, run ``model_error`` items again.
            executor: Where items run: None/``"local"`` (this process), ``"ray"``
                or an executor object (see :func:`conflicteval.runner.run_batch`).

        Returns:
            The runner's BatchResult; ``record.result`` of an ``ok`` item is a
            :class:`ScoreResult` as a dict (``ScoreResult.model_validate`` reads
            it back). An item ends ``parse_error`` when its decomposition gave
            no claim or every pair had no parsable label, and ``model_error``
            when a call failed for good.
        """
        score_items = [ScoreItem.coerce(it, i) for i, it in enumerate(items)]
        return await run_batch(
            self._work,
            score_items,
            key=lambda it: it.id,
            checkpoint=checkpoint,
            concurrency=concurrency,
            progress=progress,
            desc=desc,
            retry_failed=retry_failed,
            executor=executor,
        )

    def score_many(self, items: Iterable[Any], **options: Any) -> BatchResult:
        """Synchronous :meth:`ascore_many` (same options)."""
        return run_sync(self.ascore_many(items, **options))

    def planned_calls(self, items: Iterable[Any]) -> tuple[list[PlannedCall], list[str]]:
        """The model calls a batch would make, and notes on what could not be counted.

        With an offline decomposer the claims are known, so labelling calls are
        listed exactly. With an LLM decomposer only its calls are listed; the
        labelling calls depend on its replies and are estimated in a note
        (one claim per sentence).
        """
        from .decompose import LLMDecomposer
        from .sentences import split_sentences

        calls: list[PlannedCall] = []
        notes: list[str] = []
        estimated = 0
        planner = getattr(self.labeler, "planned_calls", None)
        for i, raw in enumerate(items):
            item = ScoreItem.coerce(raw, i)
            if isinstance(self.decomposer, LLMDecomposer):
                calls.extend(self.decomposer.planned_calls(item.response))
                if planner is not None:
                    guess = split_sentences(item.response)
                    estimated += len(planner(guess, item.documents))
                continue
            claims = run_sync(self.decomposer.decompose(item.response)).claims
            if planner is not None:
                calls.extend(planner(claims, item.documents))
        if isinstance(self.decomposer, LLMDecomposer):
            notes.append(
                "labelling calls depend on the decomposition replies and are not counted above; "
                f"with one claim per sentence they would be about {estimated}"
            )
        return calls, notes

    def dry_run(self, items: Iterable[Any]) -> DryRunReport | None:
        """Count calls, cache hits and prompt tokens without calling a model.

        Returns None when neither stage uses a model (nothing to call).
        """
        model = getattr(self.decomposer, "model", None) or getattr(self.labeler, "model", None)
        from conflicteval.models import Model

        if not isinstance(model, Model):
            return None
        calls, notes = self.planned_calls(items)
        return dry_run(model, calls, notes)
