"""Labels in FEVEROUS prediction files: case ignored (the official rule), unknown labels refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.errors import DataError
from conflicteval.feverous.scorefiles import load_predictions, score_files


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _rows(pred: list[str], gold: list[str]) -> list[dict]:
    return [
        {
            "predicted_label": p,
            "predicted_evidence": ["Page_sentence_0"],
            "label": g,
            "evidence": [["Page_sentence_0"]],
        }
        for p, g in zip(pred, gold, strict=True)
    ]


def test_lower_case_labels_are_read_as_the_official_scorer_reads_them(tmp_path: Path) -> None:
    labels = ["supports", "Refutes", "not enough info"]
    lower = _write(tmp_path / "lower.jsonl", _rows(labels, ["SUPPORTS", "REFUTES", "SUPPORTS"]))
    upper = _write(
        tmp_path / "upper.jsonl",
        _rows([x.upper() for x in labels], ["SUPPORTS", "REFUTES", "SUPPORTS"]),
    )
    assert [p["predicted_label"] for p in load_predictions(lower)] == [
        "SUPPORTS",
        "REFUTES",
        "NOT ENOUGH INFO",
    ]
    a, b = score_files(lower), score_files(upper)
    assert a.as_tuple() == b.as_tuple()
    assert a.label_accuracy == pytest.approx(2 / 3)


@pytest.mark.parametrize("bad", ["NEI", "REFUTED", "", "SUPPORTS.", 1, None])
def test_an_unknown_predicted_label_is_refused_with_line_and_field(
    tmp_path: Path, bad: object
) -> None:
    rows = _rows(["SUPPORTS", "SUPPORTS"], ["SUPPORTS", "SUPPORTS"])
    rows[1]["predicted_label"] = bad
    path = _write(tmp_path / "pred.jsonl", rows)
    with pytest.raises(DataError) as info:
        score_files(path)
    assert (info.value.path, info.value.row, info.value.field) == (
        str(path),
        2,
        "predicted_label",
    )


def test_an_unknown_gold_label_carried_by_a_prediction_is_refused(tmp_path: Path) -> None:
    rows = _rows(["SUPPORTS"], ["SUPPORTED"])
    path = _write(tmp_path / "pred.jsonl", rows)
    with pytest.raises(DataError) as info:
        load_predictions(path)
    assert (info.value.row, info.value.field) == (1, "label")
