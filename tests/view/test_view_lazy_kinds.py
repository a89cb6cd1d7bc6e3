"""Every kind's reader makes its items one at a time from the run's files, on each pass.

A kind's item maker is wrapped to note each item it makes: reading the run makes none that
the page would hold (a reader whose summary needs its items makes them in one pass and lets
them go), asking for the first item makes that one item only, and every pass makes them anew.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.view import ItemStream, load_run

from .runs import regenerate_run
from .test_view_contract import KINDS, _Shared


def _conflictqa(tmp: Path, server: Any, shared: _Shared) -> Path:
    sample = shared / "conflictqa" / "conflictQA-strategyQA-chatgpt_first30.json"
    if not sample.exists():
        pytest.skip(f"{sample} not found")
    server.set_replies(lambda body: "A")
    out = tmp / "cqa"
    argv = ["conflictqa", "run", "--data", str(sample), "--out", str(out), "--limit", "4"]
    argv += ["--model", "openai/m", "--base-url", server.base_url, "--quiet"]
    assert main(argv) in (0, 1)
    return out


MAKERS: dict[str, tuple[str, Callable[..., Path]]] = {
    **{name: (kind, make) for name, (kind, make) in KINDS.items() if kind != "conflictscore"},
    "conflictqa": ("contextmemory", _conflictqa),
    "regenerate": ("regenerate", lambda tmp, srv, shared: regenerate_run(tmp, srv, 3)),
}
"""Each converted reader: the module (under conflicteval.view.kinds) and a run maker."""


def _module_of(kind: str) -> str:
    return "ramdocs" if kind == "faitheval" else kind


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_kind_makes_its_items_one_at_a_time_on_each_pass(
    name: str,
    tmp_path: Path,
    openai_server: Any,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    kind, make_run = MAKERS[name]
    path = make_run(tmp_path, openai_server, _Shared(request))
    module = importlib.import_module(f"conflicteval.view.kinds.{_module_of(kind)}")
    made: list[str] = []
    original = module._item

    def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        item: dict[str, Any] = original(*args, **kwargs)
        made.append(item["id"])
        return item

    monkeypatch.setattr(module, "_item", counted)
    run = load_run(path)
    assert isinstance(run.items, ItemStream)
    n = len(run.items)
    assert n >= 2, f"{name}: a run of {n} items proves nothing"
    made.clear()
    first = next(iter(run.items))
    assert made == [first["id"]]  # the first item is made alone, the others are not
    items = list(run.items)
    assert len(made) == 1 + n and items[0] == first
    assert list(run.items) == items and len(made) == 1 + 2 * n  # made anew on each pass
    assert len({json.dumps(it, sort_keys=True) for it in items}) == n


def test_a_runs_answers_are_read_in_id_order_one_at_a_time(tmp_path: Path) -> None:
    from conflicteval.ramdocs.report import run_records
    from conflicteval.runs import Record
    from conflicteval.runs.records_on_disk import LazyRecords

    lines = [Record(id=i, status="ok", result={"output": i}) for i in ("10", "9", "b", "2")]
    lines.append(Record(id="9", status="model_error", error="HTTP 503"))  # a later line wins
    (tmp_path / "answers.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in lines))
    records = run_records(tmp_path)
    assert isinstance(records, LazyRecords) and len(records) == 4
    assert [r.id for r in records] == ["2", "9", "10", "b"]  # numeric ids as numbers
    assert records[1].status == "model_error" and records[-1].result == {"output": "b"}
    offsets = records.offsets_by_id()
    assert records.at(offsets["10"]).id == "10"
