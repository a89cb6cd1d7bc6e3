"""ConflictScorer: decomposition + labelling + aggregation for one or many responses."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from conflicteval._sync import run_sync
from conflicteval.dryrun import DryRunReport, PlannedCall, dry_run
from conflicteval.errors import ModelError, ParseFailure, UsageError
from conflicteval.runner import BatchResult, run_batch
from conflicteval.types import Document, PairLabel, Usage

from .aggregate import Aggregate, aggregate
from .decompose import Decomposer, SentenceDecomposer
from .labelers import Labeler, LabelResult
from .lexical import LexicalLabeler

__all__ = ["ConflictScorer", "ScoreBatchResult", "ScoreItem", "ScoreResult", "format_result"]

NO_SOURCES = (
    "no documents: a response scored against no documents has no ConflictScore "
    "(every claim would count as unconflicted)"
)


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

    def failure_reasons(self, limit: int = 5) -> list[tuple[str, int, str]]:
        """The most common reasons of failed pairs: ``[(reason, count, example pair), ...]``.

        The example names the pair as ``claim <n> x <document id>``.
        """
        groups: dict[str, list[PairLabel]] = {}
        for row in self.labels:
            for p in row:
                if p.label is None:
                    key = " ".join((p.error or "no label").split())[:160]
                    groups.setdefault(key, []).append(p)
        ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))[:limit]
        return [(reason, len(ps), self._pair_name(ps[0])) for reason, ps in ranked]

    def _pair_name(self, pair: PairLabel) -> str:
        doc = (
            self.document_ids[pair.doc_index]
            if 0 <= pair.doc_index < len(self.document_ids)
            else str(pair.doc_index)
        )
        return f"claim {pair.claim_index + 1} x {doc}"

    def rows(self, item_id: str | None = None) -> list[dict[str, Any]]:
        """One flat row per claim x document pair (what :meth:`to_pandas` holds).

        Columns: ``item_id`` (when given), ``claim_index`` (from 1), ``claim``,
        ``document_id``, ``label`` (None: failed), ``snippet``, ``reasoning``,
        ``error``, ``conflicted`` (the claim's), ``ratio`` (the claim's
        |D-|/(|D+|+|D-|), None without evidence), ``cs_c`` and ``cs_r`` (the
        response's). A response that could not be scored gives one row with
        its error and no claim.
        """
        base: dict[str, Any] = {} if item_id is None else {"item_id": item_id}
        if self.error or not self.claims:
            return [
                {
                    **base,
                    "claim_index": None,
                    "claim": None,
                    "document_id": None,
                    "label": None,
                    "snippet": None,
                    "reasoning": None,
                    "error": self.error or "no claims",
                    "conflicted": None,
                    "ratio": None,
                    "cs_c": self.cs_c,
                    "cs_r": self.cs_r,
                }
            ]
        agg = self.aggregate
        out = []
        for i, claim in enumerate(self.claims):
            for j, p in enumerate(self.labels[i]):
                out.append(
                    {
                        **base,
                        "claim_index": i + 1,
                        "claim": claim,
                        "document_id": self.document_ids[j] if j < len(self.document_ids) else j,
                        "label": p.label,
                        "snippet": p.snippet,
                        "reasoning": p.reasoning,
                        "error": p.error,
                        "conflicted": agg.conflicted[i] if agg else None,
                        "ratio": agg.ratios[i] if agg else None,
                        "cs_c": self.cs_c,
                        "cs_r": self.cs_r,
                    }
                )
        return out

    def to_pandas(self) -> Any:
        """One row per claim x document pair, with ids, labels and reasons (needs pandas).

        ``df.pivot(index="claim", columns="document_id", values="label")`` gives
        the claim x document grid.
        """
        from conflicteval.errors import require

        pd: Any = require("pandas", "pandas")
        return pd.DataFrame(self.rows(), columns=_ROW_COLUMNS)

    def __repr__(self) -> str:
        if self.error:
            return f"<ScoreResult not scored: {self.error}>"
        return (
            f"<ScoreResult CS-C {_fmt(self.cs_c)}, CS-R {_fmt(self.cs_r)}: {len(self.claims)} "
            f"claims x {len(self.document_ids)} documents, {self.n_failed_pairs} failed pairs>\n"
            + format_result(self)
        )

    def __str__(self) -> str:
        return format_result(self)

    def _repr_html_(self) -> str:
        """The claim x document grid as an HTML table, with CS-C and CS-R (notebooks)."""
        from html import escape

        if self.error:
            return f"<p><b>not scored:</b> {escape(self.error)}</p>"
        agg = self.aggregate
        head = "".join(f"<th>{escape(str(d))}</th>" for d in self.document_ids)
        rows = []
        for i, claim in enumerate(self.claims):
            cells = []
            for p in self.labels[i]:
                label = p.label or "failed"
                tip = escape(p.error or p.reasoning or "", quote=True)
                cells.append(f'<td title="{tip}">{escape(label)}</td>')
            conflicted = "yes" if agg and agg.conflicted[i] else ""
            rows.append(
                f"<tr><td>{i + 1}</td><td style='text-align:left'>{escape(claim)}</td>"
                + "".join(cells)
                + f"<td>{conflicted}</td></tr>"
            )
        failed = f", {self.n_failed_pairs} failed pairs" if self.n_failed_pairs else ""
        return (
            f"<p><b>CS-C</b> {_fmt(self.cs_c)} &nbsp; <b>CS-R</b> {_fmt(self.cs_r)} "
            f"({len(self.claims)} claims x {len(self.document_ids)} documents{failed})</p>"
            f"<table><thead><tr><th>#</th><th>claim</th>{head}<th>conflicted</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>"
        )


_MARK = {"SUPPORTS": "S", "CONTRADICTS": "C", "IRRELEVANT": ".", None: "?"}

_ROW_COLUMNS = [
    "item_id",
    "claim_index",
    "claim",
    "document_id",
    "label",
    "snippet",
    "reasoning",
    "error",
    "conflicted",
    "ratio",
    "cs_c",
    "cs_r",
]


class ScoreBatchResult(BatchResult):
    """The runner's BatchResult of :meth:`ConflictScorer.score_many`, with flat tables."""

    def scores(self) -> list[ScoreResult | None]:
        """Each record's ScoreResult (None for a failed item), in input order."""
        return [
            ScoreResult.model_validate(r.result) if r.status == "ok" and r.result else None
            for r in self.records
        ]

    def to_pandas(self, level: str = "pair") -> Any:
        """A flat DataFrame (needs pandas).

        Args:
            level: ``"pair"`` (default): one row per item x claim x document
                (columns as :meth:`ScoreResult.rows`, plus ``status``);
                ``"item"``: one row per item with status, CS-C, CS-R, counts
                and error.
        """
        from conflicteval.errors import require

        pd: Any = require("pandas", "pandas")
        if level == "item":
            items = []
            for rec, res in zip(self.records, self.scores(), strict=True):
                agg = res.aggregate if res is not None else None
                items.append(
                    {
                        "item_id": rec.id,
                        "status": rec.status,
                        "cs_c": res.cs_c if res else None,
                        "cs_r": res.cs_r if res else None,
                        "n_claims": agg.n_claims if agg else None,
                        "n_conflicted": agg.n_conflicted if agg else None,
                        "n_failed_pairs": agg.n_failed_pairs if agg else None,
                        "error": rec.error,
                    }
                )
            return pd.DataFrame(items)
        if level != "pair":
            raise ValueError(f"level must be 'pair' or 'item', not {level!r}")
        rows: list[dict[str, Any]] = []
        for rec, res in zip(self.records, self.scores(), strict=True):
            if res is None:
                row = dict.fromkeys(_ROW_COLUMNS)
                row.update(item_id=rec.id, error=rec.error)
                rows.append({"status": rec.status, **row})
            else:
                rows.extend({"status": rec.status, **r} for r in res.rows(rec.id))
        return pd.DataFrame(rows, columns=["status", *_ROW_COLUMNS])


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def column_labels(document_ids: Sequence[str], max_width: int = 8) -> tuple[list[str], str | None]:
    """Column headers for the documents: the user's ids, or numbered labels and a legend.

    Ids up to ``max_width`` characters are shown as they are. Longer ids would
    make the table unreadable, so every column is then headed ``[1]``, ``[2]``,
    ... (positions counted from 1, which no one mistakes for an id) and the
    legend line maps them to the ids.
    """
    ids = [str(i) for i in document_ids]
    if all(0 < len(i) <= max_width and " " not in i for i in ids):
        return ids, None
    labels = [f"[{j + 1}]" for j in range(len(ids))]
    legend = "documents: " + ", ".join(f"{lab} {i}" for lab, i in zip(labels, ids, strict=True))
    return labels, legend


def _score_inputs(item: ScoreItem) -> dict[str, Any]:
    """What one item's score is made from: the response and its documents (ids, titles, text)."""
    return {"response": item.response, "documents": item.documents}


def format_result(result: ScoreResult, width: int = 72) -> str:
    """A per-claim text table: one column per document (headed by its id), then CS-C/CS-R.

    Cells: S supports, C contradicts, . irrelevant, ? failed. Failed pairs are
    listed below the table with their most common reasons.
    """
    lines: list[str] = []
    if result.error:
        return f"not scored: {result.error}"
    agg = result.aggregate
    labels, legend = column_labels(result.document_ids)
    widths = [max(2, len(lab)) for lab in labels]
    head = " ".join(f"{lab:>{w}}" for lab, w in zip(labels, widths, strict=True))
    lines.append(f"{'#':>3}  {head}  conf  ratio  claim")
    for i, claim in enumerate(result.claims):
        marks = " ".join(
            f"{_MARK[p.label]:>{w}}" for p, w in zip(result.labels[i], widths, strict=True)
        )
        conflicted = "yes" if agg and agg.conflicted[i] else "-"
        ratio = agg.ratios[i] if agg else None
        ratio_s = " n/a" if ratio is None else f"{ratio:.2f}"
        text = claim if len(claim) <= width else claim[: width - 3] + "..."
        lines.append(f"{i + 1:>3}  {marks}  {conflicted:>4}  {ratio_s:>5}  {text}")
    lines.append("(S supports, C contradicts, . irrelevant, ? failed)")
    if legend:
        lines.append(legend)
    if agg is not None:
        lines.append(
            f"CS-C {_fmt(agg.cs_c)} ({agg.n_conflicted} of {agg.n_scored} claims conflicted)   "
            f"CS-R {_fmt(agg.cs_r)} (mean over {agg.n_evidenced} claims with evidence; "
            f"{agg.n_no_evidence} without, {agg.n_unlabelled} unlabelled)"
        )
        if agg.n_failed_pairs:
            lines.append(f"failed pairs: {agg.n_failed_pairs} of {agg.n_pairs} (left out)")
            for reason, n, example in result.failure_reasons():
                lines.append(f"  {n} x {reason}  (e.g. {example})")
            if agg.n_failed_pairs == agg.n_pairs:
                lines.append("nothing could be scored: every pair failed")
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

    def identity(self) -> dict[str, Any]:
        """The decomposer and labeler with their models and settings (a run's identity)."""
        from conflicteval.identity import describe

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
        concurrency: int = 8,
        progress: bool | None = None,
        desc: str = "conflictscore",
        retry_failed: bool = False,
        restart: bool = False,
        executor: Any = None,
        keep_records: bool = True,
    ) -> ScoreBatchResult:
        """Score many responses through :func:`conflicteval.runner.run_batch`.

        Args:
            items: :class:`ScoreItem` or mappings ``{"id", "response", "documents"}``.
            checkpoint: JSONL file: finished items are written as they finish;
                a re-run skips them and makes no model call for them.
            concurrency: Responses in flight at once.
            progress: Progress bar (None: when stderr is a terminal).
            desc: Progress bar label.
            retry_failed: On resume, run ``model_error`` items again.
            restart: Start over (move an existing checkpoint aside). A
                checkpoint made by another decomposer, labeler, model or
                settings is refused otherwise
                (:class:`~conflicteval.errors.CheckpointMismatch`).
            executor: Where items run: None/``"local"`` (this process), ``"ray"``
                or an executor object (see :func:`conflicteval.runner.run_batch`).
            keep_records: False (with a checkpoint): records are read back from
                the checkpoint when asked, so memory does not grow with the
                number of items (see ``keep_records`` of
                :func:`conflicteval.runner.run_batch`).

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
        score_items = [ScoreItem.coerce(it, i) for i, it in enumerate(items)]
        empty = [it.id for it in score_items if not it.documents]
        if empty:  # refused before any call: never a score from nothing
            raise UsageError(f"item {empty[0]!r} ({len(empty)} in all): {NO_SOURCES}")
        batch = await run_batch(
            self._work,
            score_items,
            key=lambda it: it.id,
            checkpoint=checkpoint,
            concurrency=concurrency,
            progress=progress,
            desc=desc,
            retry_failed=retry_failed,
            identity={"task": "conflictscore", **self.identity()},
            restart=restart,
            executor=executor,
            inputs=_score_inputs,
            keep_records=keep_records,
        )
        return ScoreBatchResult(**{name: getattr(batch, name) for name in BatchResult.model_fields})

    def score_many(self, items: Iterable[Any], **options: Any) -> ScoreBatchResult:
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
