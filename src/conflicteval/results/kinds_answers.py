"""Contract builders of WikiContradict (generate, judge), FEVEROUS verify, RAMDocs /
AmbigDocs / FaithEval runs and the labeler bench."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conflicteval.results.build import (
    SUMMARY_FILE,
    build_summary,
    cost_with,
    counts_of,
    data_of,
    item_record,
    mean_metric,
    write_run,
)
from conflicteval.results.contract import (
    Cost,
    Instrument,
    ItemRecord,
    Metric,
    ModelUse,
    RunSummary,
)
from conflicteval.results.kinds import (
    column,
    instrument_of,
    model_use,
    protocol_metric,
    write_batch_run,
)
from conflicteval.types import Usage

__all__ = [
    "write_bench",
    "write_feverous",
    "write_question_run",
    "write_wikicontradict_generated",
    "write_wikicontradict_judged",
]

_VERDICTS = {
    "correct": "correct",
    "partially correct": "partially_correct",
    "incorrect": "incorrect",
}


def write_wikicontradict_generated(
    out: str | os.PathLike[str], batch: Any, models: Sequence[Any], **timing: Any
) -> RunSummary:
    """The contract of a WikiContradict run generated and not judged yet: the shares of
    the judge's labels are null with the note "not judged" (never 0 %)."""
    metrics = [
        Metric(
            id=f"share.{key}",
            name=f"{verdict} %",
            value=None,
            n=0,
            n_counts="judged answers",
            unit="percent",
            scale=100.0,
            items="binary",
            note="not judged",
        )
        for verdict, key in _VERDICTS.items()
    ]
    return write_batch_run(
        "wikicontradict",
        out,
        batch,
        metrics=metrics,
        models=[model_use("answering", m) for m in models],
        usages=[("answering", batch.usage)],
        **timing,
    )


def write_wikicontradict_judged(
    out: str | os.PathLike[str], batch: Any, judge: Any, **timing: Any
) -> RunSummary:
    """The contract of a judged WikiContradict run: the share of each label over the judged
    answers (per item: that label or not), with the judge as the instrument."""

    def values(rec: Any) -> dict[str, Any]:
        res = rec.result if isinstance(rec.result, dict) else {}
        label = res.get("label")
        return {
            f"share.{k}": (None if label is None else float(label == v))
            for v, k in _VERDICTS.items()
        }

    def metrics(items: list[ItemRecord]) -> list[Metric]:
        return [
            mean_metric(
                f"share.{key}",
                f"{verdict} %",
                column(items, f"share.{key}"),
                "judged answers",
                unit="percent",
                scale=100.0,
                binary=True,
                lower_is_better=verdict == "incorrect",
            )
            for verdict, key in _VERDICTS.items()
        ]

    model = getattr(judge, "model", None)
    settings = getattr(judge, "settings", None) if model is not None else None
    answering = {rec.id.split("|", 1)[0] for rec in batch.records}

    def id_of(rec: Any) -> str:
        # one answering model: the item is its template and instance (``t5|12``), so two
        # runs of different models pair item by item in ``compare``; several: the full id
        return rec.id.split("|", 1)[1] if len(answering) == 1 and "|" in rec.id else rec.id

    answer_rows, answering_models, unpriced = _answering_stage(out)
    summary = write_batch_run(
        "wikicontradict",
        out,
        batch,
        values_of=values,
        id_of=id_of,
        metrics=metrics,
        models=[*answering_models, model_use("judge", model, settings)]
        if model is not None
        else answering_models,
        instruments=[_judge_instrument(judge, settings)],
        usages=[("judge", batch.usage)],
        **timing,
    )
    if not answer_rows:
        return summary
    # the run's money is its answers' and its grades': the generation's rows, as the generate
    # command recorded and printed them, beside the judge's of this command
    summary = summary.model_copy(update={"cost": cost_with(summary.cost, answer_rows, unpriced)})
    write_run(out, summary)
    return summary


def _answering_stage(out: str | os.PathLike[str]) -> tuple[list[Any], list[ModelUse], list[str]]:
    """The answering rows of the money, the answering models and their unpriced names, as the
    run's ``summary.json`` holds them (written by ``wikicontradict generate``, or by an
    earlier judging, which kept them); nothing when it holds none."""
    try:
        earlier = json.loads((Path(out) / SUMMARY_FILE).read_text(encoding="utf-8"))
        cost = Cost.model_validate(earlier["cost"])
        models = [ModelUse.model_validate(m) for m in earlier.get("models", [])]
    except (OSError, ValueError, KeyError, TypeError):
        return [], [], []
    rows = [
        r if r.made_by else r.model_copy(update={"made_by": "wikicontradict generate"})
        for r in cost.per_model
        if r.role == "answering"
    ]
    names = {name for r in rows for name in r.model.split(" + ")}
    return (
        rows,
        [m for m in models if m.role == "answering"],
        [u for u in cost.unpriced if u in names],
    )


def _judge_instrument(judge: Any, settings: Any) -> Instrument:
    # a judge's agreement with human labels is measured by 'wikicontradict calibrate',
    # which saves no measurement for a run to read: the judge is said to be unmeasured
    return Instrument(
        role="judge", name=str(getattr(judge, "name", judge)), settings=dict(settings or {})
    )


def write_feverous(
    out: str | os.PathLike[str], result: Any, labeler: Any, **timing: Any
) -> RunSummary:
    """The contract of a ``feverous verify`` run: label accuracy (failed claims wrong, as
    the protocol counts them), over the answered claims (per item), and macro-F1."""
    m = result.metrics
    items: list[ItemRecord] = []
    status_counts: dict[str, int] = {}
    undecided = 0
    for rec in result.records:
        status = (
            rec.status
            if rec.status in ("ok", "parse_error", "model_error", "pending")
            else "not_scored"
        )
        if status == "not_scored":
            undecided += 1
        status_counts[status if status != "not_scored" else "ok"] = (
            status_counts.get(status if status != "not_scored" else "ok", 0) + 1
        )
        value = None
        if rec.status == "ok" and rec.label is not None:
            value = float(rec.predicted_label == rec.label)
        error = "; ".join(rec.errors) if getattr(rec, "errors", None) else None
        items.append(
            item_record(rec.id, status, error=error, values={"label_accuracy_answered": value})
        )
    metrics = [
        protocol_metric("label_accuracy", "label accuracy", m.label_accuracy, m.label_accuracy_ci,
                        m.n, "claims with a gold label (failed claims count as wrong)"),
        protocol_metric("label_accuracy_answered", "label accuracy of answered claims",
                        m.label_accuracy_answered, None, m.n_answered,
                        "claims with a gold label and a verdict", items="binary"),
        protocol_metric("macro_f1", "macro-F1 (SUPPORTS, REFUTES)", m.macro_f1, m.macro_f1_ci,
                        m.n, "claims with a gold label"),
    ]  # fmt: skip
    summary = build_summary(
        "feverous",
        counts=counts_of(
            status_counts, {"undecided (failed pairs left the relation open)": undecided}
        ),
        metrics=metrics,
        models=_model_of(labeler, "labeler"),
        instruments=[instrument_of("labeler", labeler)],
        usages=[("labeler", result.usage)],
        data=data_of(out, len(items)),
        **timing,
    )
    write_run(out, summary, items)
    return summary


def _model_of(part: Any, role: str) -> list[ModelUse]:
    model = getattr(part, "model", None)
    return [model_use(role, model)] if model is not None and getattr(model, "name", None) else []


def write_question_run(
    out: str | os.PathLike[str],
    report: Mapping[str, Any],
    usage: Usage | None = None,
    **timing: Any,
) -> RunSummary:
    """The contract of a RAMDocs / AmbigDocs (kind ``ramdocs``) or FaithEval (kind
    ``faitheval``) run from its report (``ramdocs_report`` / ``faitheval_report``)."""
    faitheval = report.get("benchmark") == "faitheval"
    figures = ("accuracy_strict", "accuracy_non_strict") if faitheval else ("exact_match",)
    per_item = {
        "accuracy_strict": "strict",
        "accuracy_non_strict": "non_strict",
        "exact_match": "em",
    }
    published = report.get("published", {}).get("figures") or {}
    items: list[ItemRecord] = []
    not_scored = 0
    for it in report.get("items", []):
        values = {f: it.get(per_item[f]) for f in figures}
        scored = any(v is not None for v in values.values())
        not_scored += not scored
        items.append(item_record(it["id"], "ok" if scored else "not_scored",
                                 error=it.get("reason"), values=values))  # fmt: skip
    failed = dict(report.get("failed", {}))
    failed.pop("unscorable", None)  # answered, but the question has no gold: not scored
    status_counts = {"ok": len(items), **failed}
    metrics = []
    for f in figures:
        fig = report[f]
        metrics.append(
            protocol_metric(
                f,
                f.replace("_", " ") + " %",
                fig["value"],
                fig["ci"],
                fig["n"],
                "answered questions scored",
                unit="percent",
                scale=100.0,
                items="binary",
                published={f"Table 1, {m}": v for m, v in published.items()}
                if not faitheval
                else {},
            )
        )
    decoding = report.get("decoding") if isinstance(report.get("decoding"), dict) else None
    summary = build_summary(
        "faitheval" if faitheval else "ramdocs",
        counts=counts_of(status_counts, {"no gold answer": not_scored} if not_scored else None),
        metrics=metrics,
        models=[model_use("answering", str(report.get("model")), decoding)]
        if report.get("model")
        else [],
        usages=[("answering", usage)] if usage is not None else [],
        data=data_of(out, report.get("questions")),
        **timing,
    )
    write_run(out, summary, items)
    return summary


def rewrite_question_run(out: str | os.PathLike[str], report: Mapping[str, Any]) -> RunSummary:
    """Rewrite the contract of a re-scored RAMDocs / AmbigDocs / FaithEval run from ``report``.

    A report reads the run's answers again (with today's scoring rules) and makes no answering
    call, so the figures, counts and items come from ``report`` while the money, the tokens
    and the times stay the ones the run recorded in its ``summary.json`` (none when it has
    none): the contract then says what the report printed, for the run that made the answers.
    """
    path = Path(out) / SUMMARY_FILE
    earlier: dict[str, Any] = {}
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        earlier = {}
    summary = write_question_run(out, report)
    kept: dict[str, Any] = {
        key: earlier[key]
        for key in ("cost", "started_at", "finished_at", "elapsed_s", "latency")
        if isinstance(earlier, dict) and key in earlier
    }
    if not kept:
        return summary
    fields = summary.model_dump(mode="json", by_alias=True)
    fields.update(kept)
    kept_summary = RunSummary.model_validate(fields)
    write_run(out, kept_summary)
    return kept_summary


def write_bench(
    out: str | os.PathLike[str], result: Any, labeler: Any, **timing: Any
) -> RunSummary:
    """The contract of a ``bench labeler`` run: accuracy and macro-F1 over the gold pairs
    (failed pairs wrong), and per item the share of its pairs labelled right."""
    m = result.metrics
    items: list[ItemRecord] = []
    status_counts: dict[str, int] = {}
    for rec in result.records:
        status_counts[rec.status] = status_counts.get(rec.status, 0) + 1
        value = None
        if rec.status == "ok" and rec.gold:
            value = sum(1.0 for g, p in zip(rec.gold, rec.labels, strict=False) if g == p) / len(
                rec.gold
            )
        items.append(item_record(rec.id, rec.status, error="; ".join(rec.errors) or None,
                                 values={"item_accuracy": value}))  # fmt: skip
    # n names the unit the interval resampled (gold items, each a claim with its pairs), as
    # the bench's own report and the viewer say; the pairs behind it are named beside it
    units = m.units or m.n
    over = f"gold items resampled ({m.n} gold pairs; failed pairs count as wrong)"
    metrics = [
        protocol_metric("accuracy", "accuracy over pairs", m.accuracy, m.accuracy_ci, units,
                        over),
        protocol_metric("macro_f1", "macro-F1", m.macro_f1, m.macro_f1_ci, units, over),
        mean_metric("item_accuracy", "mean share of an item's pairs right",
                    column(items, "item_accuracy"), "gold items labelled"),
    ]  # fmt: skip
    summary = build_summary(
        "bench",
        counts=counts_of(status_counts),
        metrics=metrics,
        models=_model_of(labeler, "labeler"),
        instruments=[instrument_of("labeler", labeler)],
        usages=[("labeler", result.usage_this_run)],
        data=_gold_input(result),
        **timing,
    )
    write_run(out, summary, items)
    return summary


def _gold_input(result: Any) -> list[Any]:
    from pathlib import Path

    from conflicteval.results.contract import DataInput

    path = Path(result.gold_path) if result.gold_path else None
    sha = None
    if path is not None and path.is_file():
        from conflicteval.data.fetch import sha256_file

        sha = sha256_file(path)
    return [DataInput(name=result.gold, path=str(path) if path else None, sha256=sha,
                      items=len(result.records))]  # fmt: skip
