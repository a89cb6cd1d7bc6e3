"""Scoring a FaithEval run: accuracy, strict and non-strict, with bootstrap intervals.

Every question whose run ended ``ok`` is scored with the README's rule
(:func:`~conflicteval.faitheval.scoring.is_correct`) on the whole final output, as the README
scores the whole prediction; failed runs are counted and shown, not scored. The paper's
Table 1 FaithEval figures are shown beside (see :mod:`conflicteval.ramdocs.published`).
"""

from __future__ import annotations

import os
from typing import Any

from conflicteval.faitheval.data import FaithItem
from conflicteval.faitheval.scoring import is_correct
from conflicteval.ramdocs.published import METHOD_LABELS, published
from conflicteval.ramdocs.report import (
    N_RESAMPLES,
    SEED,
    answered,
    benchmark_run,
    fmt_metric,
    fmt_published,
    last_run_note,
    percent_ci,
)
from conflicteval.ramdocs.report import run_records as run_records

RULE = (
    "FaithEval README: correct when a valid phrase occurs in the normalized output "
    "(strict: one phrase; counterfactual: the answer key's option, this library's choice)"
)


def _item(result: dict[str, Any], item_id: str) -> FaithItem:
    key = result.get("answer_key")
    text = result.get("answer_text")
    choices = ((key, text),) if key is not None and text is not None else ()
    return FaithItem(item_id, str(result.get("task")), "", "", (), choices, key)


def faitheval_report(run: str | os.PathLike[str]) -> dict[str, Any]:
    """The accuracy report of a FaithEval run (a JSON-able dict).

    Raises:
        ConflictEvalError: Not a FaithEval run, or no answers.
    """
    info = benchmark_run(run, ("faitheval",), "FaithEval")
    records = run_records(run)
    items: list[dict[str, Any]] = []
    failed: dict[str, int] = {}
    for rec, result in answered(records, failed):
        item = _item(result, rec.id)
        output = str(result.get("output", ""))
        items.append(
            {
                "id": rec.id,
                "strict": int(is_correct(item, output, strict=True)),
                "non_strict": int(is_correct(item, output, strict=False)),
            }
        )
    return {
        **info,
        "rule": RULE,
        "questions": len(records),
        "note": last_run_note(info, len(records)),
        "scored": len(items),
        "failed": failed,
        "accuracy_strict": percent_ci([float(i["strict"]) for i in items]),
        "accuracy_non_strict": percent_ci([float(i["non_strict"]) for i in items]),
        "bootstrap": {"resamples": N_RESAMPLES, "seed": SEED, "level": 0.95},
        "published": {
            "column": f"Table 1 FaithEval, {METHOD_LABELS.get(info['method'], info['method'])}; "
            "the paper's task subset is not recorded here",
            "figures": published("faitheval", info["method"]),
        },
        "items": items,
    }


def format_faitheval(rep: dict[str, Any]) -> str:
    """The text form of :func:`faitheval_report`."""
    failed = ", ".join(f"{n} {k}" for k, n in rep["failed"].items()) or "none"
    lines = [
        f"FaithEval {rep['task']} · method {rep['method']} · model {rep['model']} · "
        f"{rep['questions']} questions",
        f"rule: {rep['rule']}",
        f"accuracy (strict): {fmt_metric(rep['accuracy_strict'])}",
        f"accuracy (non-strict): {fmt_metric(rep['accuracy_non_strict'])}; not scored: {failed}",
        fmt_published(rep),
    ]
    if rep.get("note"):
        lines.append(f"note: {rep['note']}")
    return "\n".join(lines)
