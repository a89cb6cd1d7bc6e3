"""The runner's memory does not grow with its items: counted with tracemalloc, not timed.

Each test runs the same thing at 1,000 and at 4,000 items and compares the peaks of memory
allocated by Python during the run. Holding ids, fingerprints, finished-id sets, offsets or
the checkpoint's records in memory (as the runner did before its index moved to disk) grows
by hundreds of bytes to kilobytes an item, several hundred kilobytes to megabytes over the
3,000 extra items; the bounds below are well under that and well over the noise.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conflicteval import run_batch_sync
from conflicteval.errors import PendingCall

PAD = "x" * 1000  # a record of about 1.1 KB


async def work(item: dict[str, Any]) -> dict[str, Any]:
    return {"n": item["n"], "text": PAD}


async def export_work(item: dict[str, Any]) -> dict[str, Any]:
    raise PendingCall(f"{item['n']:064d}", "openai/m")  # left pending: never checkpointed


def _items(n: int) -> list[dict[str, Any]]:
    # ids longer than pydantic's string cache keeps (64 characters): its bounded cache is no item
    return [{"id": f"item-{i:06d}-" + "k" * 64, "n": i} for i in range(n)]


def _inputs(item: dict[str, Any]) -> Any:
    return item["n"]


def _peak(run: Callable[[], Any]) -> tuple[int, Any]:
    """Peak bytes Python allocated while ``run()`` ran, and what it returned."""
    gc.collect()
    tracemalloc.start()
    try:
        value = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, value


def _growth(tmp_path: Path, prepare: bool, fn: Any = work, **options: Any) -> int:
    """Peak at 4,000 items minus the peak at 1,000 (``prepare``: a checkpoint to resume)."""
    warm = {**options, "checkpoint": tmp_path / "warm.jsonl", "progress": False}
    run_batch_sync(fn, _items(10), inputs=_inputs, **warm)  # imports and first-use caches
    peaks = []
    for n in (1_000, 4_000):
        items = _items(n)
        ck = tmp_path / f"ck{n}.jsonl"
        options.update(checkpoint=ck, keep_records=False, progress=False, inputs=_inputs)
        if prepare:
            run_batch_sync(fn, items, **options)
        peak, result = _peak(lambda: run_batch_sync(fn, items, **options))  # noqa: B023
        assert result.counts["total"] == n and result.resumed == (n if prepare else 0)
        assert sum(1 for _ in result.records) == n
        peaks.append(peak)
    return peaks[1] - peaks[0]


def test_a_fresh_run_keeps_nothing_per_item_in_memory(tmp_path: Path) -> None:
    assert _growth(tmp_path, prepare=False) < 250_000


def test_resume_does_not_read_the_checkpoint_into_memory(tmp_path: Path) -> None:
    # reading it whole would hold 3,000 more records of ~1.1 KB: over 3 MB more
    assert _growth(tmp_path, prepare=True) < 250_000


def test_pending_records_are_not_held_in_memory(tmp_path: Path) -> None:
    assert _growth(tmp_path, prepare=False, fn=export_work) < 250_000
