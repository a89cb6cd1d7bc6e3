"""Regeneration results as tables (pure): Tables 4 and 5 and what regeneration changed.

Every rate (truthful, informative, accuracy; a percentage over the judged or parsed
answers of a method) carries a 95% percentile bootstrap interval (``*_ci``, in
percent): the questions whose answer was judged or parsed are resampled with
replacement 1,000 times (seed 0, as every interval of the library,
:mod:`conflicteval.stats`) and the rate is recomputed on each resample. The paper's
rows are printed without an interval: the paper gives none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from conflicteval.formatting import MISSING, interval, number
from conflicteval.tables import markdown_table

PAPER_TABLE4 = {"RAG": (78.7, 91.5), "Control-RAG": (81.6, 93.2), "Regenerated-RAG": (82.4, 93.2)}
"""Paper Table 4 (free-form, 779 questions): (truthful %, informative %)."""

PAPER_TABLE5 = {"RAG": 84.21, "Control-RAG": 84.47, "Regenerated-RAG": 85.24}
"""Paper Table 5 (binary choice, 779 questions): accuracy %."""

METHODS = ("RAG", "Control-RAG", "Regenerated-RAG")


class MethodRow(BaseModel):
    """One method's row: rates over judged/parsed answers (percent), each with its 95%
    bootstrap interval ``[low, high]`` in percent (None when the rate is None), and the
    failures beside them."""

    method: str
    n: int = 0
    truthful: float | None = None
    informative: float | None = None
    accuracy: float | None = None
    truthful_ci: list[float] | None = None
    informative_ci: list[float] | None = None
    accuracy_ci: list[float] | None = None
    unjudged_truthful: int = 0
    unjudged_informative: int = 0
    unparsed: int = 0


class FlipCounts(BaseModel):
    """What regeneration did to the answers whose main claim was conflicted.

    For binary choice: ``kept`` same letter, ``corrected`` wrong → right,
    ``flipped`` right → wrong. For free-form the same on the truthfulness
    verdict (``kept``: verdict unchanged). ``undetermined``: a side could not
    be parsed or judged.
    """

    conflicted: int = 0
    kept: int = 0
    changed: int = 0
    corrected: int = 0
    flipped: int = 0
    undetermined: int = 0


class RegenerationSummary(BaseModel):
    """Tables 4 and 5 plus counts."""

    free: list[MethodRow] = Field(default_factory=list)
    choice: list[MethodRow] = Field(default_factory=list)
    free_flips: FlipCounts = Field(default_factory=FlipCounts)
    choice_flips: FlipCounts = Field(default_factory=FlipCounts)
    not_scored: dict[str, int] = Field(default_factory=dict)
    failed: dict[str, int] = Field(default_factory=dict)


def _rate(values: list[bool | None]) -> tuple[float | None, list[float] | None, int]:
    """Percentage of True over the known values, its bootstrap interval, unknown count."""
    known = [v for v in values if v is not None]
    if not known:
        return None, None, len(values)
    from conflicteval.stats import bootstrap_ci

    low, high = bootstrap_ci([float(v) for v in known])
    return 100.0 * sum(known) / len(known), [100.0 * low, 100.0 * high], len(values) - len(known)


def summarize_regeneration(
    records: Iterable[tuple[str, str, dict[str, Any] | None]],
) -> RegenerationSummary:
    """Tables 4/5 and flip counts from ``(mode, status, result)`` triples (pure)."""
    out = RegenerationSummary()
    free: list[dict[str, Any]] = []
    choice: list[dict[str, Any]] = []
    for mode, status, result in records:
        if status != "ok" or result is None:
            out.failed[mode] = out.failed.get(mode, 0) + 1
            continue
        (free if mode == "free" else choice).append(result)
        if result.get("conflicted") is None:
            out.not_scored[mode] = out.not_scored.get(mode, 0) + 1
    keys = {"RAG": "rag", "Control-RAG": "control", "Regenerated-RAG": "final"}
    for method in METHODS:
        answers = [r[keys[method]] for r in free]
        t, t_ci, ut = _rate([a.get("truthful") for a in answers])
        i, i_ci, ui = _rate([a.get("informative") for a in answers])
        out.free.append(
            MethodRow(
                method=method,
                n=len(answers),
                truthful=t,
                informative=i,
                truthful_ci=t_ci,
                informative_ci=i_ci,
                unjudged_truthful=ut,
                unjudged_informative=ui,
            )
        )
        picks = [r[keys[method]] for r in choice]
        acc, acc_ci, unparsed = _rate([a.get("correct") for a in picks])
        out.choice.append(
            MethodRow(
                method=method, n=len(picks), accuracy=acc, accuracy_ci=acc_ci, unparsed=unparsed
            )
        )
    out.free_flips = _flips(free, "truthful", same_key="truthful")
    out.choice_flips = _flips(choice, "correct", same_key="choice")
    return out


def _flips(results: list[dict[str, Any]], good: str, same_key: str) -> FlipCounts:
    f = FlipCounts()
    for r in results:
        regen = r.get("regenerated")
        if not r.get("conflicted") or regen is None:
            continue
        f.conflicted += 1
        before, after = r["rag"].get(good), regen.get(good)
        if r["rag"].get(same_key) is None or regen.get(same_key) is None:
            f.undetermined += 1
            continue
        if r["rag"][same_key] == regen[same_key]:
            f.kept += 1
            continue
        f.changed += 1
        if before is False and after is True:
            f.corrected += 1
        elif before is True and after is False:
            f.flipped += 1
    return f


_TABLE4_HEADER = (
    "Method",
    "Truthful",
    "Truthful 95% CI",
    "Informative",
    "Informative 95% CI",
    "Questions",
    "Unjudged (T)",
    "Unjudged (I)",
)
_TABLE5_HEADER = ("Method", "Accuracy", "Accuracy 95% CI", "Questions", "Unparsed")


def table4(summary: RegenerationSummary, *, paper: bool = False) -> str:
    """Free-form results in the layout of Table 4 (+ intervals and unjudged counts); the
    paper's rows have empty interval cells (the paper prints no interval)."""
    rows: list[list[object]] = [
        [
            r.method,
            number(r.truthful, 1, unit="%"),
            interval(r.truthful_ci, 1, unit="%", missing=MISSING),
            number(r.informative, 1, unit="%"),
            interval(r.informative_ci, 1, unit="%", missing=MISSING),
            r.n,
            r.unjudged_truthful,
            r.unjudged_informative,
        ]
        for r in summary.free
    ]
    if paper:
        rows += [
            [f"{m} (paper)", f"{t:.1f}%", "", f"{i:.1f}%", "", 779]
            for m, (t, i) in PAPER_TABLE4.items()
        ]
    return markdown_table(_TABLE4_HEADER, rows)


def table5(summary: RegenerationSummary, *, paper: bool = False) -> str:
    """Binary-choice results in the layout of Table 5 (+ intervals and unparsed counts); the
    paper's rows have an empty interval cell (the paper prints no interval)."""
    rows: list[list[object]] = [
        [
            r.method,
            number(r.accuracy, 2, unit="%"),
            interval(r.accuracy_ci, 2, unit="%", missing=MISSING),
            r.n,
            r.unparsed,
        ]
        for r in summary.choice
    ]
    if paper:
        rows += [[f"{m} (paper)", f"{acc:.2f}%", "", 779] for m, acc in PAPER_TABLE5.items()]
    return markdown_table(_TABLE5_HEADER, rows)


def flips_text(summary: RegenerationSummary) -> str:
    """One line per format: conflicted answers and what regeneration did to them."""
    out = []
    for mode, f in (("free-form", summary.free_flips), ("binary choice", summary.choice_flips)):
        out.append(
            f"{mode}: {f.conflicted} answers with a conflicted main claim regenerated; "
            f"{f.kept} kept, {f.changed} changed ({f.corrected} corrected, "
            f"{f.flipped} wrongly flipped), {f.undetermined} undetermined"
        )
    return "\n".join(out)
