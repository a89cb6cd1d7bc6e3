"""``Stage``: one workflow step's checkpoint, identity and inputs, run with the caller's options."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from conflicteval import runs
from conflicteval.errors import CheckpointMismatch
from conflicteval.runs import RunOptions, Stage, read_identity


async def _double(item: dict[str, Any]) -> int:
    return int(item["x"]) * 2


def test_a_stage_records_its_identity_and_recomputes_changed_inputs(tmp_path: Path) -> None:
    ck = tmp_path / "ck.jsonl"
    stage = Stage("doubling", ck, identity={"task": "double"}, inputs=lambda it: it["x"])
    items = [{"id": "a", "x": 1}, {"id": "b", "x": 2}]
    first = asyncio.run(stage.run(_double, items, concurrency=2))
    assert [r.result for r in first.records] == [2, 4]
    assert read_identity(ck) == {"task": "double"}
    again = asyncio.run(
        stage.run(_double, [{"id": "a", "x": 1}, {"id": "b", "x": 5}], None, concurrency=2)
    )
    assert (again.resumed, again.changed) == (1, 1)
    assert [r.result for r in again.records] == [2, 10]
    other = Stage("doubling", ck, identity={"task": "triple"})
    with pytest.raises(CheckpointMismatch):
        asyncio.run(other.run(_double, items, concurrency=2))
    # the caller's options: restart moves the old checkpoint aside
    fresh = asyncio.run(other.run(_double, items, RunOptions(restart=True), concurrency=2))
    assert fresh.resumed == 0 and read_identity(ck) == {"task": "triple"}


class SlowLabeler:
    """A labeler that never answers within the tests' item bound."""

    name = "slow"

    async def label(self, claims: list[str], documents: list[Any]) -> Any:
        await asyncio.Event().wait()  # never set: only the item bound ends the call
        raise AssertionError("never reached")


@pytest.mark.parametrize("how", ["options", "keyword"])
def test_the_item_bound_reaches_a_workflows_batch_and_no_global_is_left(how: str) -> None:
    """``item_timeout`` works inside ``options`` and as a plain keyword (once only the former)."""
    from conflicteval.conflictscore import ConflictScorer, SentenceDecomposer

    scorer = ConflictScorer(SentenceDecomposer(), SlowLabeler())  # type: ignore[arg-type]
    items = [{"id": "r1", "response": "The sky is blue.", "documents": ["The sky is blue."]}]
    run: dict[str, Any] = (
        {"options": RunOptions(item_timeout=0.2)} if how == "options" else {"item_timeout": 0.2}
    )
    result = scorer.score_many(items, progress=False, **run)
    (rec,) = result.records
    assert rec.status == "model_error" and "item timed out" in str(rec.error)
    assert not hasattr(runs, "DEFAULT_ITEM_TIMEOUT") and not hasattr(runs, "DEFAULT_ADOPT")


def test_run_keywords_make_one_run_options_and_a_set_keyword_wins() -> None:
    assert RunOptions.of({}, concurrency=8) == RunOptions(concurrency=8)
    base = RunOptions(concurrency=3, restart=True, item_timeout=5.0, adopt=True)
    # options from the caller keep their concurrency; the workflow's default fills a gap
    assert RunOptions.of({"options": base}, concurrency=8) == base
    mine = RunOptions.of(
        {"options": base, "progress": False, "executor": "local", "retry_failed": True},
        concurrency=8,
    )
    assert (mine.progress, mine.executor, mine.retry_failed, mine.restart) == (
        False,
        "local",
        True,
        True,
    )
    assert RunOptions.of({"concurrency": 5, "adopt": False}, concurrency=8) == RunOptions(
        concurrency=5, adopt=False
    )
