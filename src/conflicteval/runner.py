"""Deprecated path of :mod:`conflicteval.runs`; kept for one release.

``from conflicteval.runner import run_batch, BatchResult, Record, ...`` keeps working
and warns with :class:`DeprecationWarning`; import the same names from
:mod:`conflicteval.runs` instead.
"""

from __future__ import annotations

import warnings

from conflicteval.runs.checkpoint import (
    META_SUFFIX,
    Record,
    meta_path,
    read_checkpoint,
    read_identity,
    record_identity,
)
from conflicteval.runs.itemrun import finish_record, run_item
from conflicteval.runs.options import RunKeywords, RunOptions
from conflicteval.runs.results import BatchResult
from conflicteval.runs.runner import run_batch, run_batch_sync, write_json_lines
from conflicteval.runs.stage import Stage

__all__ = [
    "META_SUFFIX",
    "BatchResult",
    "Record",
    "RunKeywords",
    "RunOptions",
    "Stage",
    "finish_record",
    "meta_path",
    "read_checkpoint",
    "read_identity",
    "record_identity",
    "run_batch",
    "run_batch_sync",
    "run_item",
    "write_json_lines",
]

warnings.warn(
    "conflicteval.runner is deprecated: import the same names from conflicteval.runs; "
    "this path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)
