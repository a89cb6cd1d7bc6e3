"""conflicteval: conflict-aware evaluation of large language models.

Does a model notice, and say, that its sources disagree? conflicteval
implements WikiContradict, ConflictScore/ConflictBench and FEVEROUS on one
model layer with caching, retries, bounded concurrency and resumable runs.

The areas live in sub-packages (``conflicteval.wikicontradict``,
``conflicteval.conflictscore``, ``conflicteval.conflictbench``,
``conflicteval.feverous``); their main entry points are re-exported here.
"""

__version__ = "0.1.0"

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.cache import ResponseCache
    from conflicteval.conflictscore import (
        ConflictScorer,
        LabelResult,
        LexicalLabeler,
        LLMDecomposer,
        LLMLabeler,
        NLILabeler,
        PerClaimLLMLabeler,
        PerDocumentLLMLabeler,
        ScoreResult,
        SentenceDecomposer,
        WholeResponse,
        aggregate_batch,
        parse_claims,
        parse_label,
    )
    from conflicteval.conflictscore.aggregate import aggregate
    from conflicteval.dryrun import DryRunReport
    from conflicteval.errors import ConflictEvalError, DataError, ModelError, ParseFailure
    from conflicteval.feverous import FeverousClaim, FeverousScore
    from conflicteval.feverous import load_claims as load_feverous_claims
    from conflicteval.feverous import score as feverous_score
    from conflicteval.models import Model, get_model, register_provider
    from conflicteval.models.answerers import CacheOnly, Count, Export, Online, answer_with
    from conflicteval.runner import BatchResult, Record, run_batch, run_batch_sync
    from conflicteval.types import Completion, Document, PairLabel, Relation, Usage
    from conflicteval.wikicontradict import (
        Judge,
        WikiContradictInstance,
        judge_prompt,
        load_wikicontradict,
        parse_verdict,
    )

__all__ = [
    "BatchResult",
    "CacheOnly",
    "Completion",
    "ConflictEvalError",
    "ConflictScorer",
    "Count",
    "DataError",
    "Document",
    "DryRunReport",
    "Export",
    "FeverousClaim",
    "FeverousScore",
    "Judge",
    "LLMDecomposer",
    "LLMLabeler",
    "LabelResult",
    "LexicalLabeler",
    "Model",
    "ModelError",
    "NLILabeler",
    "Online",
    "PairLabel",
    "ParseFailure",
    "PerClaimLLMLabeler",
    "PerDocumentLLMLabeler",
    "Record",
    "Relation",
    "ResponseCache",
    "ScoreResult",
    "SentenceDecomposer",
    "Usage",
    "WholeResponse",
    "WikiContradictInstance",
    "__version__",
    "aggregate",
    "aggregate_batch",
    "answer_with",
    "feverous_score",
    "get_model",
    "judge_prompt",
    "load_feverous_claims",
    "load_wikicontradict",
    "parse_claims",
    "parse_label",
    "parse_verdict",
    "register_provider",
    "run_batch",
    "run_batch_sync",
]

# Public names are imported on first use (see conflicteval._lazy): a fast start.
_lazy.install(
    __name__,
    {
        "ResponseCache": ("conflicteval.cache", "ResponseCache"),
        "ConflictScorer": ("conflicteval.conflictscore", "ConflictScorer"),
        "LabelResult": ("conflicteval.conflictscore", "LabelResult"),
        "LexicalLabeler": ("conflicteval.conflictscore", "LexicalLabeler"),
        "LLMDecomposer": ("conflicteval.conflictscore", "LLMDecomposer"),
        "LLMLabeler": ("conflicteval.conflictscore", "LLMLabeler"),
        "NLILabeler": ("conflicteval.conflictscore", "NLILabeler"),
        "PerClaimLLMLabeler": ("conflicteval.conflictscore", "PerClaimLLMLabeler"),
        "PerDocumentLLMLabeler": ("conflicteval.conflictscore", "PerDocumentLLMLabeler"),
        "ScoreResult": ("conflicteval.conflictscore", "ScoreResult"),
        "SentenceDecomposer": ("conflicteval.conflictscore", "SentenceDecomposer"),
        "WholeResponse": ("conflicteval.conflictscore", "WholeResponse"),
        "aggregate": ("conflicteval.conflictscore", "aggregate"),
        "aggregate_batch": ("conflicteval.conflictscore", "aggregate_batch"),
        "parse_claims": ("conflicteval.conflictscore", "parse_claims"),
        "parse_label": ("conflicteval.conflictscore", "parse_label"),
        "DryRunReport": ("conflicteval.dryrun", "DryRunReport"),
        "CacheOnly": ("conflicteval.models.answerers", "CacheOnly"),
        "Count": ("conflicteval.models.answerers", "Count"),
        "Export": ("conflicteval.models.answerers", "Export"),
        "Online": ("conflicteval.models.answerers", "Online"),
        "answer_with": ("conflicteval.models.answerers", "answer_with"),
        "ConflictEvalError": ("conflicteval.errors", "ConflictEvalError"),
        "DataError": ("conflicteval.errors", "DataError"),
        "ModelError": ("conflicteval.errors", "ModelError"),
        "ParseFailure": ("conflicteval.errors", "ParseFailure"),
        "FeverousClaim": ("conflicteval.feverous", "FeverousClaim"),
        "FeverousScore": ("conflicteval.feverous", "FeverousScore"),
        "load_feverous_claims": ("conflicteval.feverous", "load_claims"),
        "feverous_score": ("conflicteval.feverous", "score"),
        "Model": ("conflicteval.models", "Model"),
        "get_model": ("conflicteval.models", "get_model"),
        "register_provider": ("conflicteval.models", "register_provider"),
        "BatchResult": ("conflicteval.runner", "BatchResult"),
        "Record": ("conflicteval.runner", "Record"),
        "run_batch": ("conflicteval.runner", "run_batch"),
        "run_batch_sync": ("conflicteval.runner", "run_batch_sync"),
        "Completion": ("conflicteval.types", "Completion"),
        "Document": ("conflicteval.types", "Document"),
        "PairLabel": ("conflicteval.types", "PairLabel"),
        "Relation": ("conflicteval.types", "Relation"),
        "Usage": ("conflicteval.types", "Usage"),
        "Judge": ("conflicteval.wikicontradict", "Judge"),
        "WikiContradictInstance": ("conflicteval.wikicontradict", "WikiContradictInstance"),
        "judge_prompt": ("conflicteval.wikicontradict", "judge_prompt"),
        "load_wikicontradict": ("conflicteval.wikicontradict", "load_wikicontradict"),
        "parse_verdict": ("conflicteval.wikicontradict", "parse_verdict"),
    },
)
