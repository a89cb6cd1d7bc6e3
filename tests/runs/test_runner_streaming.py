"""run_batch(keep_records=False): records stay in the checkpoint and are read back when asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval import ParseFailure, run_batch_sync
from conflicteval.errors import ModelError
from conflicteval.runs.lazyrecords import CheckpointRecords
from conflicteval.runs.runindex import FINISHED


async def work(item: dict[str, object]) -> dict[str, object]:
    n = int(item["n"])  # type: ignore[call-overload]
    if n % 7 == 3:
        raise ParseFailure(f"item {n}: no label", raw="???")
    if n % 11 == 5:
        raise ModelError(f"server said no to item {n}")
    return {"n": n, "square": n * n}


def items(count: int) -> list[dict[str, object]]:
    return [{"id": f"i{n:04d}", "n": n} for n in range(count)]


def test_streamed_run_matches_held_run(tmp_path: Path) -> None:
    data = items(300)
    held = run_batch_sync(work, data, checkpoint=tmp_path / "a.jsonl", concurrency=5)
    streamed = run_batch_sync(
        work, data, checkpoint=tmp_path / "b.jsonl", concurrency=5, keep_records=False
    )
    assert isinstance(streamed.records, CheckpointRecords)
    assert streamed.records.held == 0  # nothing finished is held apart from the checkpoint
    assert streamed.records.run_index.in_state(FINISHED) == 300
    assert list(streamed.records) == held.records  # same records, same (input) order
    assert streamed.records[7] == held.records[7]
    assert streamed.records[-2:] == held.records[-2:]
    assert streamed.counts == held.counts
    assert streamed.counts["parse_error"] > 0 and streamed.counts["model_error"] > 0
    assert streamed.total_usage == held.total_usage
    assert streamed.failure_reasons() == held.failure_reasons()
    assert streamed.report("items") == held.report("items")
    assert [r.id for r in streamed.ok] == [r.id for r in held.ok]


def test_streamed_records_are_this_runs_even_if_the_checkpoint_grows(tmp_path: Path) -> None:
    ckpt = tmp_path / "c.jsonl"
    first = run_batch_sync(work, items(40), checkpoint=ckpt, keep_records=False)
    before = [r.model_dump() for r in first.records]
    with ckpt.open("a", encoding="utf-8") as fh:  # a later line for an item (e.g. a retry)
        fh.write(json.dumps({"id": "i0003", "status": "ok", "result": {"n": -1}}) + "\n")
    assert [r.model_dump() for r in first.records] == before


def test_streamed_resume_counts_resumed_items(tmp_path: Path) -> None:
    ckpt = tmp_path / "d.jsonl"
    run_batch_sync(work, items(50), checkpoint=ckpt)
    again = run_batch_sync(work, items(80), checkpoint=ckpt, keep_records=False)
    assert again.resumed == 50
    assert again.counts["total"] == 80
    assert [r.id for r in again.records] == [f"i{n:04d}" for n in range(80)]
    assert again.usage.calls == 0


def test_without_a_checkpoint_records_are_kept(tmp_path: Path) -> None:
    result = run_batch_sync(work, items(10), keep_records=False)
    assert isinstance(result.records, list)
    assert len(result.records) == 10


def test_missing_line_is_an_error_not_a_silent_gap(tmp_path: Path, resumed_index: Any) -> None:
    ckpt = tmp_path / "e.jsonl"
    ckpt.write_text(json.dumps({"id": "a", "status": "ok"}) + "\n", encoding="utf-8")
    with pytest.raises(Exception, match="not in the checkpoint"):
        CheckpointRecords(ckpt, resumed_index(ckpt, ["a", "b"]))


def test_score_cli_streams_and_writes_every_row(tmp_path: Path) -> None:
    from conflicteval.cli import main

    rows = [
        {
            "id": f"r{i}",
            "response": f"The bridge opened in {1900 + i}. It was closed later.",
            "documents": [{"id": "d1", "text": f"The bridge opened in {1900 + i % 3}."}],
        }
        for i in range(30)
    ]
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    code = main(["score", "--input", str(data), "--out", str(out), "--quiet", "--no-cache"])
    assert code in (0, 1)
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [s["id"] for s in scores] == [r["id"] for r in rows]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["total"] == 30
    cs_c = [s["cs_c"] for s in scores if s["cs_c"] is not None]
    assert summary["mean_cs_c"] == pytest.approx(sum(cs_c) / len(cs_c))
