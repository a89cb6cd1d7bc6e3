"""Running a labeler over a gold set: :func:`run_labeler_bench`.

Each gold item (a claim and its documents) is one call of ``labeler.label([claim],
documents)`` through :func:`conflicteval.runs.run_batch`: checkpointed, resumable,
and runnable on any executor (local, Ray) and under ``--batch-export``. A pair the
labeler could not label is a failed pair, counted and shown; it counts as a wrong
answer in accuracy and its gold class's recall (see :mod:`conflicteval.stats`). An
item whose every pair failed with a model error is recorded ``model_error``, so
``retry_failed`` runs it again.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
from typing import TYPE_CHECKING, Any

from conflicteval._sync import run_sync
from conflicteval.errors import ModelError
from conflicteval.runs import BatchResult, RunOptions, Stage
from conflicteval.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from conflicteval.stats import classification_metrics as _metrics
from conflicteval.types import RELATIONS, Usage, row_labels

from .gold import GoldItem, GoldSet, load_gold
from .result import BenchRecord, BenchResult

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

__all__ = ["arun_labeler_bench", "bench_identity", "gold_inputs", "run_labeler_bench"]


async def label_gold_item(item: GoldItem, labeler: Any) -> dict[str, Any]:
    """Label one gold item; its checkpointed result (labels, errors, calls).

    Raises:
        ModelError: Every pair failed and some with a model error.
    """
    documents = list(item.documents)
    result = await labeler.label([item.claim], documents)
    labels, errors = row_labels(result.pairs[0] if result.pairs else [], len(documents))
    if labels and all(lab is None for lab in labels) and any("model error" in e for e in errors):
        raise ModelError(f"every pair failed: {'; '.join(sorted(set(errors)))[:500]}")
    return {"labels": labels, "errors": errors, "calls": int(getattr(result, "calls", 0))}


def gold_inputs(item: GoldItem) -> dict[str, Any]:
    """What one gold item's record is made from: the claim and its documents (ids, titles,
    text). The gold relations are not: the record keeps labels only, and they are compared
    with the gold set read now."""
    return {"claim": item.claim, "documents": list(item.documents)}


def bench_identity(gold: GoldSet, labeler: Any) -> dict[str, Any]:
    """The identity of a bench run (recorded with its checkpoint)."""
    from conflicteval.runs.identity import describe

    return {
        "task": "labeler-bench",
        "gold": gold.name,
        "gold_path": gold.path,
        "labeler": describe(labeler),
    }


async def arun_labeler_bench(
    gold: GoldSet | str,
    labeler: Any,
    *,
    data: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    limit: int | None = None,
    checkpoint: str | os.PathLike[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    **run: Unpack[RunKeywords],
) -> BenchResult:
    """Async :func:`run_labeler_bench`."""
    from conflicteval.runs.identity import describe

    gold_set = gold if isinstance(gold, GoldSet) else load_gold(gold, data, db=db, limit=limit)
    if not gold_set.items:
        raise ValueError(f"the {gold_set.name} gold set has no items: nothing to measure")
    stage = Stage(
        f"bench {gold_set.name}",
        checkpoint,
        identity=bench_identity(gold_set, labeler),
        inputs=gold_inputs,
    )
    batch = await stage.run(
        functools.partial(label_gold_item, labeler=labeler),
        gold_set.items,
        RunOptions.of(run, concurrency=16),
    )
    result = collect(gold_set, batch, labeler, n_resamples=n_resamples, seed=seed, level=level)
    result.labeler_identity = describe(labeler)
    return result


def run_labeler_bench(gold: GoldSet | str, labeler: Any, **options: Any) -> BenchResult:
    """Measure a labeler on a gold set: per-class P/R/F1, macro-F1, accuracy, intervals.

    Args:
        gold: A :class:`~conflicteval.bench.gold.GoldSet` or a gold set name
            (``feverous``, ``feverous-s``, ``ramdocs``, ``conflictbench``).
        labeler: Any ConflictScore labeler (``LexicalLabeler()``, ``LLMLabeler(model)``,
            the per-document / per-claim variants, ``NLILabeler(path)``), or any object
            with ``async label(claims, documents)`` returning ``pairs`` and ``calls``.
        **options: ``data`` (a local gold file), ``db`` (FEVEROUS Wikipedia database),
            ``limit``, ``checkpoint`` (resumable), ``concurrency``, ``progress``,
            ``restart``, ``retry_failed``, ``executor`` (``"local"``, ``"ray"``),
            ``n_resamples``, ``seed``, ``level`` (the bootstrap), ``options`` (a
            :class:`~conflicteval.runs.RunOptions`; a keyword that is set wins).

    Returns:
        A :class:`BenchResult` (``.to_dict()``, ``.to_pandas()``, ``.summary()``).
    """
    return run_sync(arun_labeler_bench(gold, labeler, **options))


def collect(
    gold: GoldSet,
    batch: BatchResult,
    labeler: Any,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
) -> BenchResult:
    """The bench result of a finished batch (pure apart from the cost lookup)."""
    from conflicteval._version import __version__

    records: list[BenchRecord] = []
    golds: list[str] = []
    preds: list[str | None] = []
    groups: list[str] = []
    counts = {"ok": 0, "parse_error": 0, "model_error": 0}
    pending_pairs = 0
    for item, rec in zip(gold.items, batch.records, strict=True):
        counts[rec.status] = counts.get(rec.status, 0) + 1
        result = rec.result if rec.status == "ok" and isinstance(rec.result, dict) else {}
        labels = list(result.get("labels") or [None] * len(item.gold))
        errors = list(
            result.get("errors") or ([rec.error or rec.status] if rec.status != "ok" else [])
        )
        records.append(
            BenchRecord(
                id=item.id,
                source=item.source,
                status=rec.status,
                gold=list(item.gold),
                labels=labels,
                errors=errors,
                calls=int(result.get("calls", 0)),
            )
        )
        if rec.status == "pending":  # waits for a batch result: not a failure, not a figure
            pending_pairs += len(item.gold)
            continue
        golds += list(item.gold)
        preds += labels
        groups += [item.id] * len(item.gold)
    counts["total"] = len(records)
    counts["pairs"] = gold.n_pairs
    counts["failed_pairs"] = sum(p is None for p in preds)
    counts["pending_pairs"] = pending_pairs
    metrics = _metrics(
        golds,
        preds,
        RELATIONS,
        groups=groups,
        failures="wrong",
        n_resamples=n_resamples,
        seed=seed,
        level=level,
    )
    usage = batch.total_usage
    model = getattr(getattr(labeler, "model", None), "name", None)
    return BenchResult(
        gold=gold.name,
        gold_path=gold.path,
        gold_sha256=_sha256(gold.path),
        labeler=str(getattr(labeler, "name", type(labeler).__name__)),
        model=model if isinstance(model, str) else None,
        metrics=metrics,
        records=records,
        counts=counts,
        left_out=dict(gold.left_out),
        usage=usage,
        usage_this_run=batch.usage,
        cost_usd=_cost(model, usage),
        created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        version=__version__,
        batch=batch,
    )


def _sha256(path: str) -> str:
    """sha256 of the gold file ("" when the gold set was not read from a file)."""
    from pathlib import Path

    from conflicteval.data.fetch import sha256_file

    return sha256_file(path) if path and Path(path).is_file() else ""


def _cost(model: Any, usage: Usage) -> float | None:
    if not isinstance(model, str) or not usage.calls:
        return None
    from conflicteval.pricing import estimate

    return estimate(model, usage.prompt_tokens, usage.completion_tokens)
