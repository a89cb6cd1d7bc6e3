"""Scoring a ConflictQA run: per experiment, the answer shares and the memorization ratio.

A question whose run ended ``ok`` is scored; each of its experiments' replies is read with
:func:`~conflicteval.conflictqa.metrics.outcome`. Questions left out before any experiment
call are counted, never scored: ``polarity_unknown`` (StrategyQA memory claims whose True/False
cannot be read) and ``elicitation_unreadable`` (a model's memory reply that cannot be read).
Questions whose run failed (a model error) are counted by status. The report's summary is
written the way the other protocol reports are (a JSON-able dict; ``--json`` prints it).
"""

from __future__ import annotations

import os
from typing import Any

from conflicteval.conflictqa.metrics import OUTCOMES, experiment_metrics, outcome
from conflicteval.conflictqa.published import PAPER_FIGURES
from conflicteval.conflictqa.run import read_run
from conflicteval.formatting import interval, number
from conflicteval.ramdocs.report import answered, last_run_note, run_records
from conflicteval.tables import markdown_table


def conflictqa_report(run: str | os.PathLike[str]) -> dict[str, Any]:
    """The report of a ConflictQA run (a JSON-able dict).

    Raises:
        ConflictEvalError: Not a ConflictQA run, or no answers.
    """
    info = read_run(run)
    records = run_records(run)
    failed: dict[str, int] = {}
    left_out = {"polarity_unknown": 0, "elicitation_unreadable": 0}
    outcomes: dict[str, list[str]] = {e: [] for e in info.get("experiments", [])}
    items: list[dict[str, Any]] = []
    memory_answers: dict[str, int] = {}
    for rec, result in answered(records, failed):
        elicitation = result.get("elicitation") or {}
        if "answer" in elicitation:
            memory_answers[elicitation["answer"]] = memory_answers.get(elicitation["answer"], 0) + 1
        if result.get("skipped"):
            left_out["polarity_unknown"] += 1
            continue
        if elicitation.get("unreadable"):
            left_out["elicitation_unreadable"] += 1
            continue
        row: dict[str, Any] = {"id": rec.id}
        for exp, got in (result.get("experiments") or {}).items():
            o = outcome(str(got.get("reply", "")), got["options"], got["roles"])
            outcomes.setdefault(exp, []).append(o)
            row[exp] = o
        items.append(row)
    return {
        **info,
        "questions": len(records),
        "note": last_run_note(info, len(records)),
        "left_out": left_out,
        "failed": failed,
        "elicited_memory_answers": memory_answers or None,
        "experiments_scored": {e: experiment_metrics(o) for e, o in outcomes.items()},
        "bootstrap": {"resamples": 1000, "seed": 0, "level": 0.95},
        "published": PAPER_FIGURES.get(str(info.get("llm")), {}),
        "items": items,
    }


def _pct(m: dict[str, Any]) -> str:
    if m["value"] is None:
        return "n/a"
    share = number(m["value"], 1, scale=100, unit="%")
    return f"{share} {interval(m['ci'], 1, scale=100, sep='-')}"


def format_conflictqa(rep: dict[str, Any]) -> str:
    """The text form of :func:`conflictqa_report`."""
    failed = ", ".join(f"{n} {k}" for k, n in rep["failed"].items()) or "none"
    left = ", ".join(f"{n} {k}" for k, n in rep["left_out"].items() if n) or "none"
    lines = [
        f"ConflictQA {rep['dataset']} · memory {rep['memory']} ({rep['llm']} file) · "
        f"model {rep['model']} · {rep['questions']} questions",
        f"left out before the experiments: {left}; failed: {failed}",
    ]
    if rep.get("elicited_memory_answers"):
        body = ", ".join(f"{k} {v}" for k, v in sorted(rep["elicited_memory_answers"].items()))
        lines.append(f"elicited memory answers: {body}")
    head = ["experiment", "replies", "memorization ratio [95% CI]"]
    head += [f"{o} share" for o in OUTCOMES]
    rows = []
    for exp, m in rep["experiments_scored"].items():
        mr = m["memorization_ratio"]
        rows.append(
            [
                exp,
                m["replies"],
                f"{_pct(mr)} (n={mr['n']})",
                *(_pct(m["shares"][o]) for o in OUTCOMES),
            ]
        )
    lines.append(markdown_table(head, rows, ["left", "right", *(["left"] * (len(head) - 2))]))
    paper = rep.get("published") or {}
    lines.append(
        "published: " + (", ".join(f"{k} {v}" for k, v in paper.items()) or "none recovered")
    )
    if rep.get("note"):
        lines.append(f"note: {rep['note']}")
    return "\n".join(lines)
