"""The scorer the ragas and deepeval metrics share, from the arguments both adapters take."""

from __future__ import annotations

from typing import Any

from conflicteval.conflictscore.scorer import ConflictScorer
from conflicteval.conflictscore.shared import SharedScorer, build_scorer
from conflicteval.models import Model

__all__ = ["shared_scorer"]


def shared_scorer(
    scorer: SharedScorer | ConflictScorer | None,
    model: Model | str | None = None,
    *,
    decomposer: str = "llm",
    labeler: str = "llm",
    nli_model: Any = None,
) -> SharedScorer:
    """``scorer`` as a :class:`SharedScorer` that metrics can share.

    A SharedScorer is used as is and a ConflictScorer is wrapped in one; with no ``scorer``,
    one is built from ``model`` and the stage names (:func:`build_scorer`).

    Raises:
        ValueError: As :func:`build_scorer` (unknown stage name, an LLM stage without a model).
    """
    if scorer is None:
        scorer = build_scorer(model, decomposer=decomposer, labeler=labeler, nli_model=nli_model)
    return scorer if isinstance(scorer, SharedScorer) else SharedScorer(scorer)
