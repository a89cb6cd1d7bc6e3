"""``conflicteval ramdocs run`` / ``faitheval run`` runs: RAMDocs, AmbigDocs and FaithEval with
No RAG, prompt-based RAG or MADAM-RAG (the RAMDocs paper's Table 1 setup).

The directory holds ``answers.jsonl`` (the checkpoint: each question's final output, gold and
wrong answers, documents), ``run.json`` (benchmark, task, method, model, decoding) and
``data.json``. The headline numbers, their bootstrap intervals and the paper's Table 1 figures
come from the protocol's own report (``conflicteval.ramdocs`` / ``conflicteval.faitheval``).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from ..common import (
    flatten,
    headline,
    items_of,
    open_run,
    read_json,
    record_item,
    tally,
)
from ..model import Chart, RunView
from ..registry import RunKind, has_files
from ..svg import hbar_svg

REPORTS = {
    "ramdocs": ("conflicteval.ramdocs.report", "ramdocs_report", ("exact_match",)),
    "ambigdocs": ("conflicteval.ramdocs.report", "ramdocs_report", ("exact_match",)),
    "faitheval": (
        "conflicteval.faitheval.report",
        "faitheval_report",
        ("accuracy_strict", "accuracy_non_strict"),
    ),
}


def _report(run: RunView, info: dict[str, Any]) -> dict[str, Any]:
    """The protocol's report of the run ({} when it cannot be made, said in a note)."""
    spec = REPORTS.get(str(info.get("benchmark")))
    if spec is None:
        return {}
    try:
        module = importlib.import_module(spec[0])
        report: dict[str, Any] = getattr(module, spec[1])(run.path)
    except Exception as exc:  # the items are still shown, without the scores
        run.notes.append(f"no {info.get('benchmark')} report: {exc}")
        return {}
    return report


def _item(rec: Any, scored: dict[str, Any] | None) -> dict[str, Any]:
    res = rec.result if isinstance(rec.result, dict) else {}
    scored = scored or {}
    if "em" in scored:
        outcome = "unscored" if scored["em"] is None else "right" if scored["em"] else "wrong"
    elif "strict" in scored:
        outcome = "right" if scored["strict"] else "wrong"
    else:
        outcome = "failed" if rec.status != "ok" else "unscored"
    docs = res.get("documents") or []
    return record_item(
        rec,
        rec.error or scored.get("reason"),
        question=res.get("question"),
        gold=[str(a) for a in res.get("gold_answers") or []] or None,
        response=res.get("output"),
        documents=[
            {"id": str(j), "title": None, "text": d if isinstance(d, str) else str(d)}
            for j, d in enumerate(docs)
        ],
        facets={"outcome": outcome},
        value=outcome,
        fields=[["wrong answers", ", ".join(map(str, res.get("wrong_answers") or []))]]
        + [[k, v] for k, v in flatten({k: v for k, v in scored.items() if k != "id"})],
    )


def _read(path: Path) -> RunView:
    info = read_json(path / "run.json") or {}
    bench = str(info.get("benchmark", "?"))
    run, records = open_run(
        "ramdocs", f"{bench} run ({info.get('method', '?')})", path, "answers.jsonl"
    )
    run.provenance[:0] = [(k, v) for k, v in flatten(info) if k != "items"]
    files = [v for k, v in run.provenance if k == "data"]
    run.dataset = Path(files[0].split("  ")[0]).name if files else bench
    report = _report(run, info)
    scored = {str(i.get("id")): i for i in report.get("items") or []}
    run.items = items_of(path / "answers.jsonl", records, lambda r: _item(r, scored.get(r.id)))
    run.facets = ["outcome"]
    model = str(info.get("model") or "unpriced")
    tally(run, records, model)
    keys = REPORTS.get(bench, ("", "", ()))[2]
    for key in keys:
        if key in report:
            run.headlines.append(headline(key.replace("_", " "), report, key, percent=True))
    figures = (report.get("published") or {}).get("figures") or {}
    if run.headlines and run.headlines[0].value is not None:
        first = run.headlines[0]
        rows: list[tuple[str, float | None]] = [(f"measured: {model} (n={first.n})", first.value)]
        rows += [(f"paper: {name}", float(v)) for name, v in figures.items()]
        intervals: list[tuple[float, float] | None] = [None] * len(rows)
        if first.low is not None and first.high is not None:
            intervals[0] = (first.low, first.high)  # the run's own interval; the paper has none
        column = (report.get("published") or {}).get("column", "Table 1")
        sub = f"n = {first.n} questions \u00b7 model {model} \u00b7 {run.dataset}"
        sub += f" \u00b7 paper: {column}"
        title = f"{first.name} (%), measured beside published"
        run.charts.append(
            Chart(
                title,
                hbar_svg(
                    title,
                    sub,
                    rows,
                    x_label="%",
                    y_label="model",
                    x_max=100.0,
                    intervals=intervals,
                ),
            )
        )
    return run


KIND = RunKind(
    "ramdocs",
    "RAMDocs / AmbigDocs / FaithEval run",
    has_files("answers.jsonl", "run.json"),
    _read,
    priority=20,
)
