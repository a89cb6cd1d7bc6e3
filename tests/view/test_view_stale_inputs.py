"""The viewer shows an input's texts beside a record only when the record was made from them:
an items or input file edited after the run does not put new texts beside old labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.view import load_run

from .runs import detect_run, score_run


def _edit_first_row(path: Path, edit: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["documents"][1]["text"] = edit
    lines[0] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_detect_view_does_not_join_an_item_edited_since(tmp_path: Path) -> None:
    run = detect_run(tmp_path)
    edited = "The Packers have the most titles, with thirteen."
    _edit_first_row(tmp_path / "bench.jsonl", edited)
    rv = load_run(run)
    first, second = rv.items[0], rv.items[1]
    assert "grid" not in first and "documents" not in first  # its labels were for other texts
    assert edited not in json.dumps(first)
    assert second["grid"]["claims"] == ["The Steelers have the most titles."]
    assert any("1 record" in n and "edited since" in n for n in rv.notes)


def test_score_view_does_not_join_an_input_row_edited_since(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    edited = "The bridge opened in 1999."
    _edit_first_row(tmp_path / "cs_items.jsonl", edited)
    rv = load_run(run)
    first = next(i for i in rv.items if i["id"] == "r0")
    second = next(i for i in rv.items if i["id"] == "r1")
    assert edited not in json.dumps(first)
    assert first["documents"][1]["text"] == "(document text not in the run directory)"
    assert second["documents"][0]["text"] == "The bridge opened in 1932."
    assert any("1 record" in n and "edited since" in n for n in rv.notes)


def test_score_view_of_a_run_without_summary_gives_the_same_means_and_intervals(
    tmp_path: Path,
) -> None:
    """A run stopped before its end has no summary.json: the viewer's means keep the intervals
    ``score`` gives them, and a note says where they come from."""
    run = score_run(tmp_path, n=6)
    full = {h.name: h for h in load_run(run).headlines}
    (run / "summary.json").unlink()
    rv = load_run(run)
    again = {h.name: h for h in rv.headlines}
    for name in ("mean CS-C", "mean CS-R"):
        assert full[name].low is not None and full[name].high is not None
        assert (again[name].value, again[name].low, again[name].high) == pytest.approx(
            (full[name].value, full[name].low, full[name].high)
        )
    assert any("no summary.json" in n for n in rv.notes)
