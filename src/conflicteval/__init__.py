"""conflicteval: conflict-aware evaluation of large language models.

Does a model notice, and say, that its sources disagree? conflicteval
implements WikiContradict, ConflictScore/ConflictBench and FEVEROUS on one
model layer with caching, retries, bounded concurrency and resumable runs.

The areas live in sub-packages (``conflicteval.wikicontradict``,
``conflicteval.conflictscore``, ``conflicteval.conflictbench``,
``conflicteval.feverous``); their main entry points are re-exported here.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy
from conflicteval._version import __version__

if TYPE_CHECKING:
    from conflicteval.cache import ResponseCache
    from conflicteval.cli.profile import profile
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
    from conflicteval.errors import ConflictEvalError, DataError, ModelError, ParseFailure
    from conflicteval.feverous import FeverousClaim, FeverousScore
    from conflicteval.feverous import load_claims as load_feverous_claims
    from conflicteval.feverous import score as feverous_score
    from conflicteval.models import Model, get_model, register_provider
    from conflicteval.models.answerers import CacheOnly, Count, Export, Online, answer_with
    from conflicteval.models.dryrun import DryRunReport
    from conflicteval.results.compare import compare
    from conflicteval.results.load import load_run
    from conflicteval.runs import BatchResult, Record, run_batch, run_batch_sync
    from conflicteval.types import Completion, Document, PairLabel, Relation, Usage
    from conflicteval.wikicontradict import (
        Judge,
        WikiContradictInstance,
        judge_prompt,
        load_wikicontradict,
        parse_verdict,
    )

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = [
    "__version__",
    *_lazy.exports(
        __name__,
        {
            ".cache": "ResponseCache",
            ".conflictscore": (
                "ConflictScorer LabelResult LexicalLabeler LLMDecomposer LLMLabeler NLILabeler",
                "PerClaimLLMLabeler PerDocumentLLMLabeler ScoreResult SentenceDecomposer",
                "WholeResponse aggregate_batch parse_claims parse_label",
            ),
            ".conflictscore.aggregate": "aggregate",
            ".models.dryrun": "DryRunReport",
            ".models.answerers": "CacheOnly Count Export Online answer_with",
            ".errors": "ConflictEvalError DataError ModelError ParseFailure",
            ".feverous": (
                "FeverousClaim FeverousScore",
                "load_feverous_claims=load_claims feverous_score=score",
            ),
            ".models": "Model get_model register_provider",
            ".cli.profile": "profile",
            ".results.compare": "compare",
            ".results.load": "load_run",
            ".runs": "BatchResult Record run_batch run_batch_sync",
            ".types": "Completion Document PairLabel Relation Usage",
            ".wikicontradict": (
                "Judge WikiContradictInstance judge_prompt",
                "load_wikicontradict parse_verdict",
            ),
        },
    ),
]
