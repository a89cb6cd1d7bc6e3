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

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".aggregate": "Aggregate BatchAggregate aggregate aggregate_batch encode_table",
        ".decompose": "Decomposer Decomposition LLMDecomposer SentenceDecomposer WholeResponse",
        ".indexed_labels": "parse_indexed_labels",
        ".labelers": (
            "BaseLabeler Labeler LabelResult",
            "LLMLabeler PerClaimLLMLabeler PerDocumentLLMLabeler",
        ),
        ".lexical_labeler": "LexicalLabeler",
        ".nli": "NLILabeler",
        ".parse": "Judgement normalize_label parse_claims parse_judgement parse_label",
        ".scorer": "ConflictScorer ScoreBatchResult ScoreItem ScoreResult format_result",
        ".sentences": "split_sentences",
    },
)
