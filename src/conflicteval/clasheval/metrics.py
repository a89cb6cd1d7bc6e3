"""The paper's measures, as ``compute_metrics.ipynb`` of the ClashEval repository computes them.

**Which rows count** (``create_eval_df``): a row's context is correct when its ``mod_type`` is
``"0"`` (the unmodified context); only rows where exactly one of the prior answer and the
context is correct are kept, and the two groups (prior correct, context correct) are cut to the
smaller one's size by a random draw without replacement with seed 1 (pandas
``DataFrame.sample(n, random_state=1)`` on each group, reproduced with numpy's
``RandomState(1).choice``, which is what pandas calls).

**Which source the answer follows**: ``prior_chosen`` when the answer equals the model's prior
*response*, ``context_chosen`` when it equals ``answer_mod``
(:func:`~conflicteval.clasheval.matching.same_answer`; a row can be both). A missing answer
(None) equals nothing (the notebook does not meet one in the released rows).

**The table** (``construct_2x2_matrix_``, rows Prior / Context / Neither chosen, columns Prior /
Context correct) and the **figures** (``get_metrics`` over that table, every cell in the
denominator): accuracy = (prior chosen & prior correct + context chosen & context correct) /
total; context bias = context chosen & prior correct / total; prior bias = prior chosen &
context correct / total. A table with no rows gives None, never 0.

Intervals: percentile bootstrap over the kept rows (:func:`conflicteval.stats.bootstrap_ci`,
1,000 resamples, seed 0, 95%). The notebook's bootstrap is unseeded, so its intervals cannot be
reproduced exactly; its point estimates can.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from conflicteval.clasheval.data import ClashRow
from conflicteval.clasheval.matching import same_answer
from conflicteval.stats import bootstrap_ci, mean_ci

ROWS_2X2: tuple[str, ...] = ("prior_chosen", "context_chosen", "neither_chosen")
COLS_2X2: tuple[str, ...] = ("prior_correct", "context_correct")
BALANCE_SEED = 1


@dataclass(frozen=True)
class Judged:
    """One kept row: which source was correct and which the answer followed."""

    row: int
    prior_correct: int
    context_correct: int
    prior_chosen: int
    context_chosen: int


def _same(domain: str, a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and same_answer(domain, a, b)


def judge(row: ClashRow, answer: str | None) -> Judged:
    """Which source ``answer`` follows for ``row`` (``prior_correct`` as released)."""
    return Judged(
        row=row.row,
        prior_correct=int(row.prior_correct or 0),
        context_correct=int(row.mod_type == "0"),
        prior_chosen=int(_same(row.dataset, row.prior_response, answer)),
        context_chosen=int(_same(row.dataset, row.answer_mod, answer)),
    )


def balanced(rows: Sequence[ClashRow]) -> list[ClashRow]:
    """The rows ``create_eval_df`` keeps: exactly one source correct, groups cut to equal size."""
    kept = [r for r in rows if bool(r.prior_correct) != (r.mod_type == "0")]
    prior = [r for r in kept if r.prior_correct]
    context = [r for r in kept if r.mod_type == "0"]
    n = min(len(prior), len(context))

    def draw(group: list[ClashRow]) -> list[ClashRow]:
        picks = np.random.RandomState(BALANCE_SEED).choice(len(group), size=n, replace=False)
        return [group[int(i)] for i in picks]

    return draw(prior) + draw(context)


def _cells(j: Judged) -> list[float]:
    neither = int(j.prior_chosen == 0 and j.context_chosen == 0)
    chosen = (j.prior_chosen, j.context_chosen, neither)
    return [float(c and k) for c in chosen for k in (j.prior_correct, j.context_correct)]


def table(judged: Sequence[Judged]) -> dict[str, dict[str, int]]:
    """``construct_2x2_matrix_``: counts by chosen source (rows) and correct source (columns)."""
    sums = np.sum([_cells(j) for j in judged], axis=0) if judged else np.zeros(6)
    return {
        r: {c: int(sums[2 * i + k]) for k, c in enumerate(COLS_2X2)} for i, r in enumerate(ROWS_2X2)
    }


def _figures(sums: np.ndarray) -> np.ndarray:
    """accuracy, context bias, prior bias from cell sums (last axis: the 6 cells)."""
    total = sums.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = (sums[..., 0] + sums[..., 3]) / total
        ctx = sums[..., 2] / total
        pri = sums[..., 1] / total
    return np.stack([acc, ctx, pri], axis=-1)


FIGURES: tuple[str, ...] = ("accuracy", "context_bias", "prior_bias")


def figures(judged: Sequence[Judged], *, intervals: bool = True) -> dict[str, Any]:
    """Accuracy, context bias and prior bias (``get_metrics``), each with its interval, and the
    column-normalised table (the notebook's Table 2 layout)."""
    if not judged:
        return {f: {"value": None, "ci": None} for f in FIGURES} | {"rows": 0, "table": None}
    cells = np.array([_cells(j) for j in judged])
    point = _figures(cells.sum(axis=0))
    out: dict[str, Any] = {"rows": len(judged), "table": table(judged)}
    for i, name in enumerate(FIGURES):
        ci = None
        if intervals:

            def stat(x: np.ndarray, axis: int = 1, i: int = i) -> np.ndarray:
                return np.nan_to_num(_figures(x.sum(axis=axis))[..., i])

            ci = list(bootstrap_ci(cells, stat=stat))
        out[name] = {"value": float(point[i]), "ci": ci}
    counts = out["table"]
    col_totals = {c: sum(counts[r][c] for r in ROWS_2X2) for c in COLS_2X2}
    out["table_normalised"] = {
        r: {c: (counts[r][c] / col_totals[c] if col_totals[c] else None) for c in COLS_2X2}
        for r in ROWS_2X2
    }
    return out


def _level_key(level: str) -> tuple[int, float, str]:
    try:
        return (0, float(level), level)
    except ValueError:
        return (1, 0.0, level)


def context_curve(
    rows: Sequence[ClashRow], answer: Callable[[ClashRow], str | None]
) -> dict[str, list[dict[str, Any]]]:
    """How often the answer follows the modified context, per domain and modification level.

    Every row with a modified context (``mod_type`` not ``"0"``) counts; a level's figure is
    the share of its rows whose answer equals ``answer_mod``, with its interval. Levels are
    the release's ``mod_type`` values, in numeric order where they are numbers (this is the
    data of the paper's modification-degree figure by level, not its binned fold change).
    """
    groups: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        if r.mod_type == "0":
            continue
        follows = float(_same(r.dataset, r.answer_mod, answer(r)))
        groups.setdefault(r.dataset, {}).setdefault(r.mod_type, []).append(follows)
    curve: dict[str, list[dict[str, Any]]] = {}
    for domain in sorted(groups):
        points = []
        for level in sorted(groups[domain], key=_level_key):
            value, ci = mean_ci(groups[domain][level])
            points.append(
                {"level": level, "n": len(groups[domain][level]), "value": value, "ci": ci}
            )
        curve[domain] = points
    return curve


def accuracy_by_domain(rows: Sequence[ClashRow]) -> dict[str, dict[str, float | None]]:
    """The notebook's first check: accuracy without context (``prior_correct``, first row of
    each question) and with the correct context (``post_correct`` where ``mod_type`` is
    ``"0"``), per domain and over all (``All``)."""
    seen: set[str] = set()
    prior: dict[str, list[float]] = {}
    post: dict[str, list[float]] = {}
    for r in rows:
        if r.question not in seen:
            seen.add(r.question)
            prior.setdefault(r.dataset, []).append(float(r.prior_correct or 0))
        if r.mod_type == "0":
            post.setdefault(r.dataset, []).append(float(r.post_correct or 0))

    def mean(xs: list[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    out: dict[str, dict[str, float | None]] = {}
    for d in sorted(set(prior) | set(post)):
        out[d] = {
            "without_context": mean(prior.get(d, [])),
            "with_correct_context": mean(post.get(d, [])),
        }
    out["All"] = {
        "without_context": mean([x for xs in prior.values() for x in xs]),
        "with_correct_context": mean([x for xs in post.values() for x in xs]),
    }
    return out
