"""The result contract every run writes (``summary.json``, schema ``conflicteval.run/1``),
reading a run back (:func:`load_run`), paired comparison of two runs (:func:`compare`) and
the per-kind builders (:mod:`conflicteval.results.kinds`). See docs/results.md."""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from .build import build_summary, write_run
    from .compare import Comparison, compare
    from .contract import SCHEMA, ItemRecord, Metric, RunSummary
    from .load import Run, load_run

__all__ = _lazy.exports(
    __name__,
    {
        ".build": "build_summary write_run",
        ".compare": "Comparison compare",
        ".contract": "SCHEMA ItemRecord Metric RunSummary",
        ".load": "Run load_run",
    },
)
