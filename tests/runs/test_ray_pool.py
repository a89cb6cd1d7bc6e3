"""The Ray executor's actor pool: batch sizes, batches queued on one actor sharing its gate
of items, the pool's start-up timed apart from the items, the local records."""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest

from conflicteval import run_batch_sync
from conflicteval.runs.ray_pool import BATCHES_IN_FLIGHT, batches_of, default_batch_size

HAVE_RAY = all(importlib.util.find_spec(m) is not None for m in ("ray", "pyarrow"))
needs_ray = pytest.mark.skipif(
    not HAVE_RAY, reason="ray is not installed (extra: pip install '.[ray]')"
)


def test_batch_size_is_four_rounds_but_leaves_every_actor_four_batches() -> None:
    assert default_batch_size(10_000, actors=2, concurrency=8) == 32  # 4 rounds of 8
    assert default_batch_size(100, actors=2, concurrency=8) == 13  # ceil(100 / 8)
    assert default_batch_size(3, actors=4, concurrency=8) == 1
    assert default_batch_size(0, actors=1, concurrency=1) == 1


def test_batches_keep_every_row_in_order() -> None:
    rows = [(f"i{k}", bytes([k])) for k in range(7)]
    batches = list(batches_of(rows, 3))
    assert [ids for ids, _ in batches] == [["i0", "i1", "i2"], ["i3", "i4", "i5"], ["i6"]]
    assert [p for _, payloads in batches for p in payloads] == [bytes([k]) for k in range(7)]


@pytest.mark.slow
@needs_ray
def test_batches_queued_on_one_actor_share_its_gate_of_items(ray_session: Any) -> None:
    """Two batches run at once on an actor, yet no more than ``concurrency`` items."""
    from conflicteval.runs.ray import RayExecutor

    assert BATCHES_IN_FLIGHT >= 2
    state = {"now": 0, "peak": 0}  # pickled with the function: one copy per actor

    async def work(item: dict[str, Any]) -> int:
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        # 0.5 s: time enough for the second batch to reach the actor while the first one's
        # items still run (with 0.05 s a loaded machine sometimes delivered it too late)
        await asyncio.sleep(0.5)
        state["now"] -= 1
        return state["peak"]

    items = [{"id": f"g{k}"} for k in range(24)]
    executor = RayExecutor(actors=1, batch_size=2)
    result = run_batch_sync(work, items, concurrency=3, executor=executor)
    peaks = [r.result for r in result.records]
    assert result.counts["ok"] == 24
    assert max(peaks) == 3  # batches of 2 overlapped (one batch alone never exceeds 2) ...
    assert all(p <= 3 for p in peaks)  # ... behind the one gate of 3


@pytest.mark.slow
@needs_ray
def test_the_pool_start_is_timed_apart_and_the_records_are_the_local_ones(
    ray_session: Any,
) -> None:
    from conflicteval.runs.ray import RayExecutor

    async def work(item: dict[str, Any]) -> dict[str, int]:
        await asyncio.sleep(0)
        return {"square": item["n"] ** 2}

    items = [{"id": f"t{n}", "n": n} for n in range(50)]
    executor = RayExecutor(actors=2)
    on_ray = run_batch_sync(work, items, concurrency=4, executor=executor)
    local = run_batch_sync(work, items, concurrency=4)
    assert [r.model_dump() for r in on_ray.records] == [r.model_dump() for r in local.records]
    assert set(executor.timings) == {"connect", "actors", "items"}
    assert executor.timings["connect"] < 1.0  # Ray was already running
    assert executor.timings["actors"] > 0 and executor.timings["items"] > 0


@pytest.mark.slow
@needs_ray
def test_batches_of_one_from_the_start_warn_of_no_lost_item(
    ray_session: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Few items per actor make the first pass one item per batch already: every item comes
    back, so no "did not come back" warning (it used to be logged before any batch was sent)."""
    from conflicteval.runs.ray import RayExecutor

    async def work(item: dict[str, Any]) -> int:
        return len(item["id"])

    items = [{"id": f"w{k}"} for k in range(3)]
    with caplog.at_level("WARNING", logger="conflicteval"):
        result = run_batch_sync(work, items, concurrency=4, executor=RayExecutor(actors=1))
    assert result.counts["ok"] == 3
    assert not [r for r in caplog.records if "did not come back" in r.getMessage()]
