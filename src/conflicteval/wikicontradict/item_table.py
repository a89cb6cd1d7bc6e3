"""The flat per-item view of a WikiContradict run: one row per generated response.

``generations.jsonl`` and ``judgements.jsonl`` are checkpoints (``id, status,
result{...}, error, raw, usage``); this joins them into one flat table with the
columns a reader wants: the row's id, model, template, instance, question, the
response, the verdict and the judge's comment, the gold answers, tokens and an
estimated cost. A row that failed (generation or judge) or is not graded yet is
kept, with an empty verdict and the reason in ``error``.

``cost_usd`` is the list price (:mod:`conflicteval.pricing`) of the row's tokens,
generation and judge together, whether or not a call was replayed from the cache
(what the row costs to produce); None when a model's price is not known.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from conflicteval import pricing
from conflicteval.errors import require
from conflicteval.runs import read_checkpoint
from conflicteval.wikicontradict.generate import read_generations
from conflicteval.wikicontradict.judge import JUDGEMENTS_FILE, current_grades

__all__ = ["ITEM_COLUMNS", "ItemRow", "ItemTable", "build_item_table"]


class ItemRow(BaseModel):
    """One generated response with its grade, flat."""

    id: str
    model: str
    template: str
    instance_id: str
    contradiction_type: str
    question: str
    response: str | None
    verdict: str | None
    judge_comment: str | None
    judge: str | None
    gold_answers: list[str]
    status: str
    error: str | None
    generation_prompt_tokens: int
    generation_completion_tokens: int
    judge_prompt_tokens: int
    judge_completion_tokens: int
    cost_usd: float | None


ITEM_COLUMNS: tuple[str, ...] = tuple(ItemRow.model_fields)
"""The table's columns, in order."""


def _cost(parts: list[tuple[str, int, int]]) -> float | None:
    total = 0.0
    for model, prompt, completion in parts:
        if not prompt and not completion:
            continue
        cost = pricing.estimate(model, prompt, completion)
        if cost is None:
            return None
        total += cost
    return round(total, 8)


class ItemTable(BaseModel):
    """The per-item rows of a run (see the module docstring)."""

    rows: list[ItemRow]

    def dicts(self) -> list[dict[str, Any]]:
        """The rows as plain dicts (gold answers as a list)."""
        return [r.model_dump() for r in self.rows]

    def to_csv(self) -> str:
        """CSV text, one line per item; gold answers joined with `` | ``."""
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(ITEM_COLUMNS), lineterminator="\n")
        writer.writeheader()
        for row in self.dicts():
            row["gold_answers"] = " | ".join(row["gold_answers"])
            writer.writerow(row)
        return buf.getvalue()

    def to_jsonl(self) -> str:
        """JSON lines, one object per item."""
        return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in self.dicts())

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (needs the ``pandas`` extra)."""
        pd: Any = require("pandas", "pandas")
        return pd.DataFrame(self.dicts(), columns=list(ITEM_COLUMNS))


def build_item_table(run: str | Path, judgements: str | Path | None = None) -> ItemTable:
    """The per-item table of a run: its generations joined with its judgements.

    Args:
        run: The run directory.
        judgements: The judgements file (default ``<run>/judgements.jsonl``; when it
            does not exist every generated row is "not graded").
    """
    gens = read_generations(run)
    jpath = Path(judgements) if judgements is not None else Path(run) / JUDGEMENTS_FILE
    graded = current_grades(read_checkpoint(jpath), gens)  # as the report: no stale grade
    rows = []
    for g in gens:
        rec = graded.get(g.id)
        result = rec.result if rec is not None and isinstance(rec.result, dict) else {}
        error = g.error if g.status != "ok" else None
        status = g.status
        if g.status == "ok" and rec is None:
            status, error = "ungraded", "not graded (run 'wikicontradict judge')"
        elif g.status == "ok" and rec is not None and rec.status != "ok":
            status, error = f"judge_{rec.status}", rec.error
        judge_usage = rec.usage if rec is not None else None
        judge = result.get("judge")
        parts = [(g.model, g.usage.prompt_tokens, g.usage.completion_tokens)]
        if judge_usage is not None:
            parts.append(
                (str(judge or ""), judge_usage.prompt_tokens, judge_usage.completion_tokens)
            )
        rows.append(
            ItemRow(
                id=g.id,
                model=g.model,
                template=g.template,
                instance_id=g.instance_id,
                contradiction_type=g.contradiction_type,
                question=g.question,
                response=g.response,
                verdict=result.get("label") if status == "ok" else None,
                judge_comment=result.get("comment") if status == "ok" else None,
                judge=str(judge) if judge else None,
                gold_answers=list(g.answers),
                status=status,
                error=error,
                generation_prompt_tokens=g.usage.prompt_tokens,
                generation_completion_tokens=g.usage.completion_tokens,
                judge_prompt_tokens=judge_usage.prompt_tokens if judge_usage else 0,
                judge_completion_tokens=judge_usage.completion_tokens if judge_usage else 0,
                cost_usd=_cost(parts),
            )
        )
    return ItemTable(rows=rows)
