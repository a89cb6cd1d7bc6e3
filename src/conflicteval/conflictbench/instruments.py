"""The labeler and scorer a ConflictBench command uses, by kind (with their defaults).

The kinds and how each is made are :mod:`conflicteval.conflictscore.factory`'s; ConflictBench's
commands take every labeler kind but ``nli`` (they have no ``--nli-model``).
"""

from __future__ import annotations

from typing import Any

from conflicteval.conflictscore.factory import DECOMPOSER_KINDS, LABELER_KINDS
from conflicteval.errors import UsageError

LABELERS = tuple(kind for kind in LABELER_KINDS if kind != "nli")
DECOMPOSERS = DECOMPOSER_KINDS


def make_labeler(kind: str, model: Any, plain_json: bool = False) -> Any:
    """A labeler by kind; ``plain_json`` asks LLM labelers for JSON in the prompt only."""
    from conflicteval.conflictscore.factory import make_labeler as factory_labeler

    return factory_labeler(kind, model, structured=not plain_json)


def make_scorer(
    model: Any, decomposer: str | None, labeler: str | None, plain_json: bool = False
) -> Any:
    """A ConflictScorer: with a model, llm decomposer and labeler by default; without,
    the offline sentence decomposer and lexical labeler."""
    from conflicteval.conflictscore.factory import make_scorer as factory_scorer
    from conflicteval.conflictscore.factory import needs_model, scorer_kinds

    dec_kind, lab_kind = scorer_kinds(decomposer, labeler, model is not None)
    if model is None and (needs_model(dec_kind) or needs_model(lab_kind)):
        raise UsageError(f"--decomposer {dec_kind} / --labeler {lab_kind} need --scorer-model")
    return factory_scorer(dec_kind, lab_kind, model, structured=not plain_json)
