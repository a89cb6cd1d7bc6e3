"""Saved bench measurements: each kept with its gold file's sha256 and size, the largest
shown (a vacuous run never replaces a good one); ``bench compare`` pairs one gold file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from conflicteval.cli import main
from conflicteval.conflictscore.lexical_labeler import LexicalLabeler
from conflicteval.measurements import MIN_RELIABLE_PAIRS, load_measurements, measured_lines
from conflicteval.stats import classification_difference, compare_means

TYPES = ["correct", "misinfo", "noise", "correct", "noise"]


def _gold(path: Path, questions: int, tag: str = "", types: list[str] = TYPES) -> Path:
    rows = [
        {
            "question": f"Who wrote book {k}{tag}?",
            "documents": [
                {"text": f"Book {k} doc-{t} number {j}.", "type": t, "answer": "x"}
                for j, t in enumerate(types)
            ],
            "disambig_entity": [f"Book {k}"],
            "gold_answers": ["Ann"],
            "wrong_answers": ["Bob"],
        }
        for k in range(questions)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _bench(gold: Path, out: Path, *extra: str) -> int:
    args = ["bench", "labeler", "--gold", "ramdocs", "--data", str(gold), "--labeler", "lexical"]
    return main([*args, "--out", str(out), "--quiet", *extra])


def test_a_small_run_never_replaces_the_measurement_on_more_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _gold(tmp_path / "gold.jsonl", 25)  # 25 questions x 5 documents = 125 pairs
    assert _bench(gold, tmp_path / "full") == 0
    assert _bench(gold, tmp_path / "one", "--limit", "1") == 0
    tiny = _gold(tmp_path / "tiny.jsonl", 1, tag=" (tiny)")
    assert _bench(tiny, tmp_path / "tiny") == 0
    capsys.readouterr()
    found = load_measurements(LexicalLabeler())
    assert [r["n"] for r in found] == [125, 5, 5]  # every measurement kept, most pairs first
    assert len({r["gold_sha256"] for r in found}) == 2
    (line,) = measured_lines(LexicalLabeler())
    assert "125 pairs" in line and found[0]["gold_sha256"][:12] in line
    assert "too small" not in line and "the largest of 3 saved measurements" in line


def test_a_measurement_under_the_bound_is_marked_too_small(tmp_path: Path) -> None:
    assert _bench(_gold(tmp_path / "gold.jsonl", 2), tmp_path / "b") == 0
    (line,) = measured_lines(LexicalLabeler())
    assert "10 pairs" in line
    assert f"too small to rely on (under {MIN_RELIABLE_PAIRS} pairs)" in line


def test_compare_pairs_items_only_within_one_gold_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the same gold set name and item ids, two different files
    assert _bench(_gold(tmp_path / "a.jsonl", 12), tmp_path / "a") == 0
    assert _bench(_gold(tmp_path / "b.jsonl", 12, tag=" (edited)"), tmp_path / "b") == 0
    capsys.readouterr()
    assert main(["bench", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["paired_differences"] == []
    assert "different gold files" in data["not_paired"][0]


def test_compare_of_fewer_than_ten_shared_items_gives_no_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _gold(tmp_path / "gold.jsonl", 12)
    assert _bench(gold, tmp_path / "a") == 0
    assert _bench(gold, tmp_path / "b", "--limit", "3") == 0
    capsys.readouterr()
    assert main(["bench", "compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "paired on 3 shared items" in out
    assert out.count("no verdict (fewer than 10 shared items") == 2


def test_a_zero_width_interval_is_never_larger_than_itself() -> None:
    # every resample of one item gives the same difference: a zero-width interval at +1
    diff = classification_difference(
        ["SUPPORTS"], ["CONTRADICTS"], ["SUPPORTS"], ["SUPPORTS", "CONTRADICTS"]
    )
    assert diff["accuracy"]["difference_ci"] == [1.0, 1.0]
    assert not diff["accuracy"]["larger_than_interval"]
    same = compare_means(np.zeros(3), np.ones(3))
    assert same["difference_ci"] == [1.0, 1.0] and not same["larger_than_interval"]
    assert compare_means(np.zeros(30), np.r_[np.ones(20), np.zeros(10)])["larger_than_interval"]


def test_a_class_without_gold_pairs_is_not_measured_and_n_names_the_resampled_unit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.view import load_run
    from conflicteval.view.page import _headline_cell

    # correct documents only: no CONTRADICTS or IRRELEVANT gold pair
    gold = _gold(tmp_path / "gold.jsonl", 2, types=["correct"] * 5)
    assert (
        main(
            [
                "bench",
                "labeler",
                "--gold",
                "ramdocs",
                "--data",
                str(gold),
                "--labeler",
                "lexical",
                "--out",
                str(tmp_path / "b"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    absent = [line for line in out.splitlines() if "not measured (no gold pair)" in line]
    assert absent and all(" 0.0000 " not in line for line in absent)
    assert "interval over 2 gold items (under 10): too small to mean much" in out
    run = load_run(tmp_path / "b")
    accuracy = run.headlines[0]
    assert accuracy.n == 2 and accuracy.unit == "gold items" and "10 gold pairs" in accuracy.note
    cell = _headline_cell(accuracy)
    assert "n = 2 gold items" in cell and "too small to mean much" in cell
