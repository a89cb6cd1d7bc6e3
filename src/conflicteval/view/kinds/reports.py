"""``conflicteval reports`` runs: reports written per model x setting, scored by ConflictScore
(paper Table 3).

The directory holds ``checkpoint.jsonl`` (per report: the text and its ScoreResult),
``rows.json`` (mean CS-C / CS-R per model x setting), ``table3.md`` and ``data.json`` (the
items file and its sha256, read for the documents and questions when still there).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflicteval.conflictscore.score_results import score_text
from conflicteval.types import Usage

from ..common import (
    bench_items_by_id,
    counts_of,
    failure_reasons,
    headline,
    input_file,
    lazy_items,
    models_in,
    open_run,
    read_json,
    record_item,
    usage_view,
)
from ..model import Chart, RunView
from ..registry import RunKind, has_files
from ..svg import histogram_svg
from .conflictscore import grid_of, grid_signature


def _item(rec: Any, bench: dict[str, Any]) -> dict[str, Any]:
    res = rec.result if isinstance(rec.result, dict) else {}
    model, setting, item_id = ([*rec.id.split("|"), "", "", ""])[:3]
    score = res.get("score") or {}
    agg = score.get("aggregate") or {}
    ok = rec.status == "ok" and not res.get("score_error")
    item = record_item(
        rec,
        rec.error or res.get("score_error"),
        facets={"model": res.get("model", model), "setting": res.get("setting", setting)},
        conflicted=(agg.get("n_conflicted") or 0) > 0 if agg else None,
        value="failed"
        if not ok
        else f"CS-C {score_text(res.get('cs_c'))} \u00b7 CS-R {score_text(res.get('cs_r'))}",
        numbers={"CS-C": res.get("cs_c"), "CS-R": res.get("cs_r")},  # sortable columns
        response=res.get("report"),
        fields=[
            ["CS-C", res.get("cs_c")],
            ["CS-R", res.get("cs_r")],
            ["claims", res.get("n_claims")],
            ["conflicted claims", res.get("n_conflicted")],
            ["failed pairs", res.get("n_failed_pairs")],
            ["main entity", res.get("main_entity")],
            ["finish reason", res.get("finish_reason")],
        ],
    )
    it = bench.get(res.get("item_id", item_id))
    if it is not None:
        item["question"] = it.question
        item["documents"] = [{"id": d.id, "title": d.title, "text": d.text} for d in it.documents]
    if score.get("labels"):
        item["grid"] = grid_of(score)
        if ok:
            item["value"] += " \u00b7 " + grid_signature(item["grid"])
    return item


def _read(path: Path) -> RunView:
    run, records = open_run("reports", "ConflictBench reports run", path)
    source = input_file(path)
    run.dataset = source.name if source is not None else "ConflictBench"
    # the items file's items are held by id: a ConflictBench items file (the data set, not
    # the run) is bounded; the records and the page's items are read one at a time
    bench = bench_items_by_id(run, path, "documents not shown")
    run.items = lazy_items(path / "checkpoint.jsonl", records, lambda r: _item(r, bench))
    run.facets = ["model", "setting"]
    run.counts = counts_of(records)
    # one pass over the items: the failed ones' reasons and each cell's scores (numbers)
    failed: list[tuple[str, str]] = []
    cells: dict[tuple[Any, Any], tuple[list[float], list[float]]] = {}
    for i in run.items:
        if i["error"]:
            failed.append((i["id"], i["error"]))
        cs_c, cs_r = i["fields"][0][1], i["fields"][1][1]
        cell = cells.setdefault((i["facets"]["model"], i["facets"]["setting"]), ([], []))
        cell[0].extend([float(cs_c)] if cs_c is not None else [])
        cell[1].extend([float(cs_r)] if cs_r is not None else [])
    run.failures = failure_reasons(failed)
    per_model: dict[str, Usage] = {}
    models = {
        k.split(".")[1]: v
        for k, v in run.provenance
        if k.startswith("models.") and k.endswith(".model")
    }
    for r in records:
        name = r.id.split("|")[0]
        per_model.setdefault(models.get(name, name), Usage()).add(r.usage)
    run.usage = usage_view(per_model)
    rows = read_json(path / "rows.json") or []
    series: list[tuple[str, list[float]]] = []
    series_r: list[tuple[str, list[float]]] = []
    for row in rows if isinstance(rows, list) else []:
        label = f"{row.get('model')} / {row.get('setting')}"
        run.headlines.append(headline(f"CS-C, {label}", row, "cs_c", n=row.get("scored")))
        run.headlines.append(headline(f"CS-R, {label}", row, "cs_r", n=row.get("scored")))
        cs_c, cs_r = cells.get((row.get("model"), row.get("setting")), ([], []))
        series.append((label, cs_c))
        series_r.append((label, cs_r))
    labeler = next((v for k, v in run.provenance if k == "scorer.labeler.labeler"), "labeler")
    sub = (
        f"n = {len(run.items)} reports \u00b7 models {', '.join(models_in(run.provenance))} "
        f"\u00b7 labeler {labeler} \u00b7 {run.dataset}"
    )
    run.charts = [
        Chart(
            "CS-C per model and setting",
            histogram_svg(
                "CS-C per report, by model and setting",
                sub,
                series,
                x_label="CS-C (lower is better)",
                y_label="share of reports (%)",
            ),
        ),
        Chart(
            "CS-R per model and setting",
            histogram_svg(
                "CS-R per report, by model and setting",
                sub,
                series_r,
                x_label="CS-R (lower is better)",
                y_label="share of reports (%)",
            ),
        ),
    ]
    return run


KIND = RunKind(
    "reports",
    "ConflictBench reports run (conflicteval reports)",
    has_files("checkpoint.jsonl", "rows.json"),
    _read,
    priority=20,
)
