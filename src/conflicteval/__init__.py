"""conflicteval: conflict-aware evaluation of large language models.

Does a model notice, and say, that its sources disagree? conflicteval
implements WikiContradict, ConflictScore/ConflictBench and FEVEROUS on one
model layer with caching, retries, bounded concurrency and resumable runs.

The areas live in sub-packages (``conflicteval.wikicontradict``,
``conflicteval.conflictscore``, ``conflicteval.conflictbench``,
``conflicteval.feverous``); their main entry points are re-exported here.
"""

__version__ = "0.1.0"

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
    aggregate,
    aggregate_batch,
    parse_claims,
    parse_label,
)
from conflicteval.dryrun import DryRunReport, PlannedCall, dry_run
from conflicteval.errors import ConflictEvalError, DataError, ModelError, ParseFailure
from conflicteval.feverous import FeverousClaim, FeverousScore
from conflicteval.feverous import load_claims as load_feverous_claims
from conflicteval.feverous import score as feverous_score
from conflicteval.models import Model, get_model, register_provider
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
    "Completion",
    "ConflictEvalError",
    "ConflictScorer",
    "DataError",
    "Document",
    "DryRunReport",
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
    "PairLabel",
    "ParseFailure",
    "PerClaimLLMLabeler",
    "PerDocumentLLMLabeler",
    "PlannedCall",
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
    "dry_run",
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
