"""Paired comparison of two runs over the same items: :func:`compare` (``conflicteval compare``).

Items are aligned by id, within the same data (the inputs' sha256 must agree: two runs of
different files are refused). For every metric both runs computed from per-item values,
over the items both scored:

* ``a``, ``b``: the metric on the shared items in each run; ``diff = b - a``;
* ``ci``: the percentile bootstrap interval of the mean paired difference (items
  resampled, the same draw for both runs; seed 0), in the metric's unit;
* ``p``: exact two-sided McNemar (binomial test on the discordant pairs) when the item
  values are 0/1 outcomes, else a paired sign-flip permutation test of the mean difference;
* ``p_holm``: Holm's adjustment across the metrics compared;
* ``verdict``: "A higher" or "B higher" when ``p_holm < alpha`` (0.05), else "tied".

Different instruments (judge, labeler) or decoding make a difference partly the
instrument's or the settings': each is said in one warning line, and the comparison goes on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from conflicteval.errors import ConflictEvalError
from conflicteval.results.contract import Metric
from conflicteval.results.load import Run, load_run
from conflicteval.results.paired import holm, mcnemar_exact, paired_ci, permutation_p
from conflicteval.tables import DEFAULT_WIDTH, markdown_table, text_table

__all__ = ["Comparison", "MetricComparison", "compare", "compare_values"]

ALPHA = 0.05


class MetricComparison(BaseModel):
    """One metric of two runs on their shared items."""

    id: str
    name: str
    unit: str
    n: int
    """Items both runs have a value for."""
    a: float | None
    b: float | None
    diff: float | None
    ci: list[float] | None
    p: float | None
    p_holm: float | None = None
    test: str
    verdict: str = "tied"
    discordant: list[int] | None = None
    """McNemar's discordant pairs ``[A only, B only]`` (binary metrics)."""


class Comparison(BaseModel):
    """Two runs compared item by item."""

    a: str
    b: str
    kind: str
    shared: int
    only_a: int
    only_b: int
    warnings: list[str] = Field(default_factory=list)
    metrics: list[MetricComparison] = Field(default_factory=list)
    not_compared: list[str] = Field(default_factory=list)
    alpha: float = ALPHA

    def text(self, width: int | None = DEFAULT_WIDTH) -> str:
        """The comparison for people: the warnings, the shared items, a table with a row per
        metric, fitted to ``width`` columns (None: a Markdown table at its full width)."""
        lines = [f"warning: {w}" for w in self.warnings]
        lines.append(
            f"A = {self.a}\nB = {self.b}\n{self.shared} items shared"
            f" ({self.only_a} only in A, {self.only_b} only in B)"
        )
        head = ["metric", "n", "A", "B", "B - A [95% CI]", "p", "p_holm", "test / verdict"]
        rows: list[list[object]] = []
        for m in self.metrics:
            if m.diff is None:
                rows.append([m.id, m.n, "", "", "", "", "", f"nothing to compare ({m.test})"])
                continue
            ci = "" if m.ci is None else f" [{m.ci[0]:+.4g}, {m.ci[1]:+.4g}]"
            rows.append(
                [
                    m.id,
                    m.n,
                    f"{m.a:.4g}",
                    f"{m.b:.4g}",
                    f"{m.diff:+.4g}{ci}",
                    _p(m.p),
                    _p(m.p_holm),
                    f"{m.test}: {m.verdict}",
                ]
            )
        align = ["left", *(["right"] * 6), "left"]
        if width is None:
            lines.append(markdown_table(head, rows, align))
        else:
            lines.append(text_table(head, rows, align, width))
        if self.not_compared:
            lines.append("not compared (no per-item values): " + ", ".join(self.not_compared))
        return "\n".join(lines)


def _p(p: float | None) -> str:
    return "–" if p is None else ("<1e-4" if p < 1e-4 else f"{p:.4f}")


def compare_values(
    metrics: Sequence[Metric],
    a: Mapping[str, Mapping[str, float | None]],
    b: Mapping[str, Mapping[str, float | None]],
    *,
    alpha: float = ALPHA,
) -> list[MetricComparison]:
    """Compare per-item values ``{item id: {metric id: value}}`` of two runs for each of
    ``metrics`` (those whose ``items`` is ``binary`` or ``mean``), Holm-adjusted together.
    """
    rows: list[MetricComparison] = []
    for metric in metrics:
        ids = [i for i in a if i in b]
        pairs = [
            (float(x), float(y))
            for i in ids
            if (x := a[i].get(metric.id)) is not None and (y := b[i].get(metric.id)) is not None
        ]
        rows.append(_one(metric, pairs))
    for row, adjusted in zip(rows, holm([r.p for r in rows]), strict=True):
        row.p_holm = adjusted
        if adjusted is not None and adjusted < alpha and row.diff:
            row.verdict = "B higher" if row.diff > 0 else "A higher"
    return rows


def _one(metric: Metric, pairs: list[tuple[float, float]]) -> MetricComparison:
    binary = metric.items == "binary" and all(x in (0.0, 1.0) and y in (0.0, 1.0) for x, y in pairs)
    test = "exact McNemar" if binary else "paired permutation (sign flips)"
    if not pairs:
        return MetricComparison(
            id=metric.id, name=metric.name, unit=metric.unit, n=0, a=None, b=None, diff=None,
            ci=None, p=None, test="no shared item with a value",
        )  # fmt: skip
    s = metric.scale
    n = len(pairs)
    diffs = [y - x for x, y in pairs]
    mean_a = sum(x for x, _ in pairs) / n
    mean_b = sum(y for _, y in pairs) / n
    ci = paired_ci(diffs)
    discordant = None
    if binary:
        only_a = sum(1 for x, y in pairs if x == 1.0 and y == 0.0)
        only_b = sum(1 for x, y in pairs if x == 0.0 and y == 1.0)
        discordant = [only_a, only_b]
        p = mcnemar_exact(only_a, only_b)
    else:
        p = permutation_p(diffs)
    return MetricComparison(
        id=metric.id,
        name=metric.name,
        unit=metric.unit,
        n=n,
        a=s * mean_a,
        b=s * mean_b,
        diff=s * (mean_b - mean_a),
        ci=[s * ci[0], s * ci[1]],
        p=p,
        test=test,
        discordant=discordant,
    )


def _as_run(run: Run | str | os.PathLike[str]) -> Run:
    return run if isinstance(run, Run) else load_run(run)


def _settings(run: Run) -> dict[str, Any]:
    return {
        "instruments": sorted(
            (i.role, i.name, repr(sorted(i.settings.items()))) for i in run.summary.instruments
        ),
        "decoding": sorted((m.role, repr(sorted(m.decoding.items()))) for m in run.summary.models),
    }


def compare(
    a: Run | str | os.PathLike[str],
    b: Run | str | os.PathLike[str],
    *,
    alpha: float = ALPHA,
    allow_different_data: bool = False,
) -> Comparison:
    """Compare run ``b`` with run ``a`` item by item (see the module's description).

    Args:
        a: The first run (a directory or a :class:`~conflicteval.results.load.Run`).
        b: The second run.
        alpha: Level of the verdicts, after Holm's adjustment.
        allow_different_data: Compare runs over different inputs (by item id) with a warning
            instead of refusing.

    Raises:
        ConflictEvalError: Either is no run in the contract, the kinds differ, or the data
            differ (unless allowed).
    """
    ra, rb = _as_run(a), _as_run(b)
    sa, sb = ra.summary, rb.summary
    if sa.kind != sb.kind:
        raise ConflictEvalError(f"cannot compare a {sa.kind} run with a {sb.kind} run")
    warnings: list[str] = []
    ha = sorted(d.sha256 for d in sa.data if d.sha256)
    hb = sorted(d.sha256 for d in sb.data if d.sha256)
    if not ha or not hb:
        warnings.append("a run records no input sha256: items are aligned by id alone")
    elif ha != hb:
        text = f"the runs read different data (sha256 {ha[0][:12]}... vs {hb[0][:12]}...)"
        if not allow_different_data:
            raise ConflictEvalError(text + ": items of different files are not the same items")
        warnings.append(text + ": items aligned by id alone")
    sets_a, sets_b = _settings(ra), _settings(rb)
    for what in ("instruments", "decoding"):
        if sets_a[what] != sets_b[what]:
            warnings.append(f"the runs' {what} differ: a difference may be partly theirs")
    values_a, values_b = ra.item_values(), rb.item_values()
    paired = [m for m in sa.metrics if m.items is not None and sb.metric(m.id) is not None]
    other = [m.id for m in sa.metrics if m not in paired and sb.metric(m.id) is not None]
    shared = sum(1 for i in values_a if i in values_b)
    return Comparison(
        a=str(ra.path),
        b=str(rb.path),
        kind=sa.kind,
        shared=shared,
        only_a=len(values_a) - shared,
        only_b=len(values_b) - shared,
        warnings=warnings,
        metrics=compare_values(paired, values_a, values_b, alpha=alpha),
        not_compared=other,
        alpha=alpha,
    )
