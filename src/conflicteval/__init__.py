"""conflicteval: conflict-aware evaluation of large language models.

Does a model notice, and say, that its sources disagree? conflicteval
implements WikiContradict, ConflictScore/ConflictBench and FEVEROUS on one
model layer with caching, retries, bounded concurrency and resumable runs.
"""

from conflicteval.cache import ResponseCache
from conflicteval.dryrun import DryRunReport, PlannedCall, dry_run
from conflicteval.errors import ConflictEvalError, DataError, ModelError, ParseFailure
from conflicteval.models import Model, get_model, register_provider
from conflicteval.runner import BatchResult, Record, run_batch, run_batch_sync
from conflicteval.types import Completion, Document, PairLabel, Relation, Usage

__version__ = "0.1.0"

__all__ = [
    "BatchResult",
    "Completion",
    "ConflictEvalError",
    "DataError",
    "Document",
    "DryRunReport",
    "Model",
    "ModelError",
    "PairLabel",
    "ParseFailure",
    "PlannedCall",
    "Record",
    "Relation",
    "ResponseCache",
    "Usage",
    "__version__",
    "dry_run",
    "get_model",
    "register_provider",
    "run_batch",
    "run_batch_sync",
]
