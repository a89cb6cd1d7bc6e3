"""The public path of batch execution (the modules are in :mod:`conflicteval.execution`).

``from conflicteval.runner import run_batch, BatchResult, Record, ...`` keeps working;
see :mod:`conflicteval.execution.runner` for how a batch runs.
"""

from __future__ import annotations

from conflicteval.execution.checkpoint import (
    META_SUFFIX,
    Record,
    meta_path,
    read_checkpoint,
    read_identity,
    record_identity,
)
from conflicteval.execution.itemrun import finish_record, run_item
from conflicteval.execution.options import RunKeywords, RunOptions
from conflicteval.execution.results import BatchResult
from conflicteval.execution.runner import run_batch, run_batch_sync, write_json_lines
from conflicteval.execution.stage import Stage

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
