"""The files of a batch ``score`` run: ``scores.jsonl`` (one row per response, in input
order) and ``summary.json`` (counts, mean CS-C / CS-R with bootstrap intervals, undefined
scores, failed pairs, usage and cost, the instruments and their measured accuracy)."""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conflicteval._atomic import write_json
from conflicteval.record_errors import reading_record

__all__ = ["write_score_files"]


def write_score_files(out: Path, result: Any, scorer: Any) -> tuple[dict[str, Any], int, int]:
    """Write ``out/scores.jsonl`` and ``out/summary.json`` of a
    :meth:`~conflicteval.conflictscore.scorer.ConflictScorer.score_many` result; return the
    summary and how many responses have a CS-C and a CS-R."""
    from conflicteval.pricing import cost_summary
    from conflicteval.runs import write_json_lines
    from conflicteval.stats import mean_ci

    tally = _ScoreTally()
    write_json_lines(out / "scores.jsonl", _score_rows(result, tally, out / "checkpoint.jsonl"))
    cs_c, cs_r = tally.cs_c, tally.cs_r
    mean_cs_c, cs_c_ci = mean_ci(cs_c)
    mean_cs_r, cs_r_ci = mean_ci(cs_r)
    summary: dict[str, Any] = {
        "counts": result.counts,
        "resumed": result.resumed,
        "recomputed": result.changed,  # made again because their inputs changed
        "mean_cs_c": mean_cs_c,
        "mean_cs_c_ci": cs_c_ci,
        "mean_cs_r": mean_cs_r,
        "mean_cs_r_ci": cs_r_ci,
        "cs_c_undefined": tally.cs_c_undefined,
        "cs_r_undefined": tally.cs_r_undefined,
        "failed_pairs": tally.failed_pairs,
        "usage": result.total_usage.model_dump(),
        "usage_this_run": result.usage.model_dump(),
        # tokens sent vs replayed from the cache are in the usage fields; money beside them
        "cost": cost_summary(result.total_usage),
        "cost_this_run": cost_summary(result.usage),
        "decomposer": scorer.decomposer.name,
        "labeler": scorer.labeler.name,
        "executor": result.executor,
        "labeler_measured": measured(scorer.labeler),
    }
    write_json(out / "summary.json", summary)
    return summary, len(cs_c), len(cs_r)


def _score_rows(result: Any, tally: _ScoreTally, checkpoint: Path) -> Iterator[dict[str, Any]]:
    """One scores.jsonl row per record, in input order (records read one at a time), each
    added to ``tally``; a record not of the layout written (edited by hand) is a DataError."""
    for rec in result.records:
        with reading_record(checkpoint, rec.id):
            yield tally.add(_score_row(rec))


def _score_row(rec: Any) -> dict[str, Any]:
    res = rec.result if rec.status == "ok" and isinstance(rec.result, dict) else {}
    agg = res.get("aggregate") or {}
    if not isinstance(agg, dict):
        raise TypeError(f"aggregate is {type(agg).__name__}, not an object")
    for name in ("cs_c", "cs_r"):
        value = res.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise TypeError(f"{name} is {type(value).__name__}, not a number")
    return {
        "id": rec.id,
        "status": rec.status,
        "cs_c": res.get("cs_c"),
        "cs_r": res.get("cs_r"),
        "n_claims": agg.get("n_claims"),
        "n_conflicted": agg.get("n_conflicted"),
        "n_no_evidence": agg.get("n_no_evidence"),
        "n_failed_pairs": agg.get("n_failed_pairs"),
        "calls": res.get("calls"),
        "error": rec.error,
    }


class _ScoreTally:
    """The summary's figures, gathered row by row as scores.jsonl is written."""

    def __init__(self) -> None:
        # 8 bytes a response (the bootstrap interval needs every value)
        self.cs_c: array[float] = array("d")
        self.cs_r: array[float] = array("d")
        self.cs_c_undefined = 0
        self.cs_r_undefined = 0
        self.failed_pairs = 0

    def add(self, row: dict[str, Any]) -> dict[str, Any]:
        for name in ("cs_c", "cs_r"):
            if row[name] is not None:
                getattr(self, name).append(row[name])
            elif row["status"] == "ok":
                setattr(self, f"{name}_undefined", getattr(self, f"{name}_undefined") + 1)
        self.failed_pairs += row["n_failed_pairs"] or 0
        return row


def _at_least(n: Any, bound: int) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= bound


def measured(labeler: Any) -> list[dict[str, Any]]:
    """The saved bench results of this labeler, most pairs first (``conflicteval bench
    labeler``); ``too_small`` marks one under ``MIN_RELIABLE_PAIRS`` pairs."""
    from conflicteval.measurements import MIN_RELIABLE_PAIRS, load_measurements

    keys = ("gold", "gold_sha256", "macro_f1", "macro_f1_ci", "n", "failed", "created")
    return [
        {**{k: r.get(k) for k in keys}, "too_small": not _at_least(r.get("n"), MIN_RELIABLE_PAIRS)}
        for r in load_measurements(labeler)
    ]
