"""ConflictScore of each method's final answers against the question's documents.

For every answered question of a run, the final output is scored with a
:class:`~conflicteval.conflictscore.ConflictScorer` against the documents the question came
with (ConflictScore's CS-C and CS-R), so methods can be compared on how many conflicted claims
their answers hold. Scores are cached in ``<run>/conflictscore.jsonl`` (resumable, refused when
the decomposer or labeler changed unless restarted); a response that could not be scored is
counted, never dropped. Means come with seeded bootstrap intervals.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conflicteval.conflictscore import ConflictScorer
from conflicteval.runs import Record, RunOptions
from conflicteval.stats import bootstrap_ci

CONFLICTSCORE_FILE = "conflictscore.jsonl"


def _mean_ci(values: list[float], seed: int = 0) -> dict[str, Any]:
    if not values:
        return {"value": None, "ci": None, "n": 0}
    low, high = bootstrap_ci(values, seed=seed)
    return {"value": sum(values) / len(values), "ci": [low, high], "n": len(values)}


async def conflict_scores(
    run: str | os.PathLike[str],
    records: Sequence[Record],
    scorer: ConflictScorer,
    *,
    concurrency: int = 8,
    progress: bool | None = None,
    restart: bool = False,
    executor: Any = None,
    options: RunOptions | None = None,
) -> dict[str, Any]:
    """Score the ok records' outputs; ``{"cs_c": {...}, "cs_r": {...}, "counts": {...}}``.

    ``options``: run settings from the caller (:class:`~conflicteval.runs.RunOptions`, e.g.
    the command line's item bound); a keyword that is set wins over it.

    ``cs_c`` / ``cs_r`` hold the mean over the responses where the score is defined, with a
    95% bootstrap interval (seed 0); ``counts`` the scorer run's statuses, plus
    ``no_documents``: answered questions without documents, which cannot be scored (counted
    in ``total``, never dropped).
    """
    answered = [rec for rec in records if rec.status == "ok" and isinstance(rec.result, dict)]
    items = [
        {
            "id": rec.id,
            "response": str(rec.result.get("output", "")),
            "documents": [
                {"id": f"d{i}", "text": t} for i, t in enumerate(rec.result.get("documents", []))
            ],
        }
        for rec in answered
        if rec.result.get("documents")
    ]
    batch = await scorer.ascore_many(
        items,
        checkpoint=Path(run) / CONFLICTSCORE_FILE,
        concurrency=concurrency,
        progress=progress,
        restart=restart,
        executor=executor,
        options=options,
    )
    counts = dict(batch.counts)
    counts["no_documents"] = len(answered) - len(items)
    counts["total"] += counts["no_documents"]
    cs_c = [float(s.cs_c) for s in batch.scores() if s is not None and s.cs_c is not None]
    cs_r = [float(s.cs_r) for s in batch.scores() if s is not None and s.cs_r is not None]
    return {
        "decomposer": scorer.decomposer.name,
        "labeler": scorer.labeler.name,
        "cs_c": _mean_ci(cs_c),
        "cs_r": _mean_ci(cs_r),
        "counts": counts,
        "usage": batch.usage.model_dump(),
    }


def format_conflict(cs: dict[str, Any]) -> str:
    """One line: CS-C and CS-R means with intervals, and how many responses were scored."""

    def one(m: dict[str, Any]) -> str:
        if m["value"] is None:
            return "n/a"
        lo, hi = m["ci"]
        return f"{m['value']:.3f} [95% CI {lo:.3f}-{hi:.3f}] (n={m['n']})"

    c = cs["counts"]
    return (
        f"ConflictScore ({cs['decomposer']} decomposer, {cs['labeler']} labeler): "
        f"CS-C {one(cs['cs_c'])}; CS-R {one(cs['cs_r'])}; "
        f"{c.get('ok', 0)} of {c.get('total', 0)} responses scored"
        + (f" ({c['no_documents']} without documents)" if c.get("no_documents") else "")
    )
