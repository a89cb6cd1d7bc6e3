"""``conflicteval wikicontradict generate`` / ``judge`` runs: verdict shares per template.

The directory holds ``generations.jsonl`` (+ ``plan.jsonl``), ``judgements.jsonl`` once
judged, and ``data.json`` (the data file and its sha256). The two passages with the
article's title come from that data file when it is still there; otherwise the prompt
(which holds them) is shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conflicteval.record_errors import reading_record
from conflicteval.types import Usage

from ..common import (
    LazyRecords,
    calls_of,
    counts_of,
    data_provenance,
    failure_reasons,
    identity_provenance,
    items_by_id,
    lazy_items,
    usage_view,
)
from ..model import Chart, Headline, RunView
from ..registry import RunKind, has_files
from ..svg import PALETTE, stacked_hbar_svg

VERDICTS = ("correct", "partially correct", "incorrect")
SEGMENTS = (*VERDICTS, "failed / ungraded")
COLORS = ("#3b8f5a", PALETTE[1], PALETTE[2], PALETTE[3])


def _instances(run: RunView, path: Path) -> dict[str, Any]:
    from conflicteval.wikicontradict.data import load_wikicontradict

    return items_by_id(run, path, load_wikicontradict, "data file", "passages shown in prompts")


def _item(g: Any, judged: Any, inst: Any) -> dict[str, Any]:
    res = judged.result if judged is not None and isinstance(judged.result, dict) else {}
    verdict = res.get("label") if judged is not None and judged.status == "ok" else None
    if g.status != "ok":
        status, error, outcome = g.status, f"generation: {g.error}", "generation failed"
    elif judged is None:
        status, error, outcome = "ok", None, "ungraded"
    elif judged.status != "ok":
        status, error, outcome = judged.status, f"judge: {judged.error}", "judge failed"
    else:
        status, error, outcome = "ok", None, str(verdict)
    item: dict[str, Any] = {
        "id": g.id,
        "status": status,
        "error": error,
        "raw": judged.raw if judged is not None and judged.status != "ok" else None,
        "facets": {
            "model": g.model,
            "template": g.template,
            "verdict": outcome,
            "type": g.contradiction_type,
        },
        "value": outcome,
        "question": g.question,
        "gold": list(g.answers),
        "response": g.response,
        "prompt": g.prompt,
    }
    if judged is not None:
        item.update(calls_of(judged))  # the judge's replies (the response is the answer's)
        item["judge"] = {
            "verdict": verdict or outcome,
            "comment": res.get("comment") or (judged.error if judged.status != "ok" else ""),
        }
    if inst is not None:
        item["title"] = inst.title
        item["documents"] = [
            {"id": "passage 1", "title": inst.title, "text": inst.passage_1},
            {"id": "passage 2", "title": inst.title, "text": inst.passage_2},
        ]
    return item


def _published(model: str, template: str) -> tuple[str, list[float]] | None:
    """The paper's human-graded shares for ``model`` (or GPT-4 as reference) and template."""
    from conflicteval.wikicontradict.published import match_model, published_table

    table = published_table("appendix_b" if template.startswith("5.") else "table2")
    if template not in table.templates:
        return None
    name = match_model(model, table.models)
    ref = name or ("GPT-4" if "GPT-4" in table.models else table.models[0])
    values = []
    for verdict in VERDICTS:
        found = table.select(model=ref, template=template, subset="all", label=verdict)
        values.append(float(found[0]["value"]) if found and found[0]["value"] is not None else 0.0)
    return f"paper: {ref}{'' if name else ' (ref.)'}", [*values, 0.0]


def _chart(
    groups: dict[tuple[str, str], Counter[str]], n_items: int, judge: str, dataset: str
) -> Chart:
    """The verdict shares per (template, model) of ``groups`` (outcomes counted)."""
    from conflicteval.wikicontradict.templates import TEMPLATE_NAMES

    order = sorted(
        groups, key=lambda k: (TEMPLATE_NAMES.index(k[0]) if k[0] in TEMPLATE_NAMES else 99, k)
    )
    rows: list[tuple[str, list[float]]] = []
    gaps: list[int] = []
    for template, model in order:
        outcomes = groups[(template, model)]
        n = sum(outcomes.values())
        shares = [100.0 * outcomes[v] / n for v in VERDICTS]
        rows.append((f"T{template} {model.split('/')[-1]} (n={n})", [*shares, 100.0 - sum(shares)]))
        pub = _published(model, template)
        if pub is not None:
            rows.append((f"T{template} {pub[0]}", pub[1]))
        gaps.append(len(rows) - 1)
    models = sorted({m for _, m in groups})
    sub = (
        f"n = {n_items} responses \u00b7 models {', '.join(models)} \u00b7 judge {judge} "
        f"\u00b7 {dataset} \u00b7 paper: human-graded, Table 2 / App. B"
    )
    svg = stacked_hbar_svg(
        "WikiContradict verdicts per template, measured beside published",
        sub,
        rows,
        SEGMENTS,
        x_label="% of responses (failed and ungraded counted)",
        y_label="template, model",
        colors=COLORS,
        gaps_after=gaps[:-1],
    )
    return Chart("WikiContradict verdict shares", svg)


def _grades(path: Path, gens: Sequence[Any]) -> tuple[LazyRecords, dict[str, int]]:
    """The judge's records and the offset of each current grade by id (a grade made for a
    response since regenerated is left out, as the report does); one record read at a time."""
    from conflicteval.wikicontradict.judge import current_grades

    with reading_record(path / "judgements.jsonl"):
        records = LazyRecords(path / "judgements.jsonl")
    offsets = records.offsets_by_id()
    current: dict[str, int] = {}
    for g in gens:
        off = offsets.get(g.id)
        if off is not None and current_grades({g.id: records.at(off)}, [g]):
            current[g.id] = off
    return records, current


def _read(path: Path) -> RunView:
    from conflicteval.wikicontradict.generate import read_generations
    from conflicteval.wikicontradict.report import share_ci

    run = RunView("wikicontradict", "WikiContradict run", str(path))
    # the generation rows are held: a run's rows are bounded by the data set (253 instances)
    # times the templates and models asked; the judge's records and the page's items are
    # read and made one at a time (only each current grade's offset is held)
    gens = read_generations(path)
    judgements, graded = _grades(path, gens)
    # the data set's instances are held by id: the data file is bounded, not the run's output
    instances = _instances(run, path)
    one_model = len({g.model for g in gens}) == 1

    def make(g: Any) -> dict[str, Any]:
        judged = judgements.at(graded[g.id]) if g.id in graded else None
        item = _item(g, judged, instances.get(g.instance_id))
        if one_model:  # runs of different models compare item by item: template and instance
            item["key"] = f"t{g.template}|{g.instance_id}"
        return item

    run.items = lazy_items(path / "generations.jsonl", gens, make)
    run.facets = ["model", "template", "verdict", "type"]
    run.provenance = (
        [("generation." + k, v) for k, v in identity_provenance(path / "generations.jsonl")]
        + [("judge." + k, v) for k, v in identity_provenance(path / "judgements.jsonl")]
        + data_provenance(path)
    )
    files = [v for k, v in run.provenance if k == "data"]
    run.dataset = Path(files[0].split("  ")[0]).name if files else "WikiContradict"
    with reading_record(path / "generations.jsonl"):
        run.counts = counts_of(LazyRecords(path / "generations.jsonl"))
    per_model: dict[str, Usage] = {}
    for g in gens:
        per_model.setdefault(g.model, Usage()).add(g.usage)
    judge_names: set[str] = set()
    judged_ok = judge_failed = 0
    for off in graded.values():  # the current grades, one at a time
        r = judgements.at(off)
        judged_ok += r.status == "ok"
        judge_failed += r.status != "ok"
        name = (
            str((r.result or {}).get("judge", "judge")) if isinstance(r.result, dict) else "judge"
        )
        judge_names.add(
            str((r.result or {}).get("judge", "")) if isinstance(r.result, dict) else ""
        )
        per_model.setdefault(name, Usage()).add(r.usage)
    run.counts["judged ok"] = judged_ok
    run.counts["judge failed"] = judge_failed
    run.counts["ungraded"] = sum(1 for g in gens if g.status == "ok" and g.id not in graded)
    run.usage = usage_view(per_model)
    judge = ", ".join(sorted(judge_names - {""})) or "none yet"
    # one pass over the items: the failed ones' reasons and the outcomes per template, model
    failed: list[tuple[str, str]] = []
    groups: dict[tuple[str, str], Counter[str]] = {}
    for it in run.items:
        if it["error"]:
            failed.append((it["id"], it["error"]))
        f = it["facets"]
        groups.setdefault((f["template"], f["model"]), Counter())[it["value"]] += 1
    run.failures = failure_reasons(failed)
    for model in sorted({m for _, m in groups}):
        for template in sorted({t for t, m in groups if m == model}):
            cell = groups[(template, model)]
            n = sum(cell.values())
            correct = cell["correct"]
            name = f"correct, T{template}" + ("" if one_model else f", {model}")
            if not any(cell[v] for v in VERDICTS):  # a share of nothing graded
                note = f"not measured: none of the {n} items was graded"
                run.headlines.append(Headline(name, None, None, None, n=n, percent=True, note=note))
                continue
            share = 100.0 * correct / n
            # the report's interval of the same share: failed rows count in n, as there
            low, high = share_ci(correct, n)
            run.headlines.append(Headline(name, share, low, high, n=n, percent=True))
    if gens:
        run.charts.append(_chart(groups, len(gens), judge, run.dataset))
    return run


KIND = RunKind(
    "wikicontradict", "WikiContradict run", has_files("generations.jsonl"), _read, priority=10
)
