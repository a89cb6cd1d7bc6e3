"""Reports in the layout of the paper's Table 2 / Table 5.

For each model × template and each subset (all, explicit, implicit): the
count and percentage of correct / partially correct / incorrect responses,
and the failed items (generation failed, judge failed, not graded yet) in a
column of their own. Percentages are over *all* items of the cell, failures
included, so C + PC + IC + failed = 100 and a failure is never folded into a
class.

The default Markdown layout (``compact``) fits a 100-column terminal: one row per
model × subset. The paper's wide layouts (``table5``: one row per model with every
subset side by side; ``table2``: one column per model × subset) are there on request.
:class:`ItemTable` is the flat per-item view (one row per generated response, with
its verdict, the judge's comment, the gold answers, tokens and cost).
"""

from __future__ import annotations

import csv
import io
import json
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from conflicteval.errors import require
from conflicteval.record_errors import reading_record
from conflicteval.runs import read_checkpoint
from conflicteval.tables import markdown_table
from conflicteval.types import Usage
from conflicteval.wikicontradict.generate import read_generations
from conflicteval.wikicontradict.judge import JUDGEMENTS_FILE, current_grades
from conflicteval.wikicontradict.judge_template import VERDICTS, Verdict
from conflicteval.wikicontradict.templates import SINGLE_ANSWER_TEMPLATES, TEMPLATE_NAMES

Layout = Literal["compact", "table5", "table2"]
LAYOUTS: tuple[Layout, ...] = ("compact", "table5", "table2")
Subset = Literal["all", "explicit", "implicit"]
SUBSETS: tuple[Subset, ...] = ("all", "explicit", "implicit")
Failure = Literal["generation", "judge", "ungraded"]
_SHORT = {"correct": "C", "partially correct": "PC", "incorrect": "IC"}


class LabelledRow(BaseModel):
    """One response's outcome: a label, or why there is none."""

    model: str
    template: str
    instance_id: str
    contradiction_type: str
    label: Verdict | None = None
    failure: Failure | None = None


class ReportCell(BaseModel):
    """Counts for one model × template × subset."""

    model: str
    template: str
    subset: Subset
    n: int = 0
    correct: int = 0
    partially_correct: int = 0
    incorrect: int = 0
    failed_generation: int = 0
    failed_judge: int = 0
    ungraded: int = 0

    @property
    def failed(self) -> int:
        """Items without a label, for any reason."""
        return self.failed_generation + self.failed_judge + self.ungraded

    def count(self, label: Verdict) -> int:
        """The count of one label."""
        return int(getattr(self, label.replace(" ", "_")))

    @property
    def graded(self) -> int:
        """Items with a label."""
        return self.n - self.failed

    def not_measured(self, value: Verdict | Literal["failed"]) -> str | None:
        """Why a label's share is not measured (None: it is): no item of the cell was graded,
        so the share is not 0 %: it is "not measured", with the failures that emptied it."""
        if value == "failed" or self.graded or not self.n:
            return None
        why = ((self.failed_judge, "judge"), (self.failed_generation, "generation"))
        parts = [f"{k} {w} failure{'s' * (k > 1)}" for k, w in why if k]
        parts.append(f"{self.ungraded} not graded")
        return "no item graded: " + ", ".join(p for p in parts if not p.startswith("0 "))

    def pct(self, value: Verdict | Literal["failed"]) -> float | None:
        """Percentage of all items of the cell (None when the cell is empty, or for a label
        when no item was graded: see :meth:`not_measured`)."""
        if not self.n or self.not_measured(value):
            return None
        num = self.failed if value == "failed" else self.count(value)
        return 100.0 * num / self.n

    # --- 95 % intervals (percentile bootstrap over the cell's items; conflicteval.stats)
    def pct_ci(self, value: Verdict | Literal["failed"]) -> list[float] | None:
        """The 95 % interval of :meth:`pct`, in percent (None when :meth:`pct` is None)."""
        if self.pct(value) is None:
            return None
        num = self.failed if value == "failed" else self.count(value)
        return share_ci(num, self.n)


def share_ci(count: int, n: int) -> list[float]:
    """95 % interval (percent) of a share ``count / n`` of items: the percentile bootstrap,
    or the Wilson interval under ``MIN_INTERVAL_UNITS`` items (it does not collapse at 0 or
    1; :func:`conflicteval.stats_text.proportion_ci`)."""
    import numpy as np

    from conflicteval.stats import MIN_INTERVAL_UNITS, bootstrap_ci
    from conflicteval.stats_text import proportion_ci

    values = np.zeros(n)
    values[:count] = 1.0
    boot = list(bootstrap_ci(values)) if n >= MIN_INTERVAL_UNITS else None
    ci = proportion_ci(values.tolist(), boot)
    assert ci is not None  # n >= 1
    return [100.0 * ci[0], 100.0 * ci[1]]


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _template_order(name: str) -> tuple[int, str]:
    return (TEMPLATE_NAMES.index(name) if name in TEMPLATE_NAMES else len(TEMPLATE_NAMES), name)


def _fmt(cell: ReportCell, value: Verdict | Literal["failed"], template: str) -> str:
    if (
        value == "partially correct"
        and template in SINGLE_ANSWER_TEMPLATES
        and not cell.partially_correct
    ):
        return "–"
    pct = cell.pct(value)
    if cell.not_measured(value):
        return "not measured"
    if pct is None:
        return "–"
    num = cell.failed if value == "failed" else cell.count(value)
    return f"{pct:.1f} ({num})"


class WikiContradictReport(BaseModel):
    """A WikiContradict results table.

    Attributes:
        cells: One cell per model × template × subset.
        judge: The judge(s) that graded.
        generation_usage: Token usage of the generations.
        judge_usage: Token usage of the judge.
    """

    cells: list[ReportCell]
    judge: str = ""
    generation_usage: Usage = Field(default_factory=Usage)
    judge_usage: Usage = Field(default_factory=Usage)
    labelled: list[LabelledRow] = Field(default_factory=list, exclude=True, repr=False)
    """The labelled rows the cells count (kept for paired comparisons; not serialised)."""

    def cell(self, model: str, template: str, subset: Subset = "all") -> ReportCell:
        """The cell of one model × template × subset.

        Raises:
            KeyError: No such cell.
        """
        for c in self.cells:
            if (c.model, c.template, c.subset) == (model, template, subset):
                return c
        raise KeyError((model, template, subset))

    def _shown(self, model: str, template: str, subset: Subset) -> ReportCell:
        """The cell to show: a model with no row for this template shows an empty cell (n 0)."""
        try:
            return self.cell(model, template, subset)
        except KeyError:
            return ReportCell(model=model, template=template, subset=subset)

    @property
    def models(self) -> list[str]:
        """Models in order of appearance."""
        return list(dict.fromkeys(c.model for c in self.cells))

    @property
    def templates(self) -> list[str]:
        """Templates in the paper's order."""
        return sorted({c.template for c in self.cells}, key=_template_order)

    def to_markdown(self, layout: Layout = "compact") -> str:
        """Markdown tables, one per template: "percent (count)" per label.

        Args:
            layout: ``"compact"`` (the default, fits 100 columns: a row per model ×
                subset; columns C/PC/IC/failed and n), ``"table5"`` (wide: a row per
                model; columns C/PC/IC per subset) or ``"table2"`` (wide: rows labels;
                columns subsets per model).
        """
        if layout not in LAYOUTS:
            raise ValueError(f"unknown layout {layout!r} (known: {', '.join(LAYOUTS)})")
        parts = []
        for template in self.templates:
            parts.append(f"### Template {template}\n")
            if layout == "table2":
                parts.append(self._table2(template))
            elif layout == "table5":
                parts.append(self._table5(template))
            else:
                parts.append(self._compact(template))
            parts.append("")
        parts.append(self._footer())
        parts.append("")
        parts.append(self._intervals())
        return "\n".join(parts).rstrip() + "\n"

    def _intervals(self) -> str:
        """The 95 % intervals of the percentages, one line per model, template and subset."""
        from conflicteval.stats import MIN_INTERVAL_UNITS
        from conflicteval.stats_text import small_sample_note

        lines = [
            "95% intervals of the percentages (percentile bootstrap over the items of each",
            "cell, 1,000 resamples, seed 0); Wilson score intervals for cells under",
            f"{MIN_INTERVAL_UNITS} items:",
            "",
        ]
        for c in sorted(self.cells, key=lambda c: _template_order(c.template)):
            if not c.n:
                continue
            parts = []
            if c.not_measured("correct"):
                parts.append(f"labels not measured ({c.not_measured('correct')})")
            for value in (*VERDICTS, "failed"):
                ci = c.pct_ci(value)  # type: ignore[arg-type]
                if ci is not None:
                    parts.append(f"{_SHORT.get(value, 'failed')} [{ci[0]:.1f}, {ci[1]:.1f}]")
            # two lines per cell, so that the report stays within 100 columns
            note = small_sample_note(c.n, "items")
            lines.append(f"- T{c.template} {_shorten(c.model, 40)} {c.subset}:")
            lines.append("  " + "; ".join(parts))
            if note:
                lines.append(f"  ({note})")
        return "\n".join(lines)

    def _compact(self, template: str) -> str:
        head = ["model", "subset", "C %", "PC %", "IC %", "failed", "n"]
        rows: list[list[str]] = []
        for model in self.models:
            for k, subset in enumerate(SUBSETS):
                c = self._shown(model, template, subset)
                cells = [_fmt(c, v, template) for v in VERDICTS] + [_fmt(c, "failed", template)]
                # the model is named on its first row only: narrower, and still unambiguous
                name = _shorten(model, 40) if k == 0 else ""
                rows.append([name, subset, *cells, str(c.n)])
        return markdown_table(head, rows, ["left", "left", *(["right"] * (len(head) - 2))])

    def _table5(self, template: str) -> str:
        head = ["model"]
        for subset in SUBSETS:
            head += [f"{subset} {_SHORT[v]} %" for v in VERDICTS] + [f"{subset} failed"]
        head.append("n (all/exp/imp)")
        rows: list[list[str]] = []
        for model in self.models:
            row = [model]
            ns = []
            for subset in SUBSETS:
                c = self._shown(model, template, subset)
                row += [_fmt(c, v, template) for v in VERDICTS] + [_fmt(c, "failed", template)]
                ns.append(str(c.n))
            row.append("/".join(ns))
            rows.append(row)
        return markdown_table(head, rows)

    def _table2(self, template: str) -> str:
        head = ["label"] + [f"{m} {s}" for m in self.models for s in SUBSETS]
        rows: list[list[str]] = []
        values: list[Verdict | Literal["failed"]] = [*VERDICTS, "failed"]
        for value in values:
            name = _SHORT.get(value, "failed")
            row = [name] + [
                _fmt(self._shown(m, template, s), value, template)
                for m in self.models
                for s in SUBSETS
            ]
            rows.append(row)
        rows.append(
            ["n"] + [str(self._shown(m, template, s).n) for m in self.models for s in SUBSETS]
        )
        return markdown_table(head, rows)

    def _footer(self) -> str:
        fails = {"generation": 0, "judge": 0, "ungraded": 0}
        for c in self.cells:
            if c.subset == "all":
                fails["generation"] += c.failed_generation
                fails["judge"] += c.failed_judge
                fails["ungraded"] += c.ungraded
        from conflicteval.pricing import cost_text

        g, j = self.generation_usage, self.judge_usage
        paragraphs = [
            "Cells: percent of all items (count); templates 2 and 3 are correct/incorrect only. "
            f"Judge: {self.judge or 'n/a'}.",
            f"Failed items (not in any class): {fails['generation']} generation failures, "
            f"{fails['judge']} judge failures, {fails['ungraded']} not graded.",
            f"Tokens: generation {g.calls} calls{g.truncated_note()}, {g.tokens_text()}; "
            f"judge {j.calls} calls{j.truncated_note()}, {j.tokens_text()}.",
            cost_text(g + j)[0].upper() + cost_text(g + j)[1:] + ".",
        ]
        # wrapped so that the whole default report fits a 100-column terminal
        return "\n\n".join(
            textwrap.fill(text, width=100, break_long_words=False, break_on_hyphens=False)
            for text in paragraphs
        )

    def rows(self) -> list[dict[str, Any]]:
        """One flat dict per cell (what CSV, JSON and pandas show)."""
        out = []
        for c in self.cells:
            row: dict[str, Any] = {
                "model": c.model,
                "template": c.template,
                "subset": c.subset,
                "n": c.n,
            }
            for v in VERDICTS:
                key = v.replace(" ", "_")
                row[key] = c.count(v)
                pct = c.pct(v)
                row[f"{key}_pct"] = round(pct, 2) if pct is not None else None
            row["failed"] = c.failed
            failed_pct = c.pct("failed")
            row["failed_pct"] = round(failed_pct, 2) if failed_pct is not None else None
            row["failed_generation"] = c.failed_generation
            row["failed_judge"] = c.failed_judge
            row["ungraded"] = c.ungraded
            shown: list[Verdict | Literal["failed"]] = [*VERDICTS, "failed"]
            for value in shown:  # 95 % intervals of the percentages
                ci = c.pct_ci(value)
                key = value.replace(" ", "_")
                row[f"{key}_pct_ci_low"] = round(ci[0], 2) if ci else None
                row[f"{key}_pct_ci_high"] = round(ci[1], 2) if ci else None
            out.append(row)
        return out

    def to_csv(self) -> str:
        """CSV text, one line per cell."""
        rows = self.rows()
        buf = io.StringIO()
        if rows:
            writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        return buf.getvalue()

    def to_json(self) -> str:
        """JSON text: the cells plus judge, token usage and estimated cost."""
        from conflicteval.pricing import cost_summary

        payload = {
            "judge": self.judge,
            "cells": self.rows(),
            "generation_usage": self.generation_usage.model_dump(),
            "judge_usage": self.judge_usage.model_dump(),
            "cost": cost_summary(self.generation_usage + self.judge_usage),
        }
        return json.dumps(payload, indent=2, ensure_ascii=False)

    def to_pandas(self) -> Any:
        """The cells as a pandas DataFrame (needs the ``pandas`` extra)."""
        pd: Any = require("pandas", "pandas")
        return pd.DataFrame(self.rows())

    def plot(self, path: str | Path, subset: Subset = "all") -> Path:
        """Deprecated (matplotlib, ``plot`` extra): a stacked-bar PNG. The report page's chart
        is the one drawing code: ``wikicontradict report --run RUN --plot FILE.svg``."""
        import warnings

        from conflicteval.wikicontradict.report_plot import plot_report

        msg = "WikiContradictReport.plot is deprecated: write the report page's chart with "
        msg += "'conflicteval wikicontradict report --run RUN --plot FILE.svg'"
        warnings.warn(msg, DeprecationWarning, stacklevel=2)

        return plot_report(self, path, subset)


def report_from_rows(
    rows: Iterable[LabelledRow],
    *,
    judge: str = "",
    generation_usage: Usage | None = None,
    judge_usage: Usage | None = None,
) -> WikiContradictReport:
    """Aggregate labelled rows into a report (pure)."""
    rows = list(rows)
    cells: dict[tuple[str, str, str], ReportCell] = {}
    for row in rows:
        subsets: list[Subset] = ["all"]
        if row.contradiction_type in ("explicit", "implicit"):
            subsets.append(row.contradiction_type)  # type: ignore[arg-type]
        for subset in SUBSETS:
            key = (row.model, row.template, subset)
            if key not in cells:
                cells[key] = ReportCell(model=row.model, template=row.template, subset=subset)
        for subset in subsets:
            c = cells[(row.model, row.template, subset)]
            c.n += 1
            if row.label is not None:
                field = row.label.replace(" ", "_")
                setattr(c, field, getattr(c, field) + 1)
            elif row.failure == "generation":
                c.failed_generation += 1
            elif row.failure == "judge":
                c.failed_judge += 1
            else:
                c.ungraded += 1
    ordered = sorted(cells.values(), key=lambda c: _template_order(c.template))
    return WikiContradictReport(
        cells=ordered,
        labelled=rows,
        judge=judge,
        generation_usage=generation_usage or Usage(),
        judge_usage=judge_usage or Usage(),
    )


def build_report(run: str | Path, judgements: str | Path | None = None) -> WikiContradictReport:
    """The report of a run: its generations joined with its judgements.

    Args:
        run: The run directory.
        judgements: The judgements file (default ``<run>/judgements.jsonl``;
            when it does not exist every generated row counts as not graded).
    """
    gens = read_generations(run)
    jpath = Path(judgements) if judgements is not None else Path(run) / JUDGEMENTS_FILE
    graded = current_grades(read_checkpoint(jpath), gens)  # grades of these very responses
    judge_usage = Usage()
    judges: list[str] = []
    for rec in graded.values():
        judge_usage.add(rec.usage)
        if isinstance(rec.result, dict) and rec.result.get("judge"):
            judges.append(str(rec.result["judge"]))
    gen_usage = Usage()
    rows = []
    for g in gens:
        gen_usage.add(g.usage)
        label: Verdict | None = None
        failure: Failure | None = None
        if g.status != "ok":
            failure = "generation"
        elif g.id not in graded:
            failure = "ungraded"
        elif graded[g.id].status != "ok":
            failure = "judge"
        with reading_record(jpath, g.id):
            if failure is None:
                label = graded[g.id].result["label"]
            rows.append(
                LabelledRow(
                    model=g.model,
                    template=g.template,
                    instance_id=g.instance_id,
                    contradiction_type=g.contradiction_type,
                    label=label,
                    failure=failure,
                )
            )
    return report_from_rows(
        rows,
        judge=", ".join(dict.fromkeys(judges)),
        generation_usage=gen_usage,
        judge_usage=judge_usage,
    )


def write_report(report: WikiContradictReport, out_dir: str | Path) -> Sequence[Path]:
    """Write ``report.md``, ``report.csv`` and ``report.json`` into ``out_dir``; returns the
    paths written (the chart is the report page's: ``conflicteval view RUN --charts DIR``)."""
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in (
        ("report.md", report.to_markdown()),
        ("report.csv", report.to_csv()),
        ("report.json", report.to_json()),
    ):
        (d / name).write_text(text, encoding="utf-8")
        paths.append(d / name)
    return paths
