"""The paper's published numbers, for showing beside measured ones.

Tables 2–5 of the paper and the supplement's App. B table (templates
5.1–5.4), plus the inter-annotator kappas, are versioned data in
``conflicteval/prompts/wikicontradict_published.json``, transcribed from the
text of the paper and its supplement (each table names its source and carries
notes on anything the conversion lost). ``published_table(name)`` loads one
table; ``compare_to_published(report, table)`` pairs a report's cells with a
distribution table (Table 2, App. B, Table 4, Table 5), ``compare_calibration``
a calibration result with Table 3, and ``comparison_markdown`` prints either
side by side.

Measured models are matched to the paper's rows by name (``model_key``:
provider prefix, case, punctuation and ``instruct``/``inst`` ignored, a
trailing version such as ``v0.2`` or ``hf`` allowed; ``GPT-4`` also matches
``gpt-4-turbo-2024-04-09`` and ``GPT-4o`` ``gpt-4o-2024-05-13``) or by an
explicit ``aliases`` mapping; published rows without a measured counterpart
are listed for reference.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel

from conflicteval.errors import ConflictEvalError
from conflicteval.formatting import number
from conflicteval.prompt_files import prompt_text
from conflicteval.suggest import did_you_mean
from conflicteval.tables import markdown_table
from conflicteval.wikicontradict.templates import TEMPLATE_NAMES

if TYPE_CHECKING:
    from conflicteval.wikicontradict.calibrate import CalibrationResult
    from conflicteval.wikicontradict.judge_agreement import AgreementReport
    from conflicteval.wikicontradict.judge_template import Verdict
    from conflicteval.wikicontradict.report import Subset, WikiContradictReport

PUBLISHED_FILE = "wikicontradict_published.json"
REPORT_TABLES = ("table2", "appendix_b", "table4", "table5")
"""Tables comparable with a ``WikiContradictReport`` (label distributions)."""
CALIBRATION_TABLES = ("table3",)
"""Tables comparable with a ``CalibrationResult`` (judge vs human agreement)."""

_SHORT = {"correct": "C", "partially correct": "PC", "incorrect": "IC"}
_METRICS = {"accuracy": "Acc", "macro_f1": "Macro-F", "precision": "P", "recall": "R", "f1": "F"}
_VERSION_SUFFIX = re.compile(r"(?:v\d+|hf)*")


class PublishedTable(BaseModel):
    """One published table.

    Attributes:
        id: ``table2``, ``appendix_b``, ``table3``, ``table4``, ``table5`` or ``kappa``.
        title: A short title.
        caption: The caption as printed (App. B: a description; it has none).
        source: The publication and table it was transcribed from (title, venue, arXiv id).
        kind: ``distribution`` (C/PC/IC percentages), ``agreement`` (Table 3) or ``kappa``.
        unit: ``percent`` or ``kappa``.
        judge: Who graded (``human``, ``Llama-3-70b-inst``; per value in Table 4).
        template: The template of the whole table, when there is one.
        columns: The keys of each value record.
        notes: What the conversion lost, what was inferred, oddities of the source.
        values: One record per number, e.g. ``{"model", "template", "subset",
            "class", "value"}``; ``value`` is None where the number is lost.
    """

    id: str
    title: str
    caption: str
    source: str
    kind: str
    unit: str
    judge: str | None = None
    template: str | None = None
    columns: list[str]
    notes: list[str]
    values: list[dict[str, Any]]

    def select(self, **where: Any) -> list[dict[str, Any]]:
        """The records whose fields equal ``where`` (``label=`` stands for ``class``)."""
        if "label" in where:
            where["class"] = where.pop("label")
        return [r for r in self.values if all(r.get(k) == v for k, v in where.items())]

    def value(self, **where: Any) -> float | None:
        """The one number selected by ``where`` (see ``select``).

        Raises:
            KeyError: No record, or more than one.
        """
        found = self.select(**where)
        if len(found) != 1:
            raise KeyError(f"{self.id}: {len(found)} records match {where}")
        value = found[0]["value"]
        return None if value is None else float(value)

    @property
    def models(self) -> list[str]:
        """Row names in order of appearance (the judges, for Table 3)."""
        key = "judge" if self.kind == "agreement" else "model"
        return list(dict.fromkeys(str(r[key]) for r in self.values if r.get(key) is not None))

    @property
    def templates(self) -> list[str]:
        """Templates in order of appearance."""
        return list(dict.fromkeys(str(r["template"]) for r in self.values if r.get("template")))


@functools.cache
def _document_text() -> str:
    return prompt_text(PUBLISHED_FILE)


def published_document() -> dict[str, Any]:
    """The whole data file (a fresh copy)."""
    return copy.deepcopy(json.loads(_document_text()))


def published_tables() -> list[str]:
    """The ids of the published tables."""
    return list(published_document()["tables"])


def published_table(name: str) -> PublishedTable:
    """One published table by id (``table2``, ``appendix_b``, ``table3``, ``table4``,
    ``table5``, ``kappa``; ``"Table 5"``, ``"appendix B"`` work too).

    Raises:
        ConflictEvalError: Unknown table.
    """
    tables = published_document()["tables"]
    wanted = re.sub(r"[\s_\-.]", "", name.lower())
    for tid, data in tables.items():
        if re.sub(r"[\s_\-.]", "", tid) == wanted:
            return PublishedTable(id=tid, **data)
    raise ConflictEvalError(
        f"unknown published table {name!r}{did_you_mean(name, tables)}; "
        f"available: {', '.join(tables)}"
    )


def model_key(name: str) -> str:
    """A model name reduced for matching: ``meta-llama/Meta-Llama-3-70B-Instruct`` and
    ``Llama-3-70b-inst`` both give ``llama370binst``."""
    text = name.strip().lower().rsplit("/", 1)[-1]
    text = re.sub(r"^meta-", "", text)
    return re.sub(r"[^a-z0-9]", "", text).replace("instruct", "inst")


def match_model(
    name: str,
    candidates: Sequence[str],
    *,
    aliases: Mapping[str, str] | None = None,
    model_ids: Mapping[str, str] | None = None,
) -> str | None:
    """The published row name a measured model corresponds to, or None.

    Args:
        name: The measured model (e.g. ``openai/gpt-4-turbo-2024-04-09``).
        candidates: The published row names.
        aliases: Explicit ``measured name → published name`` choices (win over names).
        model_ids: ``published name → full model id`` (default: the data file's).
    """
    if aliases and name in aliases:
        return aliases[name] if aliases[name] in candidates else None
    ids = model_ids if model_ids is not None else published_document().get("model_ids", {})
    key = model_key(name)
    for cand in candidates:
        if key == model_key(cand) or (cand in ids and key == model_key(ids[cand])):
            return cand
    for cand in candidates:
        ckey = model_key(cand)
        if key.startswith(ckey) and _VERSION_SUFFIX.fullmatch(key[len(ckey) :]):
            return cand
    return None


class ComparisonRow(BaseModel):
    """One measured figure beside one published figure.

    Attributes:
        table: The published table.
        template: The template.
        model: The measured model (Table 3: the measured judge); None for a published
            row without a measured counterpart.
        published_model: The paper's row (Table 3: the paper's judge); None for a
            measured model the paper does not have.
        published_judge: Who graded the published figure (``human``, a judge model).
        subset: ``all`` / ``explicit`` / ``implicit`` (None for Table 3).
        label: The class (None for Table 3's accuracy and macro-F).
        metric: ``percent`` (distribution tables) or ``accuracy`` / ``macro_f1`` /
            ``precision`` / ``recall`` / ``f1``.
        measured: The measured figure, in percent (None: not measured).
        published: The published figure (None: not published or lost).
        measured_n: Items behind the measured figure.
        matched: Whether the measured and published rows were matched by name.
    """

    table: str
    template: str | None
    model: str | None
    published_model: str | None
    published_judge: str | None
    subset: str | None
    label: str | None
    metric: str = "percent"
    measured: float | None
    published: float | None
    measured_n: int | None = None
    matched: bool = False


def _template_order(name: str | None) -> int:
    return TEMPLATE_NAMES.index(name) if name in TEMPLATE_NAMES else len(TEMPLATE_NAMES)


def compare_to_published(
    report: WikiContradictReport,
    table: str = "table5",
    *,
    aliases: Mapping[str, str] | None = None,
) -> list[ComparisonRow]:
    """A report's percentages beside a published distribution table.

    For every template of the published table: each measured model matched to a
    paper row gets one row per subset × class with both figures; published rows
    without a match are listed with ``measured=None`` and measured models
    without one with ``published=None``. Measured percentages are the report's
    (over all items of the cell, failures included).

    Args:
        report: The measured report.
        table: ``table2``, ``appendix_b``, ``table4`` or ``table5``.
        aliases: Explicit ``measured model → published row`` choices.

    Raises:
        ConflictEvalError: ``table`` is not a distribution table.
    """
    pub = published_table(table)
    if pub.kind != "distribution":
        raise ConflictEvalError(
            f"{pub.id} is not a results table of a report; use one of {', '.join(REPORT_TABLES)}"
        )
    pub_models = pub.models
    matches = {m: match_model(m, pub_models, aliases=aliases) for m in report.models}
    by_published = {p: m for m, p in matches.items() if p is not None}
    rows: list[ComparisonRow] = []
    for template in sorted(pub.templates, key=_template_order):
        records = pub.select(template=template)
        # (subset, label, judge) combinations this template publishes, in the paper's order
        slots = list(
            dict.fromkeys((r["subset"], r["class"], r.get("judge", pub.judge)) for r in records)
        )
        # every published row (with its measured model, if any), then the unmatched models
        pairs: list[tuple[str | None, str | None]] = [(by_published.get(p), p) for p in pub_models]
        pairs += [(m, None) for m in report.models if matches[m] is None]
        for measured_model, pmodel in pairs:
            for subset, label, judge in slots:
                found = [
                    r
                    for r in records
                    if pmodel is not None
                    and (r["model"], r["subset"], r["class"], r.get("judge", pub.judge))
                    == (pmodel, subset, label, judge)
                ]
                value, n = _measured(report, measured_model, template, subset, label)
                rows.append(
                    ComparisonRow(
                        table=pub.id,
                        template=template,
                        model=measured_model,
                        published_model=pmodel,
                        published_judge=judge,
                        subset=subset,
                        label=label,
                        measured=value,
                        published=found[0]["value"] if found else None,
                        measured_n=n,
                        matched=measured_model is not None and pmodel is not None,
                    )
                )
    return rows


def _measured(
    report: WikiContradictReport, model: str | None, template: str, subset: str, label: str
) -> tuple[float | None, int | None]:
    if model is None:
        return None, None
    try:
        cell = report.cell(model, template, cast("Subset", subset))
    except KeyError:
        return None, None
    pct = cell.pct(cast("Verdict", label))
    return (round(pct, 2) if pct is not None else None), cell.n


def compare_calibration(
    result: CalibrationResult,
    table: str = "table3",
    *,
    aliases: Mapping[str, str] | None = None,
) -> list[ComparisonRow]:
    """A calibration's agreement with human labels beside the paper's Table 3.

    The measured figures are those on template 5 when the labels include it
    (Table 3 is template 5 only), else on all labels. Every published judge is
    listed; the one matching the measured judge's name has ``matched=True``.
    Without human labels the measured figures are None.
    """
    pub = published_table(table)
    if pub.kind != "agreement":
        raise ConflictEvalError(f"{pub.id} is not a judge-agreement table; use table3")
    rep, template = _calibration_source(result)
    matched = match_model(result.judge, pub.models, aliases=aliases)
    rows = []
    for r in pub.values:
        measured: float | None = None
        if rep is not None:
            if r["class"] is None:
                measured = getattr(rep, "accuracy" if r["metric"] == "accuracy" else "macro_f1")
            else:
                measured = getattr(rep.per_class[r["class"]], r["metric"])
        rows.append(
            ComparisonRow(
                table=pub.id,
                template=template,
                model=result.judge,
                published_model=r["judge"],
                published_judge="human",
                subset=None,
                label=r["class"],
                metric=r["metric"],
                measured=round(100 * measured, 2) if measured is not None else None,
                published=r["value"],
                measured_n=rep.n if rep is not None else None,
                matched=r["judge"] == matched,
            )
        )
    return rows


def _calibration_source(result: CalibrationResult) -> tuple[AgreementReport | None, str | None]:
    if "5" in result.human_by_template:
        return result.human_by_template["5"], "5"
    if result.human is not None:
        return result.human, None
    return None, None


def comparison_markdown(rows: Sequence[ComparisonRow]) -> str:
    """Markdown tables of measured figures beside published ones, with the table's notes."""
    if not rows:
        return ""
    pub = published_table(rows[0].table)
    if pub.kind == "agreement":
        body = _agreement_markdown(pub, rows)
    else:
        body = _distribution_markdown(pub, rows)
    notes = "\n".join(f"* {n}" for n in pub.notes)
    return f"{body}\n\nPaper: {pub.source}.\n\n{notes}\n"


def _distribution_markdown(pub: PublishedTable, rows: Sequence[ComparisonRow]) -> str:
    judges = list(dict.fromkeys(r.published_judge for r in rows))
    parts = [f"## Compared with the paper: {pub.id} ({pub.title})", ""]
    for template in dict.fromkeys(r.template for r in rows):
        trows = [r for r in rows if r.template == template]
        subsets = list(dict.fromkeys(r.subset for r in trows))
        head = ["model", "paper row", "class"]
        for s in subsets:
            head.append(f"{s} (measured)")
            head += [f"{s} (paper{', ' + str(j) if len(judges) > 1 else ''})" for j in judges]
        parts += [f"### Template {template}", ""]
        table: list[list[str]] = []
        groups = dict.fromkeys((r.model, r.published_model, r.label) for r in trows)
        for model, pmodel, label in groups:
            cells = [model or "–", pmodel or "–", _SHORT.get(label or "", label or "")]
            for s in subsets:
                same = [
                    r
                    for r in trows
                    if (r.model, r.published_model, r.label, r.subset) == (model, pmodel, label, s)
                ]
                cells.append(number(same[0].measured, 1) if same else "–")
                for j in judges:
                    pubs = [r.published for r in same if r.published_judge == j]
                    cells.append(number(pubs[0], 1) if pubs else "–")
            table.append(cells)
        parts += [markdown_table(head, table, ["left"] * 3 + ["right"] * (len(head) - 3)), ""]
    unmatched = sorted({r.model for r in rows if r.model and r.published_model is None})
    parts.append(
        "Measured: percent of all items of the cell, failures included (as in the report); "
        "paper: as published "
        f"(graded by {', '.join(str(j) for j in judges)}). "
        "Paper rows without a measured model are listed for reference"
        + (f"; not in the paper: {', '.join(unmatched)}." if unmatched else ".")
    )
    return "\n".join(parts)


def _agreement_markdown(pub: PublishedTable, rows: Sequence[ComparisonRow]) -> str:
    first = rows[0]
    judges = list(dict.fromkeys(str(r.published_model) for r in rows))
    matched = {r.published_model for r in rows if r.matched}
    where = f"template {first.template}" if first.template else "all templates given"
    n = f", n = {first.measured_n}" if first.measured_n is not None else ", no human labels"
    head = [
        "figure",
        f"measured: {first.model} ({where}{n})",
        *[f"{j} (paper{', matched' if j in matched else ''})" for j in judges],
    ]
    lines = [
        f"## Compared with the paper: {pub.id} ({pub.title})",
        "",
    ]
    table: list[list[str]] = []
    for metric, label in dict.fromkeys((r.metric, r.label) for r in rows):
        same = [r for r in rows if (r.metric, r.label) == (metric, label)]
        name = _METRICS[metric] if label is None else f"{_SHORT[label]} {_METRICS[metric]}"
        cells = [name, number(same[0].measured, 1)]
        for j in judges:
            pubs = [r.published for r in same if r.published_model == j]
            cells.append(number(pubs[0], 1) if pubs else "–")
        table.append(cells)
    lines.append(markdown_table(head, table))
    lines += [
        "",
        "Measured: the judge's agreement with the given human labels, in percent "
        "(templates 2/3 labels mapped PC → C); paper: judges vs adjudicated human labels "
        "on 240 template-5 responses.",
    ]
    return "\n".join(lines)


def comparison_json(rows: Sequence[ComparisonRow]) -> dict[str, Any]:
    """The rows with their table's source and notes, for JSON output."""
    if not rows:
        return {"table": None, "rows": []}
    pub = published_table(rows[0].table)
    return {
        "table": pub.id,
        "source": pub.source,
        "notes": pub.notes,
        "rows": [r.model_dump() for r in rows],
    }


__all__ = [
    "CALIBRATION_TABLES",
    "PUBLISHED_FILE",
    "REPORT_TABLES",
    "ComparisonRow",
    "PublishedTable",
    "compare_calibration",
    "compare_to_published",
    "comparison_json",
    "comparison_markdown",
    "match_model",
    "model_key",
    "published_document",
    "published_table",
    "published_tables",
]
