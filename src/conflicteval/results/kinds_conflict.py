"""Contract builders of the ConflictScore family: ``score`` (kind ``conflictscore``) and
ConflictBench's ``detect``, ``reports`` and ``regenerate``."""

from __future__ import annotations

import os
from typing import Any

from conflicteval.results.contract import ItemRecord, Metric, RunSummary
from conflicteval.results.kinds import (
    column,
    instrument_of,
    model_use,
    protocol_metric,
    write_batch_run,
)

__all__ = [
    "write_conflictbench",
    "write_conflictscore",
    "write_detect",
    "write_regenerate",
    "write_reports",
]

_PCT = 100.0


def _result(rec: Any) -> dict[str, Any]:
    return rec.result if isinstance(rec.result, dict) else {}


def _scorer_models(scorer: Any) -> list[Any]:
    out = []
    for role, part in (("decomposer", scorer.decomposer), ("labeler", scorer.labeler)):
        model = getattr(part, "model", None)
        if model is not None and getattr(model, "name", None):
            out.append(model_use(role, model))
    return out


def write_conflictscore(
    out: str | os.PathLike[str],
    result: Any,
    scorer: Any,
    legacy: dict[str, Any] | None = None,
    *,
    started: float | None = None,
    latencies: Any = None,
) -> RunSummary:
    """The contract of a ``score`` run (mean CS-C and CS-R per response; the earlier
    summary's fields kept beside it for its readers)."""

    def values(rec: Any) -> dict[str, Any]:
        res = _result(rec)
        return {"cs_c_mean": res.get("cs_c"), "cs_r_mean": res.get("cs_r")}

    def metrics(items: list[ItemRecord]) -> list[Metric]:
        from conflicteval.results.build import mean_metric

        return [
            mean_metric(
                "cs_c_mean",
                "mean CS-C",
                column(items, "cs_c_mean"),
                "responses with a CS-C (at least one scored claim)",
                unit="score",
                lower_is_better=True,
            ),
            mean_metric(
                "cs_r_mean",
                "mean CS-R",
                column(items, "cs_r_mean"),
                "responses with a CS-R (at least one claim with evidence)",
                unit="score",
                lower_is_better=True,
            ),
        ]

    return write_batch_run(
        "conflictscore",
        out,
        result,
        values_of=values,
        unscored="no scored claim",
        metrics=metrics,
        models=_scorer_models(scorer),
        instruments=[instrument_of("labeler", scorer.labeler)],
        usages=[("scorer", result.usage)],
        started=started,
        latencies=latencies,
        extra={k: v for k, v in (legacy or {}).items() if k not in ("counts", "cost")},
    )


def write_detect(
    out: str | os.PathLike[str], run: Any, labeler: Any = None, **timing: Any
) -> RunSummary:
    """The contract of a ``conflictbench detect`` run: Table 2 overall (per-item outcome:
    the conflict prediction right or wrong; an undetermined prediction is not scored)."""
    overall = run.metrics["overall"]
    scored = overall.n_items - overall.failed_items

    def values(rec: Any) -> dict[str, Any]:
        res = _result(rec)
        pred = res.get("pred_conflict")
        return {"accuracy": None if pred is None else float(pred == res.get("gold_conflict"))}

    names = {
        "accuracy": ("accuracy (conflict vs no conflict)", "binary"),
        "precision": ("precision (Conflict)", None),
        "recall": ("recall (Conflict)", None),
        "f1": ("F1 (Conflict)", None),
        "acc_conf": ("accuracy on conflicting items", None),
        "acc_noconf": ("accuracy on non-conflicting items", None),
    }
    metrics = [
        protocol_metric(
            key,
            name,
            getattr(overall, key),
            getattr(overall, f"{key}_ci"),
            scored if getattr(overall, key) is not None else 0,
            "items with a prediction",
            items=items,
        )
        for key, (name, items) in names.items()
    ]
    return write_batch_run(
        "detect",
        out,
        run.batch,
        values_of=values,
        unscored="undetermined",
        metrics=metrics,
        models=_models_of(labeler, "labeler"),
        instruments=[instrument_of("labeler", labeler)] if labeler is not None else [],
        usages=[("labeler", run.batch.usage)],
        **timing,
    )


def _models_of(part: Any, role: str) -> list[Any]:
    model = getattr(part, "model", None)
    return [model_use(role, model)] if model is not None and getattr(model, "name", None) else []


def write_reports(out: str | os.PathLike[str], run: Any, **timing: Any) -> RunSummary:
    """The contract of a ``conflictbench reports`` run: mean CS-C / CS-R of the reports per
    model and setting (Table 3)."""

    def key(res: dict[str, Any]) -> str:
        return f"{res.get('model')}.{res.get('setting')}"

    def values(rec: Any) -> dict[str, Any]:
        res = _result(rec)
        return {f"cs_c_mean.{key(res)}": res.get("cs_c"), f"cs_r_mean.{key(res)}": res.get("cs_r")}

    metrics = []
    for row in run.rows:
        for fig in ("cs_c", "cs_r"):
            n = row.scored - (row.cs_r_undefined if fig == "cs_r" else 0)
            metrics.append(
                protocol_metric(
                    f"{fig}_mean.{row.model}.{row.setting}",
                    f"mean {fig.upper().replace('_', '-')} ({row.model}, {row.setting})",
                    getattr(row, fig),
                    getattr(row, f"{fig}_ci"),
                    max(n, 0) if getattr(row, fig) is not None else 0,
                    "reports with a value",
                    unit="score",
                    items="mean",
                    lower_is_better=True,
                )
            )
    return write_batch_run(
        "reports",
        out,
        run.batch,
        values_of=values,
        unscored="no scored claim",
        metrics=metrics,
        usages=[("reporter and scorer", run.batch.usage)],
        **timing,
    )


_METHOD_KEYS = {"RAG": "rag", "Control-RAG": "control", "Regenerated-RAG": "final"}


def write_regenerate(out: str | os.PathLike[str], run: Any, **timing: Any) -> RunSummary:
    """The contract of a ``conflictbench regenerate`` run: Tables 4 and 5 per method, the
    earlier summary's fields (the tables and flips) kept beside it for its readers."""

    def values(rec: Any) -> dict[str, Any]:
        res = _result(rec)
        out_values: dict[str, Any] = {}
        for method, k in _METHOD_KEYS.items():
            answer = res.get(k)
            if not isinstance(answer, dict):
                continue
            for fig, mid in (("truthful", "truthful"), ("informative", "informative"),
                             ("correct", "accuracy")):  # fmt: skip
                if fig in answer:
                    value = answer[fig]
                    out_values[f"{mid}.{method}"] = None if value is None else float(bool(value))
        return out_values

    s = run.summary
    metrics = []
    for mode, figs in (("free", ("truthful", "informative")), ("choice", ("accuracy",))):
        for row in getattr(s, mode):
            for fig in figs:
                missing = row.unparsed if fig == "accuracy" else getattr(row, f"unjudged_{fig}")
                metrics.append(
                    protocol_metric(
                        f"{fig}.{row.method}",
                        f"{fig} % ({row.method}, {mode})",
                        getattr(row, fig),
                        getattr(row, f"{fig}_ci"),
                        row.n - missing if getattr(row, fig) is not None else 0,
                        "answers judged" if fig != "accuracy" else "choices parsed",
                        unit="percent",
                        scale=_PCT,
                        items="binary",
                    )
                )
    return write_batch_run(
        "regenerate",
        out,
        run.batch,
        values_of=values,
        unscored="no scored main claim",
        metrics=metrics,
        usages=[("answering and scorer", run.batch.usage)],
        extra=s.model_dump(mode="json"),
        **timing,
    )


def write_conflictbench(
    writer: str, out: str | os.PathLike[str], run: Any, **timing: Any
) -> RunSummary:
    """The contract of a ConflictBench run, by the name of the writer of its files
    (``write_detection_files``, ``write_report_files``, ``write_regeneration_files``)."""
    if writer == "write_detection_files":
        return write_detect(out, run, getattr(run, "labeler", None), **timing)
    if writer == "write_report_files":
        return write_reports(out, run, **timing)
    if writer == "write_regeneration_files":
        return write_regenerate(out, run, **timing)
    raise ValueError(f"no run contract for {writer}")
