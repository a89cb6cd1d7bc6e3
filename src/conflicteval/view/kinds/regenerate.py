"""``conflicteval regenerate`` runs: conflict-feedback regeneration (paper Tables 4 and 5).

The directory holds ``checkpoint.jsonl`` (per question and format: the RAG, control and
final answers, the main claim's supporting / contradicting documents), ``summary.json``
(the tables' rows: truthful / informative / accuracy per method) and ``tables.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..common import (
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
from ..svg import hbar_svg


def _answer(part: Any) -> str:
    if not isinstance(part, dict):
        return ""
    verdict = part.get("correct", part.get("truthful"))
    mark = "" if verdict is None else " (correct)" if verdict else " (wrong)"
    return f"{part.get('answer', '')}{mark}"


def _item(rec: Any) -> dict[str, Any]:
    res = rec.result if isinstance(rec.result, dict) else {}
    final: dict[str, Any] = res["final"] if isinstance(res.get("final"), dict) else {}
    correct = final.get("correct", final.get("truthful"))
    return record_item(
        rec,
        rec.error or res.get("score_error"),
        question=res.get("question"),
        gold=[str(o) for o in res.get("options") or []] or None,
        response=final.get("answer"),
        conflicted=res.get("conflicted"),
        facets={
            "format": res.get("mode", rec.id.split(":")[0]),
            "conflicted": "yes" if res.get("conflicted") else "no",
            "final": "failed"
            if rec.status != "ok"
            else "unjudged"
            if correct is None
            else "correct"
            if correct
            else "wrong",
        },
        value="failed" if rec.status != "ok" else _answer(final),
        fields=[
            ["gold", res.get("gold")],
            ["RAG answer", _answer(res.get("rag"))],
            ["control answer", _answer(res.get("control"))],
            ["main claim", res.get("main_claim")],
            ["supporting documents", ", ".join(map(str, res.get("supporting") or []))],
            ["contradicting documents", ", ".join(map(str, res.get("contradicting") or []))],
            ["regenerated", _answer(res.get("regenerated")) or "not regenerated"],
            ["final answer", _answer(final)],
        ],
    )


def _paper(mode: str, method: str, key: str) -> float | None:
    """The paper's figure for one bar (Table 4 free-form, Table 5 binary choice), or None."""
    from conflicteval.conflictbench.regen_tables import PAPER_TABLE4, PAPER_TABLE5

    if mode == "free" and method in PAPER_TABLE4 and key in ("truthful", "informative"):
        return PAPER_TABLE4[method][0 if key == "truthful" else 1]
    if mode == "choice" and key == "accuracy":
        return PAPER_TABLE5.get(method)
    return None


def _roles(run: RunView) -> str:
    """Each model with the role the run's identity gives it (``answering: openai/x``)."""
    roles = []
    for key, value in run.provenance:
        parts = key.split(".")
        if parts[-1] == "model" and "/" in value:
            role = parts[-2] if len(parts) > 1 else "model"
            role = "answering" if role == "model" else role  # the identity's own model
            if (role, value) not in roles:
                roles.append((role, value))
    return " \u00b7 ".join(f"{r}: {v}" for r, v in roles) or "model ?"


def _read(path: Path) -> RunView:
    run, records = open_run("regenerate", "Regeneration run", path)
    summary = read_json(path / "summary.json") or {}
    run.dataset = "TruthfulQA"
    run.items = lazy_items(path / "checkpoint.jsonl", records, _item)
    run.facets = ["format", "conflicted", "final"]
    models = models_in(run.provenance)
    tally(run, records, models[0] if len(models) == 1 else "unpriced")
    for mode, table in (("free", "Table 4"), ("choice", "Table 5")):
        rows = [r for r in summary.get(mode) or [] if isinstance(r, dict) and r.get("n")]
        bars: list[tuple[str, float | None]] = []
        whiskers: list[tuple[float, float] | None] = []
        paper: list[float | None] = []
        for row in rows:
            for key in ("truthful", "informative", "accuracy"):
                if row.get(key) is not None:
                    name = f"{key}, {row['method']} ({mode})"
                    line = headline(name, row, key, n=row["n"], percent=True)
                    run.headlines.append(line)
                    bars.append((f"{row['method']} {key} (n={row['n']})", row[key]))
                    paper.append(_paper(mode, str(row["method"]), key))
                    whiskers.append(
                        (line.low, line.high)
                        if line.low is not None and line.high is not None
                        else None
                    )
        if bars:
            sub = f"n = {rows[0]['n']} questions \u00b7 {_roles(run)} \u00b7 {run.dataset}"
            title = f"{'Free-form' if mode == 'free' else 'Binary choice'} ({table} layout)"
            run.charts.append(
                Chart(
                    title,
                    hbar_svg(
                        title,
                        sub,
                        bars,
                        x_label="% of questions",
                        y_label="method",
                        x_max=100.0,
                        intervals=whiskers,
                        reference=paper if any(v is not None for v in paper) else None,
                        reference_name=f"paper ({table}, 779 questions)",
                    ),
                )
            )
    return run


KIND = RunKind(
    "regenerate",
    "Regeneration run (conflicteval regenerate)",
    has_files("checkpoint.jsonl", "tables.md"),
    _read,
    priority=20,
)
