"""The helpers every viewer kind shares: the input file's items by id, and a run's tally."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from conflicteval.runner import Record
from conflicteval.types import Usage
from conflicteval.view.common import items_by_id, tally
from conflicteval.view.model import RunView


def _run_with_input(tmp_path: Path, text: str) -> Path:
    items = tmp_path / "items.jsonl"
    items.write_text(text, encoding="utf-8")
    (tmp_path / "data.json").write_text(json.dumps({"files": [{"path": str(items)}]}))
    return items


def _read(path: Path) -> list[SimpleNamespace]:
    return [SimpleNamespace(id=json.loads(line)["id"]) for line in path.read_text().splitlines()]


def test_items_by_id_reads_the_recorded_input(tmp_path: Path) -> None:
    _run_with_input(tmp_path, '{"id": "a"}\n{"id": "b"}\n')
    run = RunView("x", "X", str(tmp_path))
    assert sorted(items_by_id(run, tmp_path, _read, "items file", "claims not shown")) == ["a", "b"]
    assert run.notes == []


def test_an_unreadable_input_is_one_note_not_an_error(tmp_path: Path) -> None:
    items = _run_with_input(tmp_path, "not json\n")
    run = RunView("x", "X", str(tmp_path))
    assert items_by_id(run, tmp_path, _read, "items file", "claims not shown") == {}
    assert len(run.notes) == 1
    assert run.notes[0].startswith(f"items file {items} unreadable (")
    assert run.notes[0].endswith("): claims not shown")


def test_a_gone_input_gives_no_items(tmp_path: Path) -> None:
    _run_with_input(tmp_path, '{"id": "a"}\n').unlink()
    run = RunView("x", "X", str(tmp_path))
    assert items_by_id(run, tmp_path, _read, "items file", "claims not shown") == {}
    assert run.notes == []


def test_tally_counts_failures_and_usage() -> None:
    records = [
        Record(id="a", status="ok", usage=Usage(calls=1, prompt_tokens=10, completion_tokens=2)),
        Record(id="b", status="parse_error", error="no label", usage=Usage(calls=2)),
    ]
    run = RunView("x", "X", "dir")
    tally(run, records, "offline")
    assert (run.counts["ok"], run.counts["parse_error"], run.counts["total"]) == (1, 1, 2)
    assert run.failures == [("no label", 1, "b")]
    assert (run.usage["calls"], run.usage["prompt_tokens"]) == (3, 10)


def test_open_run_reads_records_and_sets_provenance(tmp_path: Path) -> None:
    from conflicteval.runner import run_batch_sync
    from conflicteval.view.common import open_run

    async def work(item: str) -> dict[str, str]:
        return {"echo": item}

    run_batch_sync(
        work,
        ["a", "b"],
        key=lambda item: item,
        checkpoint=tmp_path / "checkpoint.jsonl",
        identity={"task": "demo-task"},
        progress=False,
    )
    items = _run_with_input(tmp_path, '{"id": "a"}\n')
    run, records = open_run("demo", "Demo run", tmp_path)
    assert (run.kind, run.kind_title, run.path) == ("demo", "Demo run", str(tmp_path))
    assert sorted(r.id for r in records) == ["a", "b"]
    assert ("task", "demo-task") in run.provenance
    data = [value for key, value in run.provenance if key == "data"]
    assert data == [str(items)]
    assert run.provenance.index(("task", "demo-task")) < run.provenance.index(("data", str(items)))
