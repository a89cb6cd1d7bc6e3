"""The main entity of a ConflictBench question, named in the report prompts (paper §5).

``item.meta["main_entity"]`` when present; else a model with the library's
``conflictbench_main_entity`` prompt; else the offline heuristic
:func:`main_entity_heuristic`. A failed or cut-off model reply falls back to the heuristic
and is counted.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from conflicteval.conflictbench._prompts import load_prompt, render
from conflicteval.conflictbench.items import BenchItem
from conflicteval.errors import ModelError

__all__ = ["ENTITY_PROMPT", "find_main_entities", "main_entity_heuristic"]

ENTITY_PROMPT = "conflictbench_main_entity"

_AUX = re.compile(
    r"^(is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|"
    r"what|who|which|when|where|why|how)\s+",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(a|an|the)\s+", re.IGNORECASE)
_CUT = re.compile(
    r"\s+(a|an|the|good|bad|better|worse|really|truly|actually|have|has|had|cause|causes|"
    r"help|helps|make|makes|need|needs|work|works|exist|exists|affect|affects|improve|"
    r"improves|increase|increases|reduce|reduces|get|gets|lead|leads|understand|use|uses|"
    r"mean|means|contain|contains|go|goes|take|takes|know|knows|see|sees)\b",
    re.IGNORECASE,
)


def main_entity_heuristic(question: str) -> str:
    """Offline guess at a question's main entity.

    Drops a leading auxiliary or wh-word, a leading article and the final
    ``?``, then keeps the words before the first article, evaluative word or
    common verb ("Is infinite scrolling a good web design technique?" →
    "infinite scrolling"; "Does the moon have an atmosphere?" → "moon").
    Falls back to the whole remaining question. Pass ``entity_model`` to
    :func:`arun_reports`, or set ``meta["main_entity"]``, for better entities.
    """
    text = question.strip().rstrip("?").strip()
    text = _AUX.sub("", text, count=1)
    text = _ARTICLE.sub("", text, count=1)
    match = _CUT.search(text)
    head = text[: match.start()].strip() if match and match.start() > 0 else text
    return head or question.strip()


async def find_main_entities(
    items: Sequence[BenchItem], model: Any | None = None, *, max_tokens: int = 20
) -> tuple[dict[str, str], list[str]]:
    """Main entity of each item: ``meta["main_entity"]``, else the model, else the heuristic.

    Returns:
        ``({item id: entity}, ids whose model call failed and fell back to the heuristic)``.
    """
    out: dict[str, str] = {}
    failed: list[str] = []

    async def one(item: BenchItem) -> None:
        given = item.meta.get("main_entity")
        if isinstance(given, str) and given.strip():
            out[item.id] = given.strip()
            return
        if model is None:
            out[item.id] = main_entity_heuristic(item.question)
            return
        prompt = render(load_prompt(ENTITY_PROMPT), question=item.question)
        try:
            reply = await model.generate(
                [{"role": "user", "content": prompt}], temperature=0.0, max_tokens=max_tokens
            )
            entity = reply.text.strip().splitlines()[0].strip().strip('"').rstrip(".").strip()
            if reply.truncated:  # half a name is no name: the heuristic instead
                entity = ""
        except (ModelError, IndexError):
            entity = ""
        if not entity:
            failed.append(item.id)
            entity = main_entity_heuristic(item.question)
        out[item.id] = entity

    await asyncio.gather(*(one(it) for it in items))
    return out, sorted(failed)
