"""Per-relation accuracy of a labeler on MacNoise records (the lexical baseline check).

For every record and every context whose perturbed text differs from its
original (``pert_lbls`` = 1, i.e. the original contains a gold answer), two
pairs are built against the claim ``"<question>? <first answer>."``:

* the original passage -> gold SUPPORTS;
* the perturbed passage -> gold CONTRADICTS.

The ``title: ... context:`` prefix of both texts is removed
(case-insensitively: perturbed texts may write ``Context:``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from conflicteval._sync import run_sync
from conflicteval.errors import DataError
from conflicteval.jsonio import load_json
from conflicteval.types import Document, Relation

from .labelers import Labeler

__all__ = ["MacNoisePair", "RelationAccuracy", "evaluate_pairs", "macnoise_pairs", "strip_prefix"]

_PREFIX = re.compile(r"^\s*title:.*?\bcontext:\s*", re.IGNORECASE | re.DOTALL)


def strip_prefix(text: str) -> str:
    """Remove a leading ``title: <t> context:`` prefix (any case)."""
    return _PREFIX.sub("", text, count=1)


def claim_of(question: str, answer: str) -> str:
    """The claim of a question and its gold answer: ``"<question>? <answer>."``."""
    return f"{question.strip().rstrip('?').strip()}? {answer.strip()}."


class MacNoisePair(BaseModel):
    """One (claim, passage) pair with its gold relation."""

    record: int
    ctx: int
    claim: str
    document: Document
    gold: Relation


def macnoise_pairs(
    records: Sequence[dict[str, Any]] | str | os.PathLike[str],
) -> list[MacNoisePair]:
    """Build the gold pairs (see the module docstring) from records or a MacNoise file."""
    path: str | None = None
    if isinstance(records, (str, os.PathLike)):
        path = str(records)
        data = load_json(records)
    else:
        data = list(records)
    if not isinstance(data, list):
        raise DataError(path, None, None, "a MacNoise file is a JSON array of records")
    pairs: list[MacNoisePair] = []
    for r, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise DataError(path, r, None, f"expected a JSON object, got {type(rec).__name__}")
        for field in ("question", "answers", "ctxs"):
            if field not in rec:
                raise DataError(path, r, field, "missing")
        claim = claim_of(rec["question"], rec["answers"][0])
        flags = rec.get("pert_lbls") or [0] * len(rec["ctxs"])
        for c, (ctx, flag) in enumerate(zip(rec["ctxs"], flags, strict=False)):
            if not flag or ctx.get("text_pert") in (None, ctx.get("text")):
                continue
            ctx_id = str(ctx.get("id", c))
            original = Document(id=ctx_id, text=strip_prefix(ctx["text"]))
            perturbed = Document(id=f"{ctx_id}#pert", text=strip_prefix(ctx["text_pert"]))
            pairs.append(
                MacNoisePair(record=r, ctx=c, claim=claim, document=original, gold="SUPPORTS")
            )
            pairs.append(
                MacNoisePair(record=r, ctx=c, claim=claim, document=perturbed, gold="CONTRADICTS")
            )
    return pairs


class RelationAccuracy(BaseModel):
    """Accuracy per gold relation, and the confusion counts behind it."""

    total: dict[str, int]
    correct: dict[str, int]
    confusion: dict[str, dict[str, int]]

    def accuracy(self, relation: str) -> float | None:
        """Correct / total for one gold relation (None without pairs)."""
        n = self.total.get(relation, 0)
        return self.correct.get(relation, 0) / n if n else None


def evaluate_pairs(labeler: Labeler, pairs: Iterable[MacNoisePair]) -> RelationAccuracy:
    """Label each pair with ``labeler`` and count accuracy per gold relation."""
    pair_list = list(pairs)

    async def go() -> list[Relation | None]:
        out = []
        for p in pair_list:
            result = await labeler.label([p.claim], [p.document])
            out.append(result.pairs[0][0].label)
        return out

    predicted = run_sync(go())
    total: dict[str, int] = {}
    correct: dict[str, int] = {}
    confusion: dict[str, dict[str, int]] = {}
    for p, pred in zip(pair_list, predicted, strict=True):
        total[p.gold] = total.get(p.gold, 0) + 1
        correct[p.gold] = correct.get(p.gold, 0) + int(pred == p.gold)
        row = confusion.setdefault(p.gold, {})
        key = pred or "FAILED"
        row[key] = row.get(key, 0) + 1
    return RelationAccuracy(total=total, correct=correct, confusion=confusion)
