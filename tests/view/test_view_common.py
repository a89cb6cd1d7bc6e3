"""The helpers every viewer kind shares: the input file's items by id, and a run's tally."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from conflicteval.runs import Record
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
    from conflicteval.runs import run_batch_sync
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


def test_bars_draw_the_interval_and_print_every_value_with_the_same_decimals() -> None:
    from conflicteval.view.svg import hbar_svg

    svg = hbar_svg(
        "t",
        "n = 3",
        [("measured", 47.826), ("paper", 34.4), ("none", None)],
        x_label="%",
        y_label="model",
        x_max=100.0,
        intervals=[(40.0, 55.5), None, None],
    )
    assert svg.count("class='whisker'") == 1
    assert "interval [40.0, 55.5]" in svg and "interval of the measured value" in svg
    assert ">47.8</text>" in svg and ">34.4</text>" in svg and "47.826" not in svg
    unit = hbar_svg("t", "n = 1", [("a", 0.5)], x_label="F1", y_label="s", x_max=1.0)
    assert ">0.500</text>" in unit and "whisker" not in unit


def test_a_long_legend_wraps_inside_the_chart() -> None:
    import re

    from conflicteval.view.svg import stacked_hbar_svg

    names = ["nano / balanced prompt", "nano / conflict-aware prompt", "mini / balanced prompt"]
    svg = stacked_hbar_svg(
        "t", "n = 1", [("row", [30.0, 30.0, 40.0])], names, x_label="%", y_label="r"
    )
    width = float(re.search(r"viewBox='0 0 (\d+)", svg).group(1))  # type: ignore[union-attr]
    for x, text in re.findall(
        r"<text x='(\d+)' y='\d+' font-size='11' fill='#1d2330'>([^<]+)", svg
    ):
        if text in names:
            assert float(x) + 6.5 * len(text) <= width, (x, text)


def test_confusion_cells_empty_cells_untinted_and_counts_readable() -> None:
    import re

    from conflicteval.view.svg import INK, confusion_svg, contrast

    svg = confusion_svg("t", "n = 9", ["SUPPORTS", "CONTRADICTS"], [[5, 0], [1, 3]], columns=None)
    cells = re.findall(r"fill='(#[0-9a-f]{6})'><title>gold (\w+), predicted (\w+): (\d+)", svg)
    empty = [c for c in cells if c[3] == "0"]
    assert empty and all(c[0] == "#f3f4f6" for c in empty)  # a zero is not an error's red
    assert all(c[0] != "#f3f4f6" for c in cells if c[3] != "0")
    assert "rotate(-35)" in svg  # CONTRADICTS is wider than a cell: set at an angle
    assert contrast(INK, "#ffffff") >= 4.5
