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
    from conflicteval.bench.store import load_measurements, measured_lines, save_measurement

__all__ = [
    "GOLD_SETS",
    "RAMDOCS_TEMPLATE",
    "BenchRecord",
    "BenchResult",
    "GoldItem",
    "GoldSet",
    "arun_labeler_bench",
    "load_gold",
    "load_measurements",
    "measured_lines",
    "ramdocs_claim",
    "run_labeler_bench",
    "save_measurement",
]

_lazy.install(
    __name__,
    {
        "GOLD_SETS": ("conflicteval.bench.gold", "GOLD_SETS"),
        "RAMDOCS_TEMPLATE": ("conflicteval.bench.gold", "RAMDOCS_TEMPLATE"),
        "GoldItem": ("conflicteval.bench.gold", "GoldItem"),
        "GoldSet": ("conflicteval.bench.gold", "GoldSet"),
        "load_gold": ("conflicteval.bench.gold", "load_gold"),
        "ramdocs_claim": ("conflicteval.bench.gold", "ramdocs_claim"),
        "BenchRecord": ("conflicteval.bench.result", "BenchRecord"),
        "BenchResult": ("conflicteval.bench.result", "BenchResult"),
        "arun_labeler_bench": ("conflicteval.bench.run", "arun_labeler_bench"),
        "run_labeler_bench": ("conflicteval.bench.run", "run_labeler_bench"),
        "load_measurements": ("conflicteval.bench.store", "load_measurements"),
        "measured_lines": ("conflicteval.bench.store", "measured_lines"),
        "save_measurement": ("conflicteval.bench.store", "save_measurement"),
    },
)
