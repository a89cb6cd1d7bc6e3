"""Benchmarking report writing with ConflictScore (paper §5, Table 3).

For each selected ConflictBench item (by default: conflicting ConflictingQA
items, as in the paper), each model and each prompt setting:

1. find the item's *main entity* (``item.meta["main_entity"]`` when present;
   else a model with the library's ``conflictbench_main_entity`` prompt, or the
   offline heuristic :func:`main_entity_heuristic`);
2. generate a report with the paper's prompt for the setting (Tables 8–10,
   verbatim) from the item's documents;
3. score the report with a :class:`~conflicteval.conflictscore.ConflictScorer`.

Per model × setting the table reports the mean per-report CS-C and CS-R, over
the reports where each is defined, each with a 95% percentile bootstrap interval
(those reports resampled 1,000 times, seed 0), next to how many reports were
generated, scored, undefined and failed. Every report is one item of
:func:`conflicteval.runs.run_batch` (checkpointed, resumable).

Documents are shown to the model as ``Document <n>: <title>`` then the text,
separated by blank lines (the paper does not print its format).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from conflicteval.conflictbench._prompts import load_prompt, render
from conflicteval.conflictbench.items import BenchItem
from conflicteval.conflictbench.main_entity import (  # noqa: F401 (the earlier import path)
    ENTITY_PROMPT,
    find_main_entities,
    main_entity_heuristic,
)
from conflicteval.formatting import MISSING, interval, number
from conflicteval.runs import BatchResult, RunOptions, Stage
from conflicteval.tables import markdown_table
from conflicteval.types import Decoding, Document, Usage

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

REPORT_PROMPTS: dict[str, str] = {
    "rag": "conflictbench_report_rag",
    "balanced": "conflictbench_report_balanced",
    "super_balanced": "conflictbench_report_super_balanced",
}
"""Setting → prompt file (paper Tables 8, 9 and 10)."""

SETTING_LABELS: dict[str, str] = {
    "rag": "RAG",
    "balanced": "RAG (Balanced)",
    "super_balanced": "RAG (Super-Balanced)",
}

PAPER_TABLE3: dict[str, tuple[float, float]] = {
    "GPT-4.1 / RAG": (0.5238, 0.1517),
    "GPT-4.1 / RAG (Balanced)": (0.5230, 0.1516),
    "GPT-4.1 / RAG (Super-Balanced)": (0.5430, 0.1715),
    "GPT-4.1-Nano / RAG": (0.5654, 0.1656),
    "GPT-4.1-Nano / RAG (Balanced)": (0.5315, 0.1530),
    "GPT-4.1-Nano / RAG (Super-Balanced)": (0.5673, 0.1715),
}
"""The paper's Table 3: mean (CS-C, CS-R) over 100 reports per model × setting."""

REPORT_SETTINGS = Decoding(temperature=0.0, max_tokens=800, seed=5)
"""Decoding of report writing: greedy, reports of at most 800 tokens (the paper prints neither)."""


def format_documents(documents: Sequence[Document]) -> str:
    """``Document 1: <title>`` + text blocks, separated by blank lines."""
    blocks = []
    for i, doc in enumerate(documents, start=1):
        head = f"Document {i}: {doc.title}" if doc.title else f"Document {i}:"
        blocks.append(f"{head}\n{doc.text.strip()}")
    return "\n\n".join(blocks)


def report_prompt(setting: str, main_entity: str, documents: Sequence[Document]) -> str:
    """The paper's report prompt for ``setting`` (Tables 8–10) filled in."""
    if setting not in REPORT_PROMPTS:
        raise ValueError(f"unknown setting {setting!r}; expected one of {list(REPORT_PROMPTS)}")
    return render(
        load_prompt(REPORT_PROMPTS[setting]),
        main_entity=main_entity,
        Documents=format_documents(documents),
    )


def select_report_items(
    items: Iterable[BenchItem],
    *,
    n: int | None = 100,
    seed: int = 0,
    source: str | None = "conflictingqa",
    conflict_only: bool = True,
) -> list[BenchItem]:
    """Sample the items to write reports about (paper: 100 conflicting ConflictingQA items).

    Args:
        items: ConflictBench items.
        n: How many (None: all that qualify).
        seed: Sampling seed.
        source: Only this source (None: any).
        conflict_only: Only items whose gold label is conflict.
    """
    pool = [
        it
        for it in items
        if (source is None or it.source == source) and (it.conflict or not conflict_only)
    ]
    pool.sort(key=lambda it: it.id)
    if n is None or n >= len(pool):
        return pool
    return random.Random(seed).sample(pool, n)


class ReportTask(BaseModel):
    """One report to write: an item, a model name and a setting."""

    id: str
    model: str
    setting: str
    item: BenchItem
    main_entity: str


def report_inputs(task: ReportTask) -> dict[str, Any]:
    """What one report's record is made from: the model and setting, the item (question,
    answer, documents) and the main entity the prompt names."""
    return task.model_dump(exclude={"id"})


def _score_fields(score: Any) -> dict[str, Any]:
    agg = score.aggregate
    return {
        "cs_c": score.cs_c,
        "cs_r": score.cs_r,
        "n_claims": len(score.claims),
        "n_conflicted": agg.n_conflicted if agg is not None else 0,
        "n_no_evidence": agg.n_no_evidence if agg is not None else 0,
        "n_failed_pairs": score.n_failed_pairs,
        "score_error": score.error,
        "score": score.model_dump(mode="json"),
    }


async def write_and_score(
    task: ReportTask,
    model: Any,
    scorer: Any,
    *,
    max_tokens: int = REPORT_SETTINGS["max_tokens"],
    temperature: float = REPORT_SETTINGS["temperature"],
) -> dict[str, Any]:
    """Generate one report and score it; the batch result of one task."""
    docs = task.item.to_documents()
    prompt = report_prompt(task.setting, task.main_entity, docs)
    out = await model.generate(
        [{"role": "user", "content": prompt}], temperature=temperature, max_tokens=max_tokens
    )
    score = await scorer.ascore(out.text, docs)
    return {
        "model": task.model,
        "setting": task.setting,
        "item_id": task.item.id,
        "main_entity": task.main_entity,
        "report": out.text,
        "finish_reason": out.finish_reason,
        **_score_fields(score),
    }


class ReportRow(BaseModel):
    """One row of the Table 3 layout.

    Attributes:
        model / setting: The row's model name and setting.
        cs_c / cs_r: Mean per-report CS-C / CS-R over the reports where each is defined.
        cs_c_ci / cs_r_ci: Their 95% percentile bootstrap intervals ``[low, high]``
            (the same reports resampled; None when the mean is None).
        reports: Tasks in the row.
        scored: Reports with a CS-C (decomposed and labelled).
        cs_r_undefined: Scored reports whose CS-R is undefined (no claim had evidence).
        score_errors: Reports generated but not scored (e.g. no claim found).
        failed: Tasks that failed (generation or a model call failed for good).
        failed_pairs: Claim-document pairs without a label, over the row.
    """

    model: str
    setting: str
    cs_c: float | None = None
    cs_r: float | None = None
    cs_c_ci: list[float] | None = None
    cs_r_ci: list[float] | None = None
    reports: int = 0
    scored: int = 0
    cs_r_undefined: int = 0
    score_errors: int = 0
    failed: int = 0
    failed_pairs: int = 0


def summarize_reports(
    records: Iterable[tuple[str, str, str, dict[str, Any] | None]],
) -> list[ReportRow]:
    """Mean CS-C / CS-R per model × setting (pure).

    Args:
        records: ``(model, setting, status, result)``; ``result`` is the
            :func:`write_and_score` dict for ``ok`` records, else None.

    Returns:
        Rows in first-seen model order, settings in RAG / Balanced / Super-Balanced order.
    """
    rows: dict[tuple[str, str], ReportRow] = {}
    values: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    models: list[str] = []
    for model, setting, status, result in records:
        key = (model, setting)
        if model not in models:
            models.append(model)
        row = rows.setdefault(key, ReportRow(model=model, setting=setting))
        cs_c, cs_r = values.setdefault(key, ([], []))
        row.reports += 1
        if status != "ok" or result is None:
            row.failed += 1
            continue
        row.failed_pairs += int(result.get("n_failed_pairs") or 0)
        if result.get("cs_c") is None:
            row.score_errors += 1
            continue
        row.scored += 1
        cs_c.append(float(result["cs_c"]))
        if result.get("cs_r") is None:
            row.cs_r_undefined += 1
        else:
            cs_r.append(float(result["cs_r"]))
    from conflicteval.stats import mean_ci

    order = list(REPORT_PROMPTS)
    out = []
    for model in models:
        for setting in sorted(
            {s for m, s in rows if m == model},
            key=lambda s: order.index(s) if s in order else len(order),
        ):
            row = rows[(model, setting)]
            cs_c, cs_r = values[(model, setting)]
            row.cs_c, row.cs_c_ci = mean_ci(cs_c)
            row.cs_r, row.cs_r_ci = mean_ci(cs_r)
            out.append(row)
    return out


_TABLE3_HEADER = (
    "Model / Setting",
    "CS-C",
    "CS-C 95% CI",
    "CS-R",
    "CS-R 95% CI",
    "Reports",
    "Scored",
    "CS-R undefined",
    "Not scored",
    "Failed",
    "Failed pairs",
)


def table3(rows: Sequence[ReportRow], *, paper: bool = False) -> str:
    """Markdown table in the layout of Table 3 (plus intervals and counts); ``paper``
    appends its rows, whose interval cells stay empty (the paper prints no interval)."""
    cells: list[list[object]] = [
        [
            f"{r.model} / {SETTING_LABELS.get(r.setting, r.setting)}",
            number(r.cs_c),
            interval(r.cs_c_ci, missing=MISSING),
            number(r.cs_r),
            interval(r.cs_r_ci, missing=MISSING),
            r.reports,
            r.scored,
            r.cs_r_undefined,
            r.score_errors,
            r.failed,
            r.failed_pairs,
        ]
        for r in rows
    ]
    if paper:
        cells += [
            [f"{label} (paper)", f"{csc:.4f}", "", f"{csr:.4f}", "", 100]
            for label, (csc, csr) in PAPER_TABLE3.items()
        ]
    return markdown_table(_TABLE3_HEADER, cells)


@dataclass
class ReportRun:
    """The outcome of :func:`run_reports`.

    Attributes:
        rows: Table 3 rows.
        batch: The runner's result (one record per model × setting × item).
        entity_failures: Items whose main-entity call failed (heuristic used).
        entity_usage: Token usage of finding main entities.
    """

    rows: list[ReportRow]
    batch: BatchResult
    entity_failures: list[str] = field(default_factory=list)
    entity_usage: Usage = field(default_factory=Usage)

    @property
    def usage(self) -> Usage:
        """Tokens of report writing, scoring and entity finding."""
        return self.batch.usage + self.entity_usage

    def table(self, *, paper: bool = False) -> str:
        """The Table 3 layout."""
        return table3(self.rows, paper=paper)

    def entity_line(self) -> str:
        """Main-entity failures and the tokens of the whole run (entities included), with
        their estimated cost."""
        from conflicteval.pricing import cost_text

        u = self.usage
        return (
            f"main entity: {len(self.entity_failures)} model failures "
            f"(heuristic used); total {u.calls} calls{u.truncated_note()}, "
            f"{u.tokens_text()}; {cost_text(u)}"
        )

    def summary(self) -> str:
        """Failures and tokens."""
        return f"{self.batch.summary()}\n{self.entity_line()}"


def plan_tasks(
    items: Sequence[BenchItem],
    model_names: Sequence[str],
    settings: Sequence[str],
    entities: Mapping[str, str],
) -> list[ReportTask]:
    """Every (model, setting, item) task, in model → setting → item order."""
    for s in settings:
        if s not in REPORT_PROMPTS:
            raise ValueError(f"unknown setting {s!r}; expected one of {list(REPORT_PROMPTS)}")
    return [
        ReportTask(
            id=f"{name}|{setting}|{item.id}",
            model=name,
            setting=setting,
            item=item,
            main_entity=entities[item.id],
        )
        for name in model_names
        for setting in settings
        for item in items
    ]


async def arun_reports(
    items: Sequence[BenchItem],
    models: Mapping[str, Any],
    scorer: Any,
    *,
    settings: Sequence[str] = ("rag", "balanced", "super_balanced"),
    entity_model: Any | None = None,
    checkpoint: str | PathLike[str] | None = None,
    max_tokens: int = REPORT_SETTINGS["max_tokens"],
    **run: Unpack[RunKeywords],
) -> ReportRun:
    """Write and score reports for every model × setting × item (async).

    Args:
        items: The items (see :func:`select_report_items`).
        models: ``{row name: model}`` (models from :func:`conflicteval.get_model`).
        scorer: A :class:`~conflicteval.conflictscore.ConflictScorer`.
        settings: Any of ``"rag"``, ``"balanced"``, ``"super_balanced"``.
        entity_model: Model that names each item's main entity (None: heuristic).
        checkpoint: JSONL checkpoint (resumable).
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency`` is
            reports in flight (default 8).
        max_tokens: Report length limit.
    """
    from conflicteval.fingerprint import text_version
    from conflicteval.models.core import usage_scope
    from conflicteval.runs.identity import describe

    with usage_scope() as entity_usage:
        entities, entity_failures = await find_main_entities(items, entity_model)
    tasks = plan_tasks(items, list(models), settings, entities)

    async def work(task: ReportTask) -> dict[str, Any]:
        return await write_and_score(task, models[task.model], scorer, max_tokens=max_tokens)

    stage = Stage(
        "reports",
        checkpoint,
        identity={
            "task": "conflictbench-reports",
            "models": describe(dict(models)),
            "entity_model": describe(entity_model),
            "scorer": describe(scorer),
            "max_tokens": max_tokens,
            "prompts": {k: text_version(load_prompt(v)) for k, v in REPORT_PROMPTS.items()},
        },
        inputs=report_inputs,
    )
    batch = await stage.run(
        work,
        tasks,
        RunOptions.of(run, concurrency=8),
    )
    rows = summarize_reports(
        (t.model, t.setting, rec.status, rec.result if rec.status == "ok" else None)
        for t, rec in zip(tasks, batch.records, strict=True)
    )
    return ReportRun(
        rows=rows, batch=batch, entity_failures=entity_failures, entity_usage=entity_usage
    )


def run_reports(
    items: Sequence[BenchItem], models: Mapping[str, Any], scorer: Any, **options: Any
) -> ReportRun:
    """Synchronous :func:`arun_reports` (same options)."""
    from conflicteval._sync import run_sync

    return run_sync(arun_reports(items, models, scorer, **options))
