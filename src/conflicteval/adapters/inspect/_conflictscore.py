"""ConflictScore as an Inspect scorer, and the ConflictBench report task."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState, generate
from inspect_ai.util import collect

from conflicteval.conflictbench.items import BenchItem, read_items
from conflicteval.conflictbench.main_entity import main_entity_heuristic
from conflicteval.conflictbench.metrics import metrics_from_predictions, predict_response_conflict
from conflicteval.conflictbench.report_benchmark import (
    REPORT_PROMPTS,
    REPORT_SETTINGS,
    report_prompt,
)
from conflicteval.conflictscore.aggregate import aggregate
from conflicteval.conflictscore.decompose import (
    DECOMPOSE_SETTINGS,
    claims_from_reply,
    decompose_prompt,
)
from conflicteval.conflictscore.factory import (
    DECOMPOSER_KINDS,
    LABELER_KINDS,
    make_decomposer,
    make_labeler,
)
from conflicteval.conflictscore.labelers import (
    LABEL_SETTINGS,
    batch_budget,
    pair_label_from_reply,
    pair_prompt,
    per_claim_labels_from_reply,
    per_claim_prompt,
    per_document_labels_from_reply,
    per_document_prompt,
)
from conflicteval.conflictscore.scorer import ScoreResult, format_result
from conflicteval.errors import ConflictEvalError
from conflicteval.types import Document, PairLabel

from ._common import SampleError, generate_config, sample_name, unscored_metadata, user_message

_LLM_LABELERS = ("llm", "llm-per-document", "llm-per-claim")
_OFFLINE_LABELERS = ("lexical",)


def sample_documents(state: TaskState, key: str = "documents") -> list[Document]:
    """The documents of a sample: ``state.metadata[key]``, strings or ``{"id", "text", ...}``.

    Raises:
        SampleError: No such metadata, not a non-empty list, or a document
            without text (the message names the sample and the document).
    """
    meta = state.metadata or {}
    name = sample_name(state.sample_id)
    if key not in meta:
        raise SampleError(
            f"{name}: conflict_score needs the documents in the sample metadata "
            f"({key!r}); found keys {sorted(meta)[:12]}"
        )
    raw = meta[key]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise SampleError(f"{name}: metadata {key!r} must be a non-empty list of documents")
    docs: list[Document] = []
    for i, value in enumerate(raw):
        try:
            doc = Document.coerce(value, i)
        except (TypeError, ValueError) as exc:
            raise SampleError(f"{name}: document {i} of {key!r} is not a document: {exc}") from exc
        if not isinstance(doc.text, str) or not doc.text.strip():
            raise SampleError(f"{name}: document {i} (id {doc.id!r}) of {key!r} has no text")
        docs.append(doc)
    return docs


def _check_kinds(decomposer: str, labeler: str) -> None:
    if decomposer not in DECOMPOSER_KINDS:
        raise ConflictEvalError(
            f"unknown decomposer {decomposer!r} (known: {', '.join(DECOMPOSER_KINDS)})"
        )
    if labeler not in (*_LLM_LABELERS, *_OFFLINE_LABELERS):
        known = [k for k in LABELER_KINDS if k != "nli"]
        raise ConflictEvalError(
            f"unknown labeler {labeler!r} for conflict_score (known: {', '.join(known)}; "
            "the nli labeler runs through the library's own scorer)"
        )


async def _decompose(
    grader: Model | None, kind: str, response: str, max_claims: int | None
) -> tuple[list[str], str | None, str | None]:
    """``(claims, error, raw reply)``."""
    if kind != "llm":
        dec = await make_decomposer(kind).decompose(response)
        claims = dec.claims if max_claims is None else dec.claims[:max_claims]
        return claims, dec.error, None
    assert grader is not None
    out = await grader.generate(
        user_message(decompose_prompt(response)), config=generate_config(DECOMPOSE_SETTINGS)
    )
    claims, error = claims_from_reply(
        out.completion, truncated=out.stop_reason == "max_tokens", max_claims=max_claims
    )
    return claims, error, out.completion


async def _label(
    grader: Model | None, kind: str, claims: list[str], docs: list[Document]
) -> list[list[PairLabel]]:
    if kind in _OFFLINE_LABELERS:
        return (await make_labeler(kind).label(claims, docs)).pairs
    assert grader is not None
    if kind == "llm":
        config = generate_config(LABEL_SETTINGS)

        async def pair(i: int, j: int) -> PairLabel:
            out = await grader.generate(
                user_message(pair_prompt(claims[i], docs[j])), config=config
            )
            return pair_label_from_reply(
                i,
                j,
                out.completion,
                truncated=out.stop_reason == "max_tokens",
                document=docs[j].text,
            )

        flat = await collect(*(pair(i, j) for i in range(len(claims)) for j in range(len(docs))))
        width = len(docs)
        return [list(flat[i * width : (i + 1) * width]) for i in range(len(claims))]
    if kind == "llm-per-document":
        config = generate_config({**LABEL_SETTINGS, "max_tokens": batch_budget(len(claims))})

        async def column(j: int) -> list[PairLabel]:
            out = await grader.generate(
                user_message(per_document_prompt(claims, docs[j])), config=config
            )
            return per_document_labels_from_reply(
                j,
                len(claims),
                out.completion,
                truncated=out.stop_reason == "max_tokens",
                document=docs[j].text,
            )

        columns = await collect(*(column(j) for j in range(len(docs))))
        return [[columns[j][i] for j in range(len(docs))] for i in range(len(claims))]
    config = generate_config({**LABEL_SETTINGS, "max_tokens": batch_budget(len(docs))})

    async def row(i: int) -> list[PairLabel]:
        out = await grader.generate(user_message(per_claim_prompt(claims[i], docs)), config=config)
        return per_claim_labels_from_reply(
            i,
            len(docs),
            out.completion,
            truncated=out.stop_reason == "max_tokens",
            documents=[d.text for d in docs],
        )

    return list(await collect(*(row(i) for i in range(len(claims)))))


def _failed_pairs(pairs: list[list[PairLabel]]) -> list[dict[str, Any]]:
    return [
        {"claim": p.claim_index, "document": p.doc_index, "error": p.error, "raw": p.raw}
        for row in pairs
        for p in row
        if p.label is None
    ]


def _score_from_pairs(
    response: str,
    docs: list[Document],
    claims: list[str],
    pairs: list[list[PairLabel]],
    base: dict[str, Any],
) -> Score:
    """The Inspect score of a labelled claim x document table (unscored when every pair failed)."""
    agg = aggregate(pairs)
    result = ScoreResult(
        response=response,
        document_ids=[d.id for d in docs],
        claims=claims,
        labels=pairs,
        cs_c=agg.cs_c,
        cs_r=agg.cs_r,
        aggregate=agg,
        decomposer=base["decomposer"],
        labeler=base["labeler"],
    )
    metadata = {
        **base,
        "claims": claims,
        "labels": [[p.label for p in row] for row in pairs],
        "cs_r_all": agg.cs_r_all,
        "n_conflicted": agg.n_conflicted,
        "n_no_evidence": agg.n_no_evidence,
        "n_failed_pairs": agg.n_failed_pairs,
        "failed_pairs": _failed_pairs(pairs),
    }
    if agg.cs_c is None:
        return Score.unscored(
            answer=response,
            explanation=f"not scored: every pair failed\n{format_result(result)}",
            metadata=unscored_metadata("grader_failed", **metadata),
        )
    return Score(
        value={"cs_c": agg.cs_c, "cs_r": math.nan if agg.cs_r is None else agg.cs_r},
        answer=response,
        explanation=format_result(result),
        metadata=metadata,
    )


@scorer(metrics=[{"cs_c": [mean(), stderr()], "cs_r": [mean(), stderr()]}])
def conflict_score(
    model: str | Model | None = None,
    model_role: str | None = "grader",
    documents: str = "documents",
    decomposer: str = "llm",
    labeler: str = "llm",
    max_claims: int | None = None,
) -> Scorer:
    """ConflictScore (Liu et al.) of the model's output against the sample's documents.

    Decomposes ``state.output.completion`` into claims (the paper's Table 6
    prompt), labels every claim against every document in
    ``state.metadata[documents]`` (Table 7, one call per pair; or the
    library's per-document / per-claim prompts), and aggregates with the
    library's :func:`~conflicteval.conflictscore.aggregate`.

    Args:
        model: The decomposer/labeler model (default: the model bound to
            ``model_role``, else the evaluated model).
        model_role: The Inspect model role of that model.
        documents: The metadata key holding the documents (strings or
            ``{"id", "text", "title"}`` objects).
        decomposer: ``"llm"`` (Table 6), or offline ``"sentence"`` / ``"whole"``.
        labeler: ``"llm"`` (Table 7), ``"llm-per-document"``, ``"llm-per-claim"``
            or offline ``"lexical"``.
        max_claims: Keep only the first claims of a decomposition (None: all).

    ``Score.value`` is ``{"cs_c": float, "cs_r": float}``; where CS-R is
    undefined (no claim has supporting or contradicting evidence) ``cs_r`` is
    NaN, Inspect's mark of an unscored key, so its mean and stderr leave that
    sample out. A response that cannot be scored (empty, no claim found, every
    pair failed) is ``Score.unscored`` with the reason. The metadata holds the
    claims, the claim × document label table and the raw replies of failed pairs.
    """
    _check_kinds(decomposer, labeler)
    needs_model = decomposer == "llm" or labeler in _LLM_LABELERS

    async def score(state: TaskState, target: Target) -> Score:
        docs = sample_documents(state, documents)
        response = state.output.completion
        base = {"decomposer": decomposer, "labeler": labeler, "document_ids": [d.id for d in docs]}
        if not response.strip():
            return Score.unscored(
                answer=response,
                explanation="empty response: not scored",
                metadata=unscored_metadata("no_response", **base),
            )
        grader = get_model(model, role=model_role) if needs_model else None
        claims, error, raw = await _decompose(grader, decomposer, response, max_claims)
        if error or not claims:
            return Score.unscored(
                answer=response,
                explanation=f"not scored: {error or 'no claims'}",
                metadata=unscored_metadata("grader_failed", decomposition_raw=raw, **base),
            )
        pairs = await _label(grader, labeler, claims, docs)
        return _score_from_pairs(response, docs, claims, pairs, base)

    return score


_DETECTION_RATIOS = ("accuracy", "precision", "recall", "f1", "acc_conf", "acc_noconf")


@metric
def conflict_detection(gold: str = "conflict") -> Metric:
    """Conflict detection from ConflictScore ("CS-C > 0") against the gold conflict label.

    Computed by the library's detection metrics
    (:func:`~conflicteval.conflictbench.metrics.predict_response_conflict` on
    each sample's claims x documents label table, then
    :func:`~conflicteval.conflictbench.metrics.metrics_from_predictions`), so
    failures are handled as the library does: a sample whose CS-C is 0 but
    whose failed pairs could have made a claim conflicted has no prediction
    and is counted in ``failed_items``, not as No-conflict.

    Args:
        gold: The sample-metadata key of the gold label (True: the documents conflict).

    Returns accuracy, precision, recall, F1, Acc_conf and Acc_noConf (the
    paper's Table 2 columns; Conflict is the positive class; a ratio with a
    zero denominator is left out), the counts ``tp``/``fp``/``fn``/``tn`` and
    ``failed_items``. Samples without a gold label or a label table are left
    out; unscored samples never reach a metric (Inspect counts them as unscored).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        predictions: list[tuple[bool | None, bool]] = []
        for s in scores:
            label = (s.sample_metadata or {}).get(gold)
            table = (s.score.metadata or {}).get("labels")
            if not isinstance(label, bool) or not isinstance(table, list):
                continue
            predictions.append((predict_response_conflict(table), label))
        m = metrics_from_predictions(predictions)
        out: dict[str, float] = {
            k: v for k in _DETECTION_RATIOS if (v := getattr(m, k)) is not None
        }
        out.update(tp=m.tp, fp=m.fp, fn=m.fn, tn=m.tn, failed_items=m.failed_items)
        return out

    return compute


def conflictbench_dataset(
    path: str | Path,
    report_prompt_name: str = "rag",
    *,
    source: str | None = None,
    limit: int | None = None,
) -> MemoryDataset:
    """ConflictBench items (a JSONL file from the builder) as report-writing samples.

    Args:
        path: Items written by ``conflicteval conflictbench build`` / :func:`write_items`.
        report_prompt_name: ``"rag"``, ``"balanced"`` or ``"super_balanced"``
            (the paper's Tables 8–10).
        source: Only items of this source (None: all).
        limit: At most this many items (None: all).

    Each sample's input is the report prompt over the item's documents (the
    main entity is ``meta["main_entity"]`` when the item has one, else the
    library's heuristic); metadata holds the documents, the gold conflict
    label and the gold relations.
    """
    if report_prompt_name not in REPORT_PROMPTS:
        raise ConflictEvalError(
            f"unknown report prompt {report_prompt_name!r}; expected one of "
            f"{', '.join(REPORT_PROMPTS)}"
        )
    items: list[BenchItem] = [
        it for it in read_items(path) if source is None or it.source == source
    ]
    if limit is not None:
        items = items[:limit]
    samples = []
    for item in items:
        for doc in item.documents:
            if not doc.text.strip():
                raise SampleError(f"{path}: item {item.id!r}: document {doc.id!r} has no text")
        given = item.meta.get("main_entity")
        entity = given.strip() if isinstance(given, str) and given.strip() else None
        entity = entity or main_entity_heuristic(item.question)
        docs = item.to_documents()
        samples.append(
            Sample(
                id=item.id,
                input=user_message(report_prompt(report_prompt_name, entity, docs)),
                metadata={
                    "item_id": item.id,
                    "source": item.source,
                    "question": item.question,
                    "claim": item.claim,
                    "main_entity": entity,
                    "report_prompt": report_prompt_name,
                    "conflict": item.conflict,
                    "gold_relations": list(item.gold_relations),
                    "documents": [d.model_dump() for d in docs],
                },
            )
        )
    return MemoryDataset(samples, name=f"{Path(path).name} ({report_prompt_name})")


@task
def conflictbench(
    path: str,
    report_prompt: str = "rag",
    source: str | None = None,
    limit: int | None = None,
    grader: str | None = None,
    decomposer: str = "llm",
    labeler: str = "llm",
) -> Task:
    """ConflictBench reports scored with ConflictScore, plus conflict detection from CS-C.

    The evaluated model writes a report from each item's documents with the
    paper's report prompt (RAG / Balanced / Super-Balanced); ``conflict_score``
    scores it against those documents. Metrics: mean and stderr of CS-C and
    CS-R, and detection (the Table 2 ratios of "CS-C > 0" against the item's
    gold conflict label, by the library's detection metrics; see
    :func:`conflict_detection`).

    Args:
        path: A ConflictBench JSONL file (from ``conflicteval conflictbench build``).
        report_prompt: ``"rag"``, ``"balanced"`` or ``"super_balanced"``.
        source: Only items of this source.
        limit: At most this many items.
        grader: The scoring model (default: the ``grader`` role, else the evaluated model).
        decomposer: See :func:`conflict_score`.
        labeler: See :func:`conflict_score`.
    """
    return Task(
        dataset=conflictbench_dataset(path, report_prompt, source=source, limit=limit),
        solver=generate(),
        scorer=conflict_score(model=grader, decomposer=decomposer, labeler=labeler),
        metrics=[
            {"cs_c": [mean(), stderr()], "cs_r": [mean(), stderr()]},
            conflict_detection(),
        ],
        config=generate_config(REPORT_SETTINGS),
        metadata={"report_prompt": report_prompt},
    )
