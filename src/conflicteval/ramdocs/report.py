"""Scoring a run: exact match (RAMDocs, AmbigDocs) with a bootstrap interval, Table 1 beside it.

A question whose run ended ``ok`` is scored; its final output's answer segment is read with
:func:`~conflicteval.ramdocs.answers.answer_segment`. An output without ``All Correct
Answers:``, or with two such lists that differ, is *unreadable* (its reason and raw text
kept): counted, shown, and scored 0 in the headline (every answered question counts, as
the paper's EM over the whole set would). Questions whose run failed (a model error) are
counted and shown, not scored. The interval is a seeded percentile bootstrap over the
scored questions (:func:`conflicteval.stats.bootstrap_ci`, 1,000 resamples, seed 0).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from conflicteval.errors import ConflictEvalError, ParseFailure
from conflicteval.ramdocs.answers import answer_segment
from conflicteval.ramdocs.metrics import EM_RULE, exact_match
from conflicteval.ramdocs.published import METHOD_LABELS, published
from conflicteval.ramdocs.run import ANSWERS_FILE, read_run
from conflicteval.runs import Record
from conflicteval.stats import bootstrap_ci
from conflicteval.tables import markdown_table

N_RESAMPLES = 1000
SEED = 0


def run_records(run: str | os.PathLike[str]) -> Sequence[Record]:
    """The records of a run's ``answers.jsonl``, ordered by id (numeric ids as numbers),
    read from the file one at a time each time they are iterated (only their offsets held).

    Raises:
        ConflictEvalError: The run has no answers file.
    """
    from conflicteval.runs.records_on_disk import LazyRecords

    path = Path(run) / ANSWERS_FILE
    if not path.exists():
        raise ConflictEvalError(f"{path}: no answers in this run yet")
    records = LazyRecords(path)
    records.reorder(_natural_id)
    return records


def _natural_id(rid: str) -> tuple[int, int, str]:
    return (0, int(rid), "") if rid.isdigit() else (1, 0, rid)


def benchmark_run(
    run: str | os.PathLike[str], benchmarks: tuple[str, ...], name: str
) -> dict[str, Any]:
    """The ``run.json`` of a run of one of ``benchmarks`` (``name`` them for the message).

    Raises:
        ConflictEvalError: No run there, or a run of another benchmark.
    """
    info = read_run(run)
    if info["benchmark"] not in benchmarks:
        raise ConflictEvalError(f"{run}: a {info['benchmark']} run, not {name}")
    return info


def last_run_note(info: dict[str, Any], n_records: int) -> str | None:
    """A note when the answers file holds more questions than the run's last command asked
    (an earlier, larger run into the same directory): the report counts them all."""
    asked = info.get("items")
    if isinstance(asked, int) and n_records > asked:
        return (
            f"the answers file holds {n_records} questions; the last run into this directory "
            f"asked {asked}, and the report counts all {n_records}"
        )
    return None


def answered(
    records: Iterable[Record], failed: dict[str, int]
) -> Iterator[tuple[Record, dict[str, Any]]]:
    """Each record that ended ok, with its result; the others are counted in ``failed`` by
    status, in the order they come."""
    for rec in records:
        if rec.status != "ok" or not isinstance(rec.result, dict):
            failed[rec.status] = failed.get(rec.status, 0) + 1
            continue
        yield rec, rec.result


def score_item(result: dict[str, Any]) -> dict[str, Any]:
    """One answered question: ``{"em": 0|1, "unreadable": bool, "segment": str|None}``; an
    unreadable output also carries its ``reason`` and the ``raw`` output.

    Raises:
        ValueError: The question has no gold answer to match.
    """
    try:
        segment = answer_segment(str(result.get("output", "")))
    except ParseFailure as exc:
        return {"em": 0, "unreadable": True, "segment": None, "reason": exc.reason, "raw": exc.raw}
    gold = result.get("gold_answers") or []
    wrong = result.get("wrong_answers") or []
    return {"em": int(exact_match(segment, gold, wrong)), "unreadable": False, "segment": segment}


def percent_ci(values: list[float]) -> dict[str, Any]:
    """Mean and 95% interval of 0/1 values (one per question), in percent (None when no
    values): the percentile bootstrap, or the Wilson interval under ``MIN_INTERVAL_UNITS``
    questions (it does not collapse at 0 or 100 %; :mod:`conflicteval.stats_text`)."""
    from conflicteval.stats import MIN_INTERVAL_UNITS
    from conflicteval.stats_text import proportion_ci

    if not values:
        return {"value": None, "ci": None, "n": 0}
    boot = None
    if len(values) >= MIN_INTERVAL_UNITS:
        boot = bootstrap_ci(values, n_resamples=N_RESAMPLES, seed=SEED)
    low, high = proportion_ci(values, boot) or (0.0, 0.0)
    mean = sum(values) / len(values)
    return {"value": 100 * mean, "ci": [100 * low, 100 * high], "n": len(values)}


def ramdocs_report(run: str | os.PathLike[str]) -> dict[str, Any]:
    """The exact-match report of a RAMDocs or AmbigDocs run (a JSON-able dict).

    Raises:
        ConflictEvalError: Not a RAMDocs/AmbigDocs run, or no answers.
    """
    info = benchmark_run(run, ("ramdocs", "ambigdocs"), "RAMDocs or AmbigDocs")
    records = run_records(run)
    items: list[dict[str, Any]] = []
    failed: dict[str, int] = {}
    for rec, result in answered(records, failed):
        try:
            items.append({"id": rec.id, **score_item(result)})
        except ValueError as exc:
            failed["unscorable"] = failed.get("unscorable", 0) + 1
            items.append({"id": rec.id, "em": None, "reason": str(exc)})
    scores = [float(i["em"]) for i in items if i["em"] is not None]
    return {
        **info,
        "rule": EM_RULE,
        "questions": len(records),
        "note": last_run_note(info, len(records)),
        "scored": len(scores),
        "unreadable": sum(1 for i in items if i.get("unreadable")),
        "failed": failed,
        "exact_match": percent_ci(scores),
        "bootstrap": {"resamples": N_RESAMPLES, "seed": SEED, "level": 0.95},
        "published": {
            "column": f"Table 1, {METHOD_LABELS.get(info['method'], info['method'])}",
            "figures": published(info["benchmark"], info["method"]),
        },
        "items": items,
    }


def fmt_metric(m: dict[str, Any]) -> str:
    """``33.3% [95% CI 16.7-50.0] (n=30 questions)`` or ``not measured (nothing scored)``; under
    ``MIN_INTERVAL_UNITS`` questions, with the note that the interval means little."""
    from conflicteval.formatting import number
    from conflicteval.stats_text import small_sample_note

    if m["value"] is None:
        return "not measured (nothing scored)"
    lo, hi = m["ci"]
    note = small_sample_note(m["n"], "questions")
    share = number(m["value"], 1, unit="%")
    text = f"{share} [95% CI {number(lo, 1)}-{number(hi, 1)}] (n={m['n']} questions)"
    return f"{text}; {note}" if note else text


def fmt_published(rep: dict[str, Any]) -> str:
    """The published column as one line."""
    figures = rep["published"]["figures"]
    if not figures:
        return f"published ({rep['published']['column']}): none"
    body = " | ".join(f"{m} {v:.2f}" for m, v in figures.items())
    return f"published ({rep['published']['column']}, EM %): {body}"


def format_ramdocs(rep: dict[str, Any]) -> str:
    """The text form of :func:`ramdocs_report`."""
    name = {"ramdocs": "RAMDocs", "ambigdocs": "AmbigDocs"}[rep["benchmark"]]
    failed = ", ".join(f"{n} {k}" for k, n in rep["failed"].items()) or "none"
    lines = [
        f"{name} · method {rep['method']} · model {rep['model']} · {rep['questions']} questions",
        f"rule: {rep['rule']}",
        f"exact match: {fmt_metric(rep['exact_match'])}; "
        f"{rep['unreadable']} unreadable (scored 0); not scored: {failed}",
        fmt_published(rep),
    ]
    if rep.get("note"):
        lines.append(f"note: {rep['note']}")
    return "\n".join(lines)


def _cell(m: dict[str, Any] | None, scale: float = 1.0, digits: int = 1) -> str:
    if not m or m.get("value") is None:
        return "n/a"
    lo, hi = m["ci"]
    return f"{m['value'] * scale:.{digits}f} [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"


def format_table(reports: list[dict[str, Any]]) -> str:
    """Several runs side by side (Markdown): measured figure with interval, CS-C and CS-R when
    scored, and the paper's Table 1 figures for the same method."""
    head = ["benchmark", "method", "model", "n", "measured % [95% CI]", "CS-C", "CS-R", "Table 1"]
    rows = []
    for rep in reports:
        if "exact_match" in rep:
            name, metric = rep["benchmark"], "EM " + _cell(rep["exact_match"])
        else:
            name = f"faitheval-{rep.get('task')}"
            metric = (
                f"strict {_cell(rep['accuracy_strict'])}; "
                f"non-strict {_cell(rep['accuracy_non_strict'])}"
            )
        cs = rep.get("conflictscore") or {}
        paper = " / ".join(f"{v:.2f}" for v in rep["published"]["figures"].values()) or "-"
        rows.append(
            [
                name,
                rep["method"],
                rep["model"],
                rep["scored"],
                metric,
                _cell(cs.get("cs_c"), digits=3),
                _cell(cs.get("cs_r"), digits=3),
                paper,
            ]
        )
    lines = [markdown_table(head, rows, ["left"] * len(head))]
    lines.append("Table 1 column: Llama3.3-70B-Inst / Qwen2.5-72B-Inst / GPT-4o-mini.")
    return "\n".join(lines)
