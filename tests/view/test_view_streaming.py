"""The report page is written streaming: each item is written before the next is made."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conflicteval.view import ItemStream, RunView, load_run, render_report, select_items
from conflicteval.view.page import write_page

from .synthetic import write_large_score_run


def _data(page: str) -> dict[str, Any]:
    blob = re.search(r"<script type='application/json' id='ce-data'>(.*?)</script>", page, re.S)
    assert blob is not None
    return json.loads(blob.group(1))


def _items(n: int) -> Iterator[dict[str, Any]]:
    for k in range(n):
        yield {
            "id": f"i{k}",
            "status": "ok" if k % 3 else "parse_error",
            "documents": [{"id": "d", "text": f"text {k % 4} </script>"}],
        }


def _run(n: int, sink: io.StringIO, made: list[int]) -> RunView:
    """A run whose items are made one at a time; making item k checks that item k - 1 is
    already in ``sink`` (written before the next one is made, not gathered first)."""

    def make() -> Iterator[dict[str, Any]]:
        made.append(1)
        for k, item in enumerate(_items(n)):
            if k:
                assert f'"id":"i{k - 1}"' in sink.getvalue(), f"item i{k - 1} not written yet"
            yield item

    return RunView("run", "Run", "runs/streamed", items=ItemStream(make, n))


def test_each_item_is_written_before_the_next_is_made() -> None:
    sink = io.StringIO()
    made: list[int] = []
    run = _run(50, sink, made)
    write_page([run], sink)
    page = sink.getvalue()
    assert len(made) == 1  # the items were made once, by the page writer
    assert page.endswith("</script></body></html>") and "</script> " not in page
    data = _data(page)
    items = data["runs"][0]["items"]
    assert [it["id"] for it in items] == [f"i{k}" for k in range(50)]
    assert data["texts"] == [f"text {k} </script>" for k in range(4)]  # each text once
    assert [data["texts"][it["documents"][0]["t"]] for it in items[:5]] == [
        f"text {k % 4} </script>" for k in range(5)
    ]


def test_the_streamed_page_is_the_page_of_the_same_items_held_in_a_list() -> None:
    streamed = RunView("run", "Run", "runs/streamed", items=ItemStream(lambda: _items(20)))
    held = RunView("run", "Run", "runs/streamed", items=list(_items(20)))
    assert _data(render_report([streamed, held])) == _data(render_report([held, held]))


def test_select_items_keeps_a_stream_lazy_and_says_what_it_left_out() -> None:
    run = RunView("run", "Run", "runs/streamed", items=ItemStream(lambda: _items(30), 30))
    select_items(run, failed_only=True, max_items=4)
    assert isinstance(run.items, ItemStream) and len(run.items) == 4
    assert [it["id"] for it in run.items] == ["i0", "i3", "i6", "i9"]
    assert run.notes == [
        "The item list shows 4 of the run's 30 items: only the 10 failed items (--failed-only), "
        "then the first 4 of them (--max-items 4). The summary above counts every item."
    ]


def test_a_conflictscore_run_makes_its_items_from_its_files(tmp_path: Path) -> None:
    run = load_run(write_large_score_run(tmp_path / "cs", n=40))
    assert isinstance(run.items, ItemStream)
    items = list(run.items)
    assert len(run.items) == run.counts["total"] == 40
    assert [it["id"] for it in items] == [f"q{k}" for k in range(40)]
    assert items[0]["grid"]["cells"] and items[0]["documents"][0]["id"].startswith("doc")
    assert items[5]["status"] == "model_error" and "HTTP 503" in items[5]["error"]
    assert run.items[-1] == items[-1] and run.items[1:3] == items[1:3]


def test_a_generic_run_makes_its_items_from_its_checkpoint(tmp_path: Path) -> None:
    path = write_large_score_run(tmp_path / "run", n=12)
    (path / "scores.jsonl").unlink()  # a checkpoint no other reader knows
    run = load_run(path)
    assert run.kind == "run" and isinstance(run.items, ItemStream)
    assert [it["id"] for it in run.items] == [f"q{k}" for k in range(12)]
    assert run.counts["total"] == 12 and run.counts["model_error"] == 1
    assert run.failures == [("model error: HTTP 503 after 6 attempts", 1, "q5")]
