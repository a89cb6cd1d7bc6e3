"""Scoring prediction files against a FEVEROUS claim file.

A prediction file is JSON Lines (a leading all-empty header line is skipped
when present), one object per claim with ``predicted_label`` and
``predicted_evidence`` (element-id strings or ``[page, type, position]``
triples). Predictions are matched to gold claims by ``id`` when every
prediction has one, else by position (as the official leaderboard does).
Without a gold file, each prediction must carry ``label`` and ``evidence``
itself (the official ``evaluate.py`` input).

Labels: the official scorer compares labels ignoring case, so ``supports`` is
read as ``SUPPORTS``; a label that is none of the three (``NEI``,
``REFUTED``) can never be right under that rule and is refused as a malformed
file rather than silently scored as wrong.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

from conflicteval.errors import DataError
from conflicteval.readers import UniqueIds

from .claims import LABELS, iter_claims, iter_json_lines, normalize_label
from .feverous_score import MAX_CELLS, MAX_SENTENCES, FeverousScore, ScoreInputError, score
from .ids import ElementIdError, as_element


def load_predictions(path: str | PathLike[str]) -> list[dict[str, Any]]:
    """Read and check a prediction file.

    Returns:
        The prediction objects, each with a ``_line`` key (its 1-based line).

    Raises:
        DataError: A line is malformed (names the file, line and field).
    """
    out: list[dict[str, Any]] = []
    ids = UniqueIds(path, "id", "prediction id")
    for lineno, record in iter_json_lines(path):
        for field in ("predicted_label", "predicted_evidence"):
            if field not in record:
                raise DataError(path, lineno, field, "missing")
        for field in ("predicted_label", "label"):
            if field == "label" and field not in record:
                continue
            value = record[field]
            label = normalize_label(value) if isinstance(value, str) else None
            if label is None:
                raise DataError(
                    path, lineno, field, f"expected one of {', '.join(LABELS)}, got {value!r}"
                )
            record = {**record, field: label}
        if "id" in record and (
            isinstance(record["id"], bool) or not isinstance(record["id"], (int, str))
        ):
            raise DataError(path, lineno, "id", f"expected an integer id, got {record['id']!r}")
        if "id" in record:
            ids.add(record["id"], lineno)
        evidence = record["predicted_evidence"]
        if not isinstance(evidence, list):
            raise DataError(path, lineno, "predicted_evidence", "expected a list")
        for j, element in enumerate(evidence):
            try:
                as_element(element)
            except ElementIdError as exc:
                raise DataError(path, lineno, f"predicted_evidence[{j}]", str(exc)) from None
        out.append({**record, "_line": lineno})
    return out


def score_files(
    pred_path: str | PathLike[str],
    gold_path: str | PathLike[str] | None = None,
    *,
    max_sentences: int | None = MAX_SENTENCES,
    max_cells: int | None = MAX_CELLS,
) -> FeverousScore:
    """Score a prediction file, against a gold claim file when given.

    Args:
        pred_path: Predictions (JSON Lines).
        gold_path: The FEVEROUS claim file (``*_dev_challenges.jsonl``); None
            when the predictions carry ``label`` and ``evidence``.
        max_sentences: Sentence budget.
        max_cells: Cell budget.

    Raises:
        DataError: A file is malformed or holds no claim, a prediction has no gold
            claim, or a gold claim has no prediction.
    """
    predictions = load_predictions(pred_path)
    if not predictions:  # the official figures of nothing would read as a real score
        raise DataError(pred_path, None, None, "no predictions (an empty file): nothing to score")
    # Gold files are checked by the claim loader, so what is left to fail
    # here is always in the prediction file.
    if gold_path is None:
        for p in predictions:
            missing = [f for f in ("label", "evidence") if f not in p]
            if missing:
                raise DataError(
                    pred_path,
                    p["_line"],
                    missing[0],
                    f"missing; without a gold file (--gold FILE, gold_path=...) every "
                    f"prediction must carry the gold {' and '.join(missing)}",
                )
        instances = predictions
    else:
        instances = _join(predictions, pred_path, gold_path)
    try:
        return score(instances, max_sentences=max_sentences, max_cells=max_cells)
    except ScoreInputError as exc:
        line = instances[exc.index].get("_line", exc.index + 1)
        raise DataError(pred_path, line, exc.field, str(exc).split(": ", 1)[-1]) from None


def _join(
    predictions: list[dict[str, Any]],
    pred_path: str | PathLike[str],
    gold_path: str | PathLike[str],
) -> list[dict[str, Any]]:
    gold = list(iter_claims(gold_path))
    if not gold:
        raise DataError(gold_path, None, None, "no gold claims (an empty file): nothing to score")
    for claim in gold:
        if claim.label is None:
            raise DataError(gold_path, claim.line, "label", "gold claim has no label")
    by_id = all("id" in p for p in predictions) and all(c.id is not None for c in gold)
    instances: list[dict[str, Any]] = []
    if by_id:
        wanted = {c.id: c for c in gold}
        seen: set[Any] = set()
        for p in predictions:
            match = wanted.get(p["id"])
            if match is None:
                raise DataError(pred_path, p["_line"], "id", f"no gold claim with id {p['id']!r}")
            if p["id"] in seen:
                raise DataError(
                    pred_path, p["_line"], "id", f"duplicate prediction for {p['id']!r}"
                )
            seen.add(p["id"])
            instances.append(_instance(p, match.label, [s.content for s in match.evidence]))
        absent = [c for c in gold if c.id not in seen]
        if absent:
            raise DataError(
                gold_path,
                absent[0].line,
                "id",
                f"{len(absent)} gold claims have no prediction (first: id {absent[0].id})",
            )
        return instances
    if len(predictions) != len(gold):
        raise DataError(
            pred_path,
            None,
            None,
            f"{len(predictions)} predictions but {len(gold)} gold claims (matched by position)",
        )
    for p, claim in zip(predictions, gold, strict=True):
        instances.append(_instance(p, claim.label, [s.content for s in claim.evidence]))
    return instances


def _instance(prediction: dict[str, Any], label: Any, evidence: list[list[str]]) -> dict[str, Any]:
    return {**prediction, "label": label, "evidence": evidence}
