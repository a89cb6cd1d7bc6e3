"""``conflicteval wikicontradict generate`` / ``judge`` runs: verdict shares per template.

The directory holds ``generations.jsonl`` (+ ``plan.jsonl``), ``judgements.jsonl`` once
judged, and ``data.json`` (the data file and its sha256). The two passages with the
article's title come from that data file when it is still there; otherwise the prompt
(which holds them) is shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflicteval.types import Usage

from ..common import (
    calls_of,
    counts_of,
    data_provenance,
    failure_reasons,
    identity_provenance,
    items_by_id,
    items_of,
    read_records,
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


def _chart(items: list[dict[str, Any]], judge: str, dataset: str) -> Chart:
    from conflicteval.wikicontradict.templates import TEMPLATE_NAMES

    groups: dict[tuple[str, str], list[str]] = {}
    for it in items:
        f = it["facets"]
        groups.setdefault((f["template"], f["model"]), []).append(f["verdict"])
    order = sorted(
        groups, key=lambda k: (TEMPLATE_NAMES.index(k[0]) if k[0] in TEMPLATE_NAMES else 99, k)
    )
    rows: list[tuple[str, list[float]]] = []
    gaps: list[int] = []
    for template, model in order:
        outcomes = groups[(template, model)]
        n = len(outcomes)
        shares = [100.0 * outcomes.count(v) / n for v in VERDICTS]
        rows.append((f"T{template} {model.split('/')[-1]} (n={n})", [*shares, 100.0 - sum(shares)]))
        pub = _published(model, template)
        if pub is not None:
            rows.append((f"T{template} {pub[0]}", pub[1]))
        gaps.append(len(rows) - 1)
    models = sorted({m for _, m in groups})
    sub = (
        f"n = {len(items)} responses \u00b7 models {', '.join(models)} \u00b7 judge {judge} "
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


def _read(path: Path) -> RunView:
    from conflicteval.wikicontradict.generate import read_generations
    from conflicteval.wikicontradict.judge import current_grades
    from conflicteval.wikicontradict.report import share_ci

    run = RunView("wikicontradict", "WikiContradict run", str(path))
    gens = read_generations(path)
    # as the report: a grade made for a response since regenerated is not shown
    judged = current_grades({r.id: r for r in read_records(path / "judgements.jsonl")}, gens)
    instances = _instances(run, path)
    run.items = items_of(
        path / "generations.jsonl",
        gens,
        lambda g: _item(g, judged.get(g.id), instances.get(g.instance_id)),
    )
    run.facets = ["model", "template", "verdict", "type"]
    one_model = len({g.model for g in gens}) == 1
    if one_model:  # runs of different models compare item by item: template and instance
        for g, it in zip(gens, run.items, strict=True):
            it["key"] = f"t{g.template}|{g.instance_id}"
    run.provenance = (
        [("generation." + k, v) for k, v in identity_provenance(path / "generations.jsonl")]
        + [("judge." + k, v) for k, v in identity_provenance(path / "judgements.jsonl")]
        + data_provenance(path)
    )
    files = [v for k, v in run.provenance if k == "data"]
    run.dataset = Path(files[0].split("  ")[0]).name if files else "WikiContradict"
    recs = [r for r in read_records(path / "generations.jsonl")]
    run.counts = counts_of(recs)
    run.counts["judged ok"] = sum(1 for r in judged.values() if r.status == "ok")
    run.counts["judge failed"] = sum(1 for r in judged.values() if r.status != "ok")
    run.counts["ungraded"] = sum(1 for g in gens if g.status == "ok" and g.id not in judged)
    run.failures = failure_reasons((it["id"], it["error"]) for it in run.items if it["error"])
    per_model: dict[str, Usage] = {}
    for g in gens:
        per_model.setdefault(g.model, Usage()).add(g.usage)
    judge_names = sorted(
        {
            str((r.result or {}).get("judge", ""))
            for r in judged.values()
            if isinstance(r.result, dict)
        }
        - {""}
    )
    for r in judged.values():
        name = (
            str((r.result or {}).get("judge", "judge")) if isinstance(r.result, dict) else "judge"
        )
        per_model.setdefault(name, Usage()).add(r.usage)
    run.usage = usage_view(per_model)
    judge = ", ".join(judge_names) or "none yet"
    for model in sorted({it["facets"]["model"] for it in run.items}):
        for template in sorted(
            {it["facets"]["template"] for it in run.items if it["facets"]["model"] == model}
        ):
            cell = [
                it
                for it in run.items
                if it["facets"]["model"] == model and it["facets"]["template"] == template
            ]
            n = len(cell)
            correct = sum(1 for it in cell if it["value"] == "correct")
            name = f"correct, T{template}" + ("" if one_model else f", {model}")
            if not any(it["value"] in VERDICTS for it in cell):  # a share of nothing graded
                note = f"not measured: none of the {n} items was graded"
                run.headlines.append(Headline(name, None, None, None, n=n, percent=True, note=note))
                continue
            share = 100.0 * correct / n
            # the report's interval of the same share: failed rows count in n, as there
            low, high = share_ci(correct, n)
            run.headlines.append(Headline(name, share, low, high, n=n, percent=True))
    if run.items:
        run.charts.append(_chart(run.items, judge, run.dataset))
    return run


KIND = RunKind(
    "wikicontradict", "WikiContradict run", has_files("generations.jsonl"), _read, priority=10
)
