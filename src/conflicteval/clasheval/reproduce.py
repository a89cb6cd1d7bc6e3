"""``conflicteval clasheval reproduce``: the paper's figures from the released responses, with
no model call, printed beside the figures the notebook's stored outputs hold.

Per response file: Table 3's accuracy, context bias and prior bias for the uncorrected answers
(``post_response``) and for the two token-probability corrections, Table 2's column-normalised
table, the notebook's accuracy without / with correct context, and the per-level curve.

The corrections (``compute_metrics.ipynb``, Table 3 cells): a row's probability is the mean of
``exp`` of its token log probabilities; *token prob.* answers with the prior response when the
prior's probability is higher than the answer-with-context's, *calibrated* when its percentile
rank among all rows is higher (ranks as pandas ``rank(pct=True)``: ties averaged, missing
values unranked). A missing probability (no log probabilities) never wins a comparison, as a
NaN comparison in the notebook.
"""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from conflicteval.clasheval.data import MODELS, ClashRow, load_responses
from conflicteval.clasheval.metrics import (
    FIGURES,
    accuracy_by_domain,
    balanced,
    context_curve,
    figures,
    judge,
)
from conflicteval.clasheval.published import ACCURACY_ALL, TABLE2, TABLE3
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.formatting import NOT_AVAILABLE, interval, number
from conflicteval.tables import markdown_table

METHODS: tuple[str, ...] = ("baseline", "token_prob", "calibrated")


def _probability(path: Path, row: ClashRow, name: str, text: str | None) -> float:
    if text is None:
        return math.nan
    try:
        values = ast.literal_eval(text)
        probs = [math.exp(float(v)) for v in values]
    except (ValueError, SyntaxError, TypeError) as exc:
        raise DataError(path, row.row + 1, name, f"not a list of log probabilities: {exc}") from exc
    return sum(probs) / len(probs) if probs else math.nan


def _pct_ranks(values: Sequence[float]) -> list[float]:
    present = sorted((v, i) for i, v in enumerate(values) if not math.isnan(v))
    ranks = [math.nan] * len(values)
    n = len(present)
    k = 0
    while k < n:
        j = k
        while j + 1 < n and present[j + 1][0] == present[k][0]:
            j += 1
        average = (k + j) / 2 + 1
        for m in range(k, j + 1):
            ranks[present[m][1]] = average / n
        k = j + 1
    return ranks


def corrected_answers(path: Path, rows: Sequence[ClashRow], method: str) -> list[str | None]:
    """Each row's answer under ``method`` (``baseline``: the released ``post_response``)."""
    if method == "baseline":
        return [r.post_response for r in rows]
    prior = [_probability(path, r, "prior_logprobs", r.prior_logprobs) for r in rows]
    post = [_probability(path, r, "post_logprobs", r.post_logprobs) for r in rows]
    if method == "calibrated":
        prior, post = _pct_ranks(prior), _pct_ranks(post)
    elif method != "token_prob":
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    return [
        r.prior_response if a > b else r.post_response  # NaN > x is False, as in pandas
        for r, a, b in zip(rows, prior, post, strict=True)
    ]


def score_rows(path: Path, rows: Sequence[ClashRow]) -> dict[str, Any]:
    """Every figure of a set of response rows (``path`` names them in errors)."""
    kept = balanced(rows)
    position = {r.row: i for i, r in enumerate(rows)}
    methods: dict[str, Any] = {}
    for method in METHODS:
        if method != "baseline" and all(r.prior_logprobs is None for r in rows):
            methods[method] = None  # no log probabilities (Claude, Gemini, a new run)
            continue
        answers = corrected_answers(path, rows, method)
        judged = [judge(r, answers[position[r.row]]) for r in kept]
        methods[method] = figures(judged)
    return {
        "rows": len(rows),
        "kept_rows": len(kept),
        "methods": methods,
        "accuracy": accuracy_by_domain(rows),
        "curve": context_curve(rows, lambda r: r.post_response),
    }


def reproduce_file(path: str | PathLike[str], model: str | None = None) -> dict[str, Any]:
    """The figures of one response file, with the notebook's beside them (when ``model`` is a
    released model's file name)."""
    p = Path(path)
    return {
        "file": str(p),
        "model": model,
        "model_name": MODELS.get(model or ""),
        **score_rows(p, load_responses(p)),
        "published": {
            "table3": TABLE3.get(model or ""),
            "table2": TABLE2.get(model or ""),
            "accuracy_all": ACCURACY_ALL.get(model or ""),
        },
    }


def _cell(m: dict[str, Any]) -> str:
    if m["value"] is None:
        return "n/a"
    ci = m.get("ci")
    return number(m["value"], 3) + (f" {interval(ci, 3)}" if ci else "")


def format_reproduction(rep: dict[str, Any]) -> str:
    """The text form of :func:`reproduce_file`: measured figures beside the notebook's."""
    name = rep.get("model_name") or rep.get("file") or rep.get("model")
    lines = [f"ClashEval · {name} · {rep['rows']} rows, {rep['kept_rows']} kept (balanced)"]
    published = rep.get("published") or {}
    paper3 = published.get("table3") or {}
    rows: list[list[str]] = []
    for method, m in rep["methods"].items():
        if m is None:
            rows.append([method, "no log probabilities in the file"])
            continue
        paper = paper3.get(method)
        beside = " / ".join(f"{paper[f]:.3f}" for f in FIGURES) if paper else "-"
        rows.append([method, *(_cell(m[f]) for f in FIGURES), beside])
    lines.append(markdown_table(["method", *FIGURES, "notebook (Table 3)"], rows))
    base = rep["methods"]["baseline"]
    paper2 = published.get("table2") or {}
    if base and base["table_normalised"]:
        table2 = []
        for r, cols in base["table_normalised"].items():
            got = [number(v, 3, missing=NOT_AVAILABLE) for v in cols.values()]
            paper = paper2.get(r)
            table2.append([r, *got, f"{paper[0]:.3f} / {paper[1]:.3f}" if paper else "-"])
        head = ["Table 2 (share of each column)", "prior correct", "context correct", "notebook"]
        lines += ["", markdown_table(head, table2), ""]
    acc = rep["accuracy"]["All"]
    paper_acc = published.get("accuracy_all")
    lines.append(
        f"accuracy without context {number(acc['without_context'], 3, missing=NOT_AVAILABLE)}, "
        f"with correct context {number(acc['with_correct_context'], 3, missing=NOT_AVAILABLE)}"
        + (f" (notebook {paper_acc[0]:.3f}, {paper_acc[1]:.3f})" if paper_acc else "")
    )
    return "\n".join(lines)


def clasheval_report(run: str | os.PathLike[str]) -> dict[str, Any]:
    """The figures of a ``clasheval run`` directory (scored as the released responses).

    Raises:
        ConflictEvalError: No ClashEval run there, or no answered question.
    """
    from conflicteval.clasheval.run import ANSWERS_FILE, run_rows

    info, rows, failed = run_rows(run)
    if not rows:
        raise ConflictEvalError(f"{run}: no answered question to score (failed: {failed or 0})")
    return {**info, "failed": failed, **score_rows(Path(run) / ANSWERS_FILE, rows)}
