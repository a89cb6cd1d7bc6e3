"""Stage 2 of ConflictScore: label every claim against every document.

Every labeler has ``name`` and ``async label(claims, documents) -> LabelResult``
(plus ``label_sync``). The result is the full claims x documents table of
:class:`~conflicteval.types.PairLabel`; a pair whose label could not be had has
``label`` None, ``error`` and ``raw``: failed pairs are never IRRELEVANT.

LLM labelers and their number of model calls for ``C`` claims and ``D``
documents (a reply that fails the JSON check is re-asked once, which adds a
call):

* :class:`LLMLabeler` -- the paper's Table 7 prompt, one call per pair: ``C x D``.
* :class:`PerDocumentLLMLabeler` -- all claims against one document per call: ``D``.
* :class:`PerClaimLLMLabeler` -- all documents against one claim per call: ``C``.
  The paper (Limitations) notes that showing all documents at once "often
  reduces accuracy": contradictory details get merged or overlooked.

The two batched prompts are the project's own, not the paper's.

The shared parts are in ``label_common``, the Table 7 labeler in ``pair_labeler``
and the two batched labelers in ``batched_labelers``; every name stays importable
from here.
"""

from __future__ import annotations

from .batched_labelers import (
    BatchReply,
    PerClaimLLMLabeler,
    PerDocumentLLMLabeler,
    per_claim_labels_from_reply,
    per_claim_prompt,
    per_document_labels_from_reply,
    per_document_prompt,
)
from .label_common import (
    BATCH_TOKENS_PER_ITEM,
    LABEL_SETTINGS,
    BaseLabeler,
    Labeler,
    LabelResult,
    batch_budget,
    document_text,
)
from .pair_labeler import LLMLabeler, PairReply, pair_label_from_reply, pair_prompt

__all__ = [
    "BATCH_TOKENS_PER_ITEM",
    "LABEL_SETTINGS",
    "BaseLabeler",
    "BatchReply",
    "LLMLabeler",
    "LabelResult",
    "Labeler",
    "PairReply",
    "PerClaimLLMLabeler",
    "PerDocumentLLMLabeler",
    "batch_budget",
    "document_text",
    "pair_label_from_reply",
    "pair_prompt",
    "per_claim_labels_from_reply",
    "per_claim_prompt",
    "per_document_labels_from_reply",
    "per_document_prompt",
]
