"""``conflicteval conflictbench detect`` runs: conflict detection per source (paper Table 2).

The directory holds ``checkpoint.jsonl`` (per item: gold and predicted conflict, the
labels), ``metrics.json`` (per source and overall) and ``data.json`` (the items file and
its sha256). Claims and documents come from that items file when it is still there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..common import (
    LABEL_LETTER,
    bench_items_by_id,
    current_sources,
    headline,
    lazy_items,
    models_in,
    open_run,
    read_json,
    record_item,
    tally,
)
from ..model import Chart, RunView
from ..registry import RunKind, has_files
from ..svg import confusion_svg, hbar_svg


def _item(rec: Any, bench: Any) -> dict[str, Any]:
    res = rec.result if rec.status == "ok" and isinstance(rec.result, dict) else {}
    gold = res.get("gold_conflict", getattr(bench, "conflict", None))
    pred = res.get("pred_conflict")
    source = res.get("source") or getattr(bench, "source", "?")
    labels = res.get("labels") or []
    errors = res.get("pair_errors") or []
    item = record_item(
        rec,
        rec.error,
        conflicted=gold,
        facets={
            "source": source,
            "gold": _yn(gold),
            "predicted": "failed" if rec.status != "ok" else _yn(pred),
            "outcome": _outcome(gold, pred) if rec.status == "ok" else "failed",
        },
        value="failed" if rec.status != "ok" else f"predicted {_yn(pred)}",
    )
    if bench is not None:
        item["question"] = bench.question
        docs = bench.to_documents()
        item["documents"] = [{"id": d.id, "title": d.title, "text": d.text} for d in docs]
        golds = res.get("gold") or [d.gold for d in bench.documents]
        cells = []
        details = res.get("pairs") or []
        # ``pair_errors`` holds one reason per failed pair, in document order: the k-th
        # reason belongs to the k-th document without a label
        failed = [j for j in range(len(docs)) if not (j < len(labels) and labels[j])]
        reason = dict(zip(failed, errors, strict=False))
        for j, _ in enumerate(docs):
            label = labels[j] if j < len(labels) else None
            detail = details[j] if j < len(details) and isinstance(details[j], list) else []
            snippet, reasoning, _error, raw = (list(detail) + [None] * 4)[:4]
            error = None if label else reason.get(j)
            cells.append(
                [LABEL_LETTER.get(str(label)) if label else None, snippet, reasoning, error, raw]
            )
        item["grid"] = {
            "claims": [bench.claim],
            "docs": [d.id for d in docs],
            "cells": [cells],
            "gold": [[LABEL_LETTER.get(str(g)) for g in golds]],
        }
    return item


def _yn(v: Any) -> str:
    return "undetermined" if v is None else "conflict" if v else "no conflict"


def _outcome(gold: Any, pred: Any) -> str:
    if pred is None or gold is None:
        return "undetermined"
    return ("true " if gold == pred else "false ") + ("positive" if pred else "negative")


def _read(path: Path) -> RunView:
    from conflicteval.conflictbench.metrics import PAPER_TABLE2

    run, records = open_run("detect", "ConflictBench detection run", path)
    metrics = read_json(path / "metrics.json") or {}
    files = [v for k, v in run.provenance if k == "data"]
    run.dataset = Path(files[0].split("  ")[0]).name if files else "ConflictBench"
    from conflicteval.conflictbench.detect import detect_inputs

    # the items file's items are held by id: a ConflictBench items file (the data set, not
    # the run) is bounded; the records and the page's items are read one at a time
    bench = bench_items_by_id(run, path, "claims not shown")
    # an item's claim and documents are shown only beside labels made from them
    current = current_sources(
        run,
        records,
        bench,
        detect_inputs,
        what="items file",
        shown="their claims and documents are not shown",
    )
    run.items = lazy_items(
        path / "checkpoint.jsonl", records, lambda r: _item(r, current.get(r.id))
    )
    run.facets = ["source", "gold", "predicted", "outcome"]
    models = models_in(run.provenance)
    tally(run, records, models[0] if models else "offline")
    overall = metrics.get("overall") or {}
    n = overall.get("tp", 0) + overall.get("fp", 0) + overall.get("fn", 0) + overall.get("tn", 0)
    for key, name in (
        ("f1", "F1"),
        ("precision", "precision"),
        ("recall", "recall"),
        ("accuracy", "accuracy"),
    ):
        run.headlines.append(headline(f"{name} (overall)", overall, key, n=n))
    labeler = next(
        (v for k, v in run.provenance if k.endswith("labeler") or k.endswith("labeler.name")),
        "labeler",
    )
    who = ", ".join(models) or labeler
    sub = f"n = {n} scored items \u00b7 {who} \u00b7 {run.dataset}"
    run.charts.append(
        Chart(
            "Detection confusion",
            confusion_svg(
                "Conflict detection: gold vs predicted (overall)",
                sub,
                ["conflict", "no conflict"],
                [
                    [overall.get("tp", 0), overall.get("fn", 0)],
                    [overall.get("fp", 0), overall.get("tn", 0)],
                ],
            ),
        )
    )
    sources = [k for k in metrics if k != "overall"] + (["overall"] if "overall" in metrics else [])
    rows = [(f"{s} (n={_n(metrics[s])})", metrics[s].get("f1")) for s in sources]
    intervals = [_interval(metrics[s].get("f1_ci")) for s in sources]
    paper = [PAPER_TABLE2[s][2] if s in PAPER_TABLE2 else None for s in sources]
    run.charts.append(
        Chart(
            "F1 per source",
            hbar_svg(
                "Conflict-detection F1 per source, paper (GPT-4.1) beside measured",
                sub,
                rows,
                x_label="F1 (conflict is the positive class)",
                y_label="source",
                reference=paper if any(p is not None for p in paper) else None,
                reference_name="paper, GPT-4.1 (Table 2)",
                intervals=intervals,
            ),
        )
    )
    return run


def _interval(ci: Any) -> tuple[float, float] | None:
    """A recorded ``[low, high]`` as a pair (None when absent or not two numbers)."""
    if isinstance(ci, list) and len(ci) == 2 and all(isinstance(v, int | float) for v in ci):
        return float(ci[0]), float(ci[1])
    return None


def _n(m: dict[str, Any]) -> int:
    return int(m.get("tp", 0) + m.get("fp", 0) + m.get("fn", 0) + m.get("tn", 0))


KIND = RunKind(
    "detect",
    "ConflictBench detection run",
    has_files("checkpoint.jsonl", "metrics.json", "table2.md"),
    _read,
    priority=20,
)
