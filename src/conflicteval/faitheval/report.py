"""Scoring a FaithEval run: accuracy, strict and non-strict, with bootstrap intervals.

Every question whose run ended ``ok`` is scored with the README's rule
(:func:`~conflicteval.faitheval.scoring.is_correct`) on the whole final output, as the README
scores the whole prediction; failed runs are counted and shown, not scored. Beside the
headline: for ``unanswerable`` and ``inconsistent`` how many predictions the README's rule
credits only through a negated phrase, with their ids
(:func:`~conflicteval.faitheval.scoring.negated_credit`); for ``counterfactual`` how many
predictions name no option (unreadable: scored 0, counted and listed). The paper's Table 1
FaithEval figures are shown beside (see :mod:`conflicteval.ramdocs.published`).
"""

from __future__ import annotations

import os
from typing import Any

from conflicteval.faitheval.data import FaithItem
from conflicteval.faitheval.scoring import counterfactual_verdict, is_correct, negated_credit
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

README_RULE = (
    "FaithEval README: correct when a valid phrase occurs in the normalized output "
    "(strict: one phrase); a phrase counts even where the output negates it, so the "
    "predictions credited only through a negated phrase are counted beside"
)
COUNTERFACTUAL_RULE = (
    "counterfactual (this library's rule; the README gives none): correct when the output "
    "names the answer key's option (label or text, not negated or hedged) and no other "
    "option; naming another option is wrong; naming none is unreadable and scores 0"
)


def _item(result: dict[str, Any], item_id: str) -> FaithItem:
    key = result.get("answer_key")
    raw = result.get("choices")
    choices: tuple[tuple[str, str], ...] = ()
    if isinstance(raw, list):
        choices = tuple((str(c[0]), str(c[1])) for c in raw if isinstance(c, list) and len(c) == 2)
    return FaithItem(item_id, str(result.get("task")), "", "", (), choices, key)


def _score(result: dict[str, Any], item_id: str, output: str) -> dict[str, Any]:
    """One answered question's row (raises ValueError when it cannot be scored)."""
    item = _item(result, item_id)
    if item.task != "counterfactual":
        return {
            "id": item_id,
            "strict": int(is_correct(item, output, strict=True)),
            "non_strict": int(is_correct(item, output, strict=False)),
            "negated_strict": negated_credit(item.task, output, strict=True),
            "negated_non_strict": negated_credit(item.task, output, strict=False),
        }
    if len(item.choices) < 2:
        raise ValueError("the run did not record the options (run it again to score it)")
    verdict = counterfactual_verdict(item, output)
    correct = int(verdict == "correct")
    row = {"id": item_id, "strict": correct, "non_strict": correct, "verdict": verdict}
    if verdict == "unreadable":
        row["raw"] = output
    return row


def faitheval_report(run: str | os.PathLike[str]) -> dict[str, Any]:
    """The accuracy report of a FaithEval run (a JSON-able dict).

    Raises:
        ConflictEvalError: Not a FaithEval run, or no answers.
    """
    info = benchmark_run(run, ("faitheval",), "FaithEval")
    records = run_records(run)
    items: list[dict[str, Any]] = []
    failed: dict[str, int] = {}
    unscorable: list[dict[str, Any]] = []
    for rec, result in answered(records, failed):
        try:
            items.append(_score(result, rec.id, str(result.get("output", ""))))
        except ValueError as exc:
            failed["unscorable"] = failed.get("unscorable", 0) + 1
            unscorable.append({"id": rec.id, "reason": str(exc)})
    counterfactual = info.get("task") == "counterfactual"
    extra: dict[str, Any] = {}
    if counterfactual:
        extra["unreadable"] = [i["id"] for i in items if i.get("verdict") == "unreadable"]
    else:
        extra["negated_credit"] = {
            kind: [i["id"] for i in items if i[f"negated_{kind}"]]
            for kind in ("strict", "non_strict")
        }
    return {
        **info,
        "rule": COUNTERFACTUAL_RULE if counterfactual else README_RULE,
        "questions": len(records),
        "note": last_run_note(info, len(records)),
        "scored": len(items),
        "failed": failed,
        "accuracy_strict": percent_ci([float(i["strict"]) for i in items]),
        "accuracy_non_strict": percent_ci([float(i["non_strict"]) for i in items]),
        **extra,
        "bootstrap": {"resamples": N_RESAMPLES, "seed": SEED, "level": 0.95},
        "published": {
            "column": f"Table 1 FaithEval, {METHOD_LABELS.get(info['method'], info['method'])}; "
            "the paper's task subset is not recorded here",
            "figures": published("faitheval", info["method"]),
        },
        "items": items + unscorable,
    }


def _ids(ids: list[str], limit: int = 20) -> str:
    shown = ", ".join(ids[:limit]) + (
        f", ... ({len(ids) - limit} more)" if len(ids) > limit else ""
    )
    return f" (ids {shown})" if ids else ""


def format_faitheval(rep: dict[str, Any]) -> str:
    """The text form of :func:`faitheval_report`."""
    failed = ", ".join(f"{n} {k}" for k, n in rep["failed"].items()) or "none"
    lines = [
        f"FaithEval {rep['task']} · method {rep['method']} · model {rep['model']} · "
        f"{rep['questions']} questions",
        f"rule: {rep['rule']}",
        f"accuracy (strict): {fmt_metric(rep['accuracy_strict'])}",
        f"accuracy (non-strict): {fmt_metric(rep['accuracy_non_strict'])}; not scored: {failed}",
    ]
    if "unreadable" in rep:
        ids = rep["unreadable"]
        lines.append(f"unreadable (no option named, scored 0): {len(ids)}{_ids(ids)}")
    if "negated_credit" in rep:
        neg = rep["negated_credit"]
        lines.append(
            "credited only through a negated phrase: "
            f"strict {len(neg['strict'])}{_ids(neg['strict'])}; "
            f"non-strict {len(neg['non_strict'])}{_ids(neg['non_strict'])}"
        )
    lines.append(fmt_published(rep))
    if rep.get("note"):
        lines.append(f"note: {rep['note']}")
    return "\n".join(lines)
