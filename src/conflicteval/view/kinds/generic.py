"""Any other resumable run: a directory with a ``checkpoint.jsonl`` no other reader knows.

Shows counts, failures, usage and provenance, and each item's result as plain fields, so
a new kind of run is viewable before it has a reader of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflicteval.record_errors import reading_record

from ..common import (
    LazyRecords,
    flatten,
    models_in,
    record_item,
    run_provenance,
    stream_items,
    tally,
)
from ..model import ItemStream, RunView
from ..registry import RunKind, has_files


def item_fields(result: Any, limit: int = 40) -> list[list[Any]]:
    """A result as ``[[name, text]]`` rows (nested values flattened, long ones cut)."""
    if not isinstance(result, dict):
        return [] if result is None else [["result", str(result)[:2000]]]
    return [[k, v] for k, v in flatten(result, depth=3)[:limit]]


def generic_item(rec: Any) -> dict[str, Any]:
    """A record as an item: status, error, raw reply and its result's fields."""
    return record_item(
        rec,
        rec.error,
        value="failed" if rec.status != "ok" else None,
        fields=item_fields(rec.result),
        facets={},
    )


def _read(path: Path) -> RunView:
    # the records are read one at a time from the checkpoint, the items made as the page is
    # written: a run of any size is shown with bounded memory
    run = RunView("run", "Run", str(path))
    run.provenance = run_provenance(path)
    checkpoint = path / "checkpoint.jsonl"
    with reading_record(checkpoint):
        records = LazyRecords(checkpoint)
    models = models_in(run.provenance)
    tally(run, records, models[0] if len(models) == 1 else "unpriced")
    run.items = ItemStream(lambda: stream_items(checkpoint, records, generic_item), len(records))
    run.notes.append("a run of a kind without its own reader: items are shown as plain fields")
    return run


KIND = RunKind("run", "Run (generic checkpoint)", has_files("checkpoint.jsonl"), _read, priority=0)
