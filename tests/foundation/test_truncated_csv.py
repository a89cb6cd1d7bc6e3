"""A CSV file cut short inside a quoted field is an error naming the file and the row."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.errors import DataError
from conflicteval.readers import iter_csv, iter_csv_rows


@pytest.mark.parametrize(
    "tail",
    ['3,"12 km | 1', '3,"https://example.org/wi', '3,"line one\nline t', '3,"12 km\n'],
)
def test_a_csv_cut_inside_a_quoted_field_is_refused(tmp_path: Path, tail: str) -> None:
    path = tmp_path / "cut.csv"
    path.write_text('id,distance\n1,"5 km"\n2,plain\n' + tail, encoding="utf-8")
    with pytest.raises(DataError, match=r"cut\.csv, row 4: the file ends inside the quoted"):
        list(iter_csv_rows(path))
    with pytest.raises(DataError, match="row 4"):
        list(iter_csv(path, text=path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("tail", ['3,"12 km | 15 km"', "3,12", '3,"12 km"\n', ""])
def test_a_whole_csv_still_loads_with_or_without_a_final_newline(tmp_path: Path, tail: str) -> None:
    path = tmp_path / "ok.csv"
    path.write_text('id,distance\n1,"5 km"\n2,plain\n' + tail, encoding="utf-8")
    rows = list(iter_csv_rows(path))
    assert len(rows) == (3 if tail else 2)
    if tail.startswith('3,"12 km | 15'):
        assert rows[-1].values["distance"] == "12 km | 15 km"


def test_a_cut_wikicontradict_csv_is_a_usage_error(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = next((shared_data / "wikicontradict").glob("*.csv"), None)
    if source is None:
        pytest.skip("no WikiContradict CSV in the shared data")
    text = source.read_text(encoding="utf-8")
    cut = text.rfind(',"')  # the opening quote of the last quoted field
    if cut < 0:
        pytest.skip(f"{source.name} has no quoted field")
    path = tmp_path / "cut.csv"
    path.write_text(text[: cut + 6], encoding="utf-8")  # a download that stopped there
    with pytest.raises(DataError, match=r"cut\.csv, row \d+: the file ends inside"):
        list(iter_csv_rows(path))
    assert main(["wikicontradict", "generate", "--data", str(path), "--out", str(tmp_path / "r"),
                 "--model", "scripted", "--dry-run"]) == 2  # fmt: skip
    assert "cut.csv, row" in capsys.readouterr().err
