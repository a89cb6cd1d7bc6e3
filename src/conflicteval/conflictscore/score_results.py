"""ConflictScore results: one response's score, a batch's flat tables, the text table.

:class:`ScoreItem` (a response and its documents), :class:`ScoreResult` (its claims,
labels and aggregate, with rows, pandas and HTML views), :class:`ScoreBatchResult`
(the runner's result of ``score_many`` as flat tables) and :func:`format_result`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from conflicteval.formatting import UNDEFINED, number
from conflicteval.runs import BatchResult
from conflicteval.types import Document, PairLabel, Usage

from .aggregate import Aggregate


def score_text(value: float | None) -> str:
    """A ConflictScore (CS-C, CS-R) as people read it: two decimals, ``undefined`` when the
    response has nothing to divide by."""
    return number(value, 2, missing=UNDEFINED)


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
            f"<ScoreResult CS-C {score_text(self.cs_c)}, CS-R {score_text(self.cs_r)}: "
            f"{len(self.claims)} claims x {len(self.document_ids)} documents, "
            f"{self.n_failed_pairs} failed pairs>\n" + format_result(self)
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
            f"<p><b>CS-C</b> {score_text(self.cs_c)} &nbsp; <b>CS-R</b> {score_text(self.cs_r)} "
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
            f"CS-C {score_text(agg.cs_c)} "
            f"({agg.n_conflicted} of {agg.n_scored} claims conflicted)   "
            f"CS-R {score_text(agg.cs_r)} (mean over {agg.n_evidenced} claims with evidence; "
            f"{agg.n_no_evidence} without, {agg.n_unlabelled} unlabelled)"
        )
        if agg.n_failed_pairs:
            lines.append(f"failed pairs: {agg.n_failed_pairs} of {agg.n_pairs} (left out)")
            for reason, n, example in result.failure_reasons():
                lines.append(f"  {n} x {reason}  (e.g. {example})")
            if agg.n_failed_pairs == agg.n_pairs:
                lines.append("nothing could be scored: every pair failed")
    return "\n".join(lines)
