"""``conflicteval conflictqa run`` and ``clasheval run`` runs: context against the model's own
memory (ConflictQA) and a model's prior against a modified context (ClashEval).

Both directories hold ``answers.jsonl`` (one record per question) and a ``run.json`` whose
``benchmark`` is ``conflictqa`` or ``clasheval``. The headline numbers and their intervals
come from the protocol's own report. Charts: ConflictQA's answer shares per experiment;
ClashEval's per-level curve (how often the answer follows the modified context, per domain and
level), one bar per level.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..common import flatten, headline, lazy_items, open_run, read_json, record_item, tally
from ..model import Chart, RunView
from ..registry import RunKind
from ..svg import hbar_svg, stacked_hbar_svg

BENCHMARKS = ("conflictqa", "clasheval")


def _detect(path: Path) -> bool:
    info = read_json(path / "run.json")
    return (
        (path / "answers.jsonl").exists()
        and isinstance(info, dict)
        and info.get("benchmark") in BENCHMARKS
    )


def _conflictqa(run: RunView, rep: dict[str, Any]) -> None:
    scored = rep.get("experiments_scored") or {}
    for exp, m in scored.items():
        run.headlines.append(
            headline(f"memorization ratio ({exp})", m, "memorization_ratio", percent=False)
        )
    if scored:
        outcomes = ("memory", "counter", "uncertain", "unreadable")
        rows = [
            (exp, [float(m["shares"][o]["value"] or 0.0) for o in outcomes])
            for exp, m in scored.items()
        ]
        title = "ConflictQA: which answer each experiment's replies chose"
        sub = f"model {rep.get('model')} \u00b7 memory {rep.get('memory')}"
        sub += f" \u00b7 {rep.get('dataset')}"
        run.charts.append(
            Chart(
                title,
                stacked_hbar_svg(
                    title,
                    sub,
                    rows,
                    list(outcomes),
                    x_label="share",
                    y_label="experiment",
                    x_max=1.0,
                ),
            )
        )


def _clasheval(run: RunView, rep: dict[str, Any]) -> None:
    base = (rep.get("methods") or {}).get("baseline") or {}
    for key in ("accuracy", "context_bias", "prior_bias"):
        if key in base:
            run.headlines.append(headline(key.replace("_", " "), base, key, n=base.get("rows")))
    for domain, points in (rep.get("curve") or {}).items():
        rows = [(f"level {p['level']} (n={p['n']})", p["value"]) for p in points]
        title = f"ClashEval {domain}: share of answers following the modified context"
        sub = f"model {rep.get('model')} \u00b7 by modification level (mod_type)"
        run.charts.append(
            Chart(title, hbar_svg(title, sub, rows, x_label="share", y_label="level"))
        )


def _report(run: RunView, bench: str) -> dict[str, Any]:
    try:
        if bench == "conflictqa":
            from conflicteval.conflictqa.report import conflictqa_report

            return conflictqa_report(run.path)
        from conflicteval.clasheval.reproduce import clasheval_report

        return clasheval_report(run.path)
    except Exception as exc:  # the items are still shown, without the scores
        run.notes.append(f"no {bench} report: {exc}")
        return {}


def _item(rec: Any, scored: dict[str, Any] | None) -> dict[str, Any]:
    res = rec.result if isinstance(rec.result, dict) else {}
    outcomes = {k: v for k, v in (scored or {}).items() if k != "id"}
    first: dict[str, Any] = next(iter(res.get("rows") or []), {})
    return record_item(
        rec,
        rec.error,
        question=first.get("question"),
        response=json.dumps(res.get("experiments") or res.get("rows") or {}, indent=1)[:4000],
        facets={"outcome": next(iter(outcomes.values()), "n/a")},
        value=", ".join(f"{k}: {v}" for k, v in outcomes.items()) or None,
        fields=[[k, v] for k, v in outcomes.items()],
    )


def _read(path: Path) -> RunView:
    info = read_json(path / "run.json") or {}
    bench = str(info.get("benchmark"))
    run, records = open_run(bench, f"{bench} run", path, "answers.jsonl")
    run.provenance[:0] = [(k, v) for k, v in flatten(info) if k != "items"]
    run.dataset = str(info.get("dataset") or bench)
    rep = _report(run, bench)
    listed = rep.get("items") if bench == "conflictqa" else None  # per-question outcomes
    # the report's per-question outcomes (a few short fields each) are held by id; the
    # records and the page's items are read and made one at a time
    scored = {str(i.get("id")): i for i in listed or []}
    run.items = lazy_items(path / "answers.jsonl", records, lambda r: _item(r, scored.get(r.id)))
    run.facets = ["outcome"]
    tally(run, records, str(info.get("model") or "unpriced"))
    if bench == "conflictqa":
        _conflictqa(run, rep)
    elif rep:
        _clasheval(run, rep)
    return run


KIND = RunKind(
    "contextmemory",
    "ConflictQA / ClashEval run (context against the model's memory)",
    _detect,
    _read,
    priority=30,
)
