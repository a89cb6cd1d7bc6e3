"""Build decomposers and labelers from the short names the command line uses.

One place maps ``llm`` / ``llm-per-document`` / ``llm-per-claim`` / ``lexical``
/ ``nli`` and ``llm`` / ``sentence`` / ``whole`` to objects, so every command
(``score``, ``conflictbench detect``, ``feverous verify``, ...) accepts the
same names with the same meaning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conflicteval.suggest import unknown

if TYPE_CHECKING:  # imported where used: the command line lists these names at start-up
    from conflicteval.conflictscore.labelers import Labeler
    from conflicteval.models import Model

LABELER_KINDS = ("llm", "llm-per-document", "llm-per-claim", "lexical", "nli")
DECOMPOSER_KINDS = ("llm", "sentence", "whole")

_LLM_LABELERS = {
    "llm": "LLMLabeler",
    "llm-per-document": "PerDocumentLLMLabeler",
    "llm-per-claim": "PerClaimLLMLabeler",
}


def needs_model(kind: str) -> bool:
    """Whether a decomposer or labeler of this kind calls a model."""
    return kind.startswith("llm")


def make_labeler(
    kind: str, model: Model | None = None, *, nli_model: Any = None, structured: bool = True
) -> Labeler:
    """A labeler by name.

    Args:
        kind: One of :data:`LABELER_KINDS`.
        model: The model for the ``llm*`` kinds.
        nli_model: For ``nli``: a local model directory or a loaded model.
        structured: For the ``llm*`` kinds: send the reply's JSON schema as
            ``response_format`` (default). False is the paper's plain mode: the
            prompt alone asks for JSON and the reply is parsed leniently.

    Raises:
        ValueError: Unknown kind, or a missing model / NLI model.
    """
    if kind == "lexical":
        from conflicteval.conflictscore.lexical_labeler import LexicalLabeler

        return LexicalLabeler()
    if kind == "nli":
        if nli_model is None:
            raise ValueError("the nli labeler needs a local model directory (--nli-model DIR)")
        from conflicteval.conflictscore.nli import NLILabeler

        return NLILabeler(nli_model, device="auto")  # a GPU when there is one (a GPU actor)
    if kind not in _LLM_LABELERS:
        raise ValueError(unknown("labeler", kind, LABELER_KINDS))
    if model is None:
        raise ValueError(f"the {kind} labeler needs a model (--model SPEC)")
    from conflicteval.conflictscore import labelers

    labeler: Labeler = getattr(labelers, _LLM_LABELERS[kind])(model, structured=structured)
    return labeler


def make_decomposer(kind: str, model: Model | None = None) -> Any:
    """A decomposer by name (one of :data:`DECOMPOSER_KINDS`)."""
    from conflicteval.conflictscore.decompose import (
        LLMDecomposer,
        SentenceDecomposer,
        WholeResponse,
    )

    if kind == "sentence":
        return SentenceDecomposer()
    if kind == "whole":
        return WholeResponse()
    if kind != "llm":
        raise ValueError(unknown("decomposer", kind, DECOMPOSER_KINDS))
    if model is None:
        raise ValueError("the llm decomposer needs a model (--model SPEC)")
    return LLMDecomposer(model)


def scorer_kinds(decomposer: str | None, labeler: str | None, with_model: bool) -> tuple[str, str]:
    """The decomposer and labeler kinds a scorer uses when some are left unset: with a model,
    the paper's ``llm`` decomposer and labeler; without one, the offline ``sentence``
    decomposer and ``lexical`` labeler."""
    return (
        decomposer or ("llm" if with_model else "sentence"),
        labeler or ("llm" if with_model else "lexical"),
    )


def make_scorer(
    decomposer: str,
    labeler: str,
    model: Model | None = None,
    *,
    nli_model: Any = None,
    structured: bool = True,
) -> Any:
    """A :class:`~conflicteval.conflictscore.scorer.ConflictScorer` from its kinds.

    Raises:
        ValueError: Unknown kind, or an ``llm`` kind without a model (an ``nli`` labeler
            without its model directory).
    """
    from conflicteval.conflictscore.scorer import ConflictScorer

    return ConflictScorer(
        make_decomposer(decomposer, model),
        make_labeler(labeler, model, nli_model=nli_model, structured=structured),
    )
