"""What runs items: records, the checkpoint, the run index, progress, ``Stage``, ``run_batch``.

Below the workflows that run batches and above the model layer. The item executors
live here too: :mod:`~conflicteval.runs.executor` (their protocol, the local executor on
this process's event loop, the default, and the choice by name) and
:mod:`~conflicteval.runs.ray` (Ray actors). How calls leave as files (export, import, the
Batch API clients, rounds) is the neighbouring package :mod:`conflicteval.batch`.

``from conflicteval.runs import run_batch, BatchResult, Record, ...`` is the public
path; :mod:`conflicteval.runs` re-exports the same names for one release.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
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

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".checkpoint": "META_SUFFIX Record meta_path read_checkpoint read_identity record_identity",
        ".itemrun": "finish_record run_item",
        ".options": "RunKeywords RunOptions",
        ".results": "BatchResult",
        ".runner": "run_batch run_batch_sync write_json_lines",
        ".stage": "Stage",
    },
)
