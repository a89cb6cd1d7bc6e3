"""ConflictScore: how much of a response takes one side of conflicting evidence.

Three stages (Liu, Xia, Halfaker, Roth, "ConflictScore: Identifying and Measuring
How Language Models Handle Conflicting Evidence", arXiv:2606.26437):

1. decompose the response into claims (:class:`LLMDecomposer` with the
   paper's Table 6 prompt, or offline :class:`SentenceDecomposer` /
   :class:`WholeResponse`);
2. label every claim against every document SUPPORTS / CONTRADICTS /
   IRRELEVANT (:class:`LLMLabeler` with the paper's Table 7 prompt, the cheaper
   :class:`PerDocumentLLMLabeler` / :class:`PerClaimLLMLabeler`, a local
   :class:`NLILabeler`, or the offline baseline :class:`LexicalLabeler`);
3. aggregate (:func:`aggregate`): CS-C = conflicted claims / claims, CS-R =
   mean of |D-| / (|D+| + |D-|).

:class:`ConflictScorer` runs the three for one response or a resumable batch.
See ``docs/conflictscore.md``.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.conflictscore.aggregate import (
        Aggregate,
        BatchAggregate,
        aggregate,
        aggregate_batch,
        encode_table,
    )
    from conflicteval.conflictscore.decompose import (
        Decomposer,
        Decomposition,
        LLMDecomposer,
        SentenceDecomposer,
        WholeResponse,
    )
    from conflicteval.conflictscore.indexed_labels import parse_indexed_labels
    from conflicteval.conflictscore.labelers import (
        BaseLabeler,
        Labeler,
        LabelResult,
        LLMLabeler,
        PerClaimLLMLabeler,
        PerDocumentLLMLabeler,
    )
    from conflicteval.conflictscore.lexical_labeler import LexicalLabeler
    from conflicteval.conflictscore.nli import NLILabeler
    from conflicteval.conflictscore.parse import (
        Judgement,
        normalize_label,
        parse_claims,
        parse_judgement,
        parse_label,
    )
    from conflicteval.conflictscore.scorer import (
        ConflictScorer,
        ScoreBatchResult,
        ScoreItem,
        ScoreResult,
        format_result,
    )
    from conflicteval.conflictscore.sentences import split_sentences

__all__ = [
    "Aggregate",
    "BaseLabeler",
    "BatchAggregate",
    "ConflictScorer",
    "Decomposer",
    "Decomposition",
    "Judgement",
    "LLMDecomposer",
    "LLMLabeler",
    "LabelResult",
    "Labeler",
    "LexicalLabeler",
    "NLILabeler",
    "PerClaimLLMLabeler",
    "PerDocumentLLMLabeler",
    "ScoreBatchResult",
    "ScoreItem",
    "ScoreResult",
    "SentenceDecomposer",
    "WholeResponse",
    "aggregate",
    "aggregate_batch",
    "encode_table",
    "format_result",
    "normalize_label",
    "parse_claims",
    "parse_indexed_labels",
    "parse_judgement",
    "parse_label",
    "split_sentences",
]

# Public names are imported on first use (see conflicteval._lazy): a fast start.
_lazy.install(
    __name__,
    {
        "Aggregate": (".aggregate", "Aggregate"),
        "BatchAggregate": (".aggregate", "BatchAggregate"),
        "aggregate": (".aggregate", "aggregate"),
        "aggregate_batch": (".aggregate", "aggregate_batch"),
        "encode_table": (".aggregate", "encode_table"),
        "Decomposer": (".decompose", "Decomposer"),
        "Decomposition": (".decompose", "Decomposition"),
        "LLMDecomposer": (".decompose", "LLMDecomposer"),
        "SentenceDecomposer": (".decompose", "SentenceDecomposer"),
        "WholeResponse": (".decompose", "WholeResponse"),
        "BaseLabeler": (".labelers", "BaseLabeler"),
        "Labeler": (".labelers", "Labeler"),
        "LabelResult": (".labelers", "LabelResult"),
        "LLMLabeler": (".labelers", "LLMLabeler"),
        "PerClaimLLMLabeler": (".labelers", "PerClaimLLMLabeler"),
        "PerDocumentLLMLabeler": (".labelers", "PerDocumentLLMLabeler"),
        "LexicalLabeler": (".lexical_labeler", "LexicalLabeler"),
        "NLILabeler": (".nli", "NLILabeler"),
        "Judgement": (".parse", "Judgement"),
        "normalize_label": (".parse", "normalize_label"),
        "parse_claims": (".parse", "parse_claims"),
        "parse_indexed_labels": (".indexed_labels", "parse_indexed_labels"),
        "parse_judgement": (".parse", "parse_judgement"),
        "parse_label": (".parse", "parse_label"),
        "ConflictScorer": (".scorer", "ConflictScorer"),
        "ScoreBatchResult": (".scorer", "ScoreBatchResult"),
        "ScoreItem": (".scorer", "ScoreItem"),
        "ScoreResult": (".scorer", "ScoreResult"),
        "format_result": (".scorer", "format_result"),
        "split_sentences": (".sentences", "split_sentences"),
    },
)
