"""The labeler bench: measure a SUPPORTS / CONTRADICTS / IRRELEVANT labeler on gold relations.

``run_labeler_bench(gold, labeler, ...)`` runs any ConflictScore labeler over a gold
set (FEVEROUS, FEVEROUS-S, RAMDocs, ConflictBench; see :mod:`conflicteval.bench.gold`)
and returns a :class:`BenchResult`: per-class precision / recall / F1, macro-F1,
accuracy and the confusion matrix, each figure with a percentile bootstrap 95 %
interval (:mod:`conflicteval.stats`), the failed pairs, calls, tokens and cost.
The command line is ``conflicteval bench labeler`` (see docs/bench.md).
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.bench.gold import (
        GOLD_SETS,
        RAMDOCS_TEMPLATE,
        GoldItem,
        GoldSet,
        load_gold,
        ramdocs_claim,
    )
    from conflicteval.bench.result import BenchRecord, BenchResult
    from conflicteval.bench.run import arun_labeler_bench, run_labeler_bench
    from conflicteval.measurements import load_measurements, measured_lines, save_measurement

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".gold": "GOLD_SETS RAMDOCS_TEMPLATE GoldItem GoldSet load_gold ramdocs_claim",
        ".result": "BenchRecord BenchResult",
        ".run": "arun_labeler_bench run_labeler_bench",
        "conflicteval.measurements": "load_measurements measured_lines save_measurement",
    },
)
