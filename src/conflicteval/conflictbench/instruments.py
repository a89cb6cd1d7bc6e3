"""The labeler and scorer a ConflictBench command uses, by kind (with their defaults)."""

from __future__ import annotations

from typing import Any

from conflicteval.errors import UsageError

LABELERS = ("llm", "llm-per-document", "llm-per-claim", "lexical")
DECOMPOSERS = ("llm", "sentence", "whole")


def make_labeler(kind: str, model: Any, plain_json: bool = False) -> Any:
    """A labeler by kind; ``plain_json`` asks LLM labelers for JSON in the prompt only."""
    from conflicteval.conflictscore.factory import make_labeler as factory_labeler

    return factory_labeler(kind, model, structured=not plain_json)


def make_scorer(
    model: Any, decomposer: str | None, labeler: str | None, plain_json: bool = False
) -> Any:
    """A ConflictScorer: with a model, llm decomposer and labeler by default; without,
    the offline sentence decomposer and lexical labeler."""
    from conflicteval.conflictscore import (
        ConflictScorer,
        LLMDecomposer,
        SentenceDecomposer,
        WholeResponse,
    )

    dec_kind = decomposer or ("llm" if model is not None else "sentence")
    lab_kind = labeler or ("llm" if model is not None else "lexical")
    if dec_kind == "llm":
        if model is None:
            raise UsageError("--decomposer llm needs --scorer-model")
        dec: Any = LLMDecomposer(model)
    else:
        dec = WholeResponse() if dec_kind == "whole" else SentenceDecomposer()
    return ConflictScorer(dec, make_labeler(lab_kind, model, plain_json))
