"""Dry runs of the ConflictBench commands: the calls a build, a detection, report
benchmarking or regeneration would make, counted without making them.

Calls that depend on earlier replies (scoring generated reports, regeneration, the
judges) cannot be listed in advance; each report's notes say which are not counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from conflicteval.conflictbench.items import BenchItem
from conflicteval.dryrun import DryRunReport, PlannedCall, dry_run


def build_dry_run(
    specs: list[tuple[str, str | None, dict[str, Any]]],
    *,
    seed: int,
    sizes: Mapping[str, tuple[int, int]] | None,
    writer: Any,
) -> tuple[str, int, DryRunReport | None]:
    """A build's Table 1 counts, its item count and (with a claim writer) its calls."""
    from conflicteval.conflictbench.assembly import assemble
    from conflicteval.conflictbench.builder import load_sources, table1
    from conflicteval.conflictbench.claims import claim_request

    by_source = load_sources(specs)
    counts = {}
    built = []
    for src, loaded in by_source.items():
        conf, noconf, _ = assemble(src, loaded, seed=seed, sizes=(sizes or {}).get(src))
        counts[src] = (len(conf), len(noconf))
        built += conf + noconf
    if writer is None:
        return table1(counts), len(built), None
    calls = [PlannedCall(writer.messages(claim_request(it)), writer.settings()) for it in built]
    return table1(counts), len(built), dry_run(writer.model, calls)


def detection_dry_run(items: Sequence[BenchItem], labeler: Any, model: Any) -> DryRunReport:
    """The labeler's calls over every item's claim and documents."""
    calls = [c for it in items for c in labeler.planned_calls([it.claim], it.to_documents())]
    return dry_run(model, calls)


def reports_dry_run(
    items: Sequence[BenchItem],
    models: Mapping[str, Any],
    settings: list[str],
    *,
    max_tokens: int,
    entity_model: Any,
) -> tuple[int, list[DryRunReport]]:
    """The report calls per model (main entities from the items or the offline heuristic)."""
    from conflicteval.conflictbench.report_benchmark import (
        main_entity_heuristic,
        plan_tasks,
        report_prompt,
    )

    entities = {
        it.id: it.meta.get("main_entity") or main_entity_heuristic(it.question) for it in items
    }
    tasks = plan_tasks(items, list(models), settings, entities)
    notes = ["scoring calls depend on the generated reports and are not counted"]
    if entity_model is not None:
        notes.append(
            "main entities here come from the offline heuristic; with --entity-model the "
            f"report prompts differ and {len(items)} entity calls are not counted"
        )
    reports = []
    for name, model in models.items():
        calls = [
            PlannedCall(
                [
                    {
                        "role": "user",
                        "content": report_prompt(t.setting, t.main_entity, t.item.to_documents()),
                    }
                ],
                {"temperature": 0.0, "max_tokens": max_tokens},
            )
            for t in tasks
            if t.model == name
        ]
        reports.append(dry_run(model, calls, notes))
    return len(tasks), reports


def regeneration_dry_run(
    questions: Sequence[Any],
    documents: Mapping[int, Sequence[Any]],
    modes: Any,
    *,
    max_docs: int | None,
    seed: int,
    model: Any,
) -> tuple[int, DryRunReport]:
    """The RAG and Control-RAG answer calls of every question-format item."""
    from conflicteval.conflictbench._prompts import load_prompt, render
    from conflicteval.conflictbench.regenerate import (
        CHOICE_MAX_TOKENS,
        FREE_MAX_TOKENS,
        PROMPTS,
        format_context,
        plan_regeneration,
    )

    tasks = plan_regeneration(questions, documents, modes, max_docs=max_docs)
    calls = []
    for t in tasks:
        a, b, _ = t.question.options(seed) if t.mode == "choice" else ("", "", "A")
        for kind in ("rag", "control"):
            text = render(
                load_prompt(PROMPTS[(t.mode, kind)]),
                question=t.question.question,
                context_text=format_context(t.documents),
                option_a=a,
                option_b=b,
            )
            limit = FREE_MAX_TOKENS if t.mode == "free" else CHOICE_MAX_TOKENS
            settings = {"temperature": 0.0, "max_tokens": limit}
            calls.append(PlannedCall([{"role": "user", "content": text}], settings))
    note = "scoring, regeneration and judge calls depend on the answers and are not counted"
    return len(tasks), dry_run(model, calls, [note])
