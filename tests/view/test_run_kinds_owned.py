"""A run directory belongs to one command: ``score --out`` into another command's run, and
``view --kind`` forcing another kind, are refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

from .runs import score_input, score_run, wikicontradict_run


def test_score_out_into_a_wikicontradict_run_is_refused(
    tmp_path: Path, wc_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer() as server:
        run = wikicontradict_run(tmp_path, wc_csv, server)
    before = sorted(p.name for p in run.iterdir())
    items = score_input(tmp_path / "items.jsonl")
    capsys.readouterr()
    assert main(["score", "--input", str(items), "--out", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "WikiContradict run" in err and "another --out" in err and "Traceback" not in err
    assert sorted(p.name for p in run.iterdir()) == before  # nothing written into it


@pytest.mark.parametrize("theirs", ["generations.jsonl", "answers.jsonl+run.json"])
def test_score_out_refuses_any_other_commands_files(
    tmp_path: Path, theirs: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for name in theirs.split("+"):
        (run / name).write_text("", encoding="utf-8")
    items = score_input(tmp_path / "items.jsonl")
    assert main(["score", "--input", str(items), "--out", str(run), "--quiet"]) == 2
    assert "not a ConflictScore run" in capsys.readouterr().err
    assert not (run / "checkpoint.jsonl").exists()


def test_score_out_into_its_own_run_still_resumes(tmp_path: Path) -> None:
    run = score_run(tmp_path)
    items = tmp_path / "cs_items.jsonl"
    assert main(["score", "--input", str(items), "--out", str(run), "--quiet"]) in (0, 1)
    assert json.loads((run / "summary.json").read_text(encoding="utf-8"))


def test_view_with_a_kind_the_directory_is_not_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = score_run(tmp_path)
    out = tmp_path / "report.html"
    capsys.readouterr()
    assert main(["view", str(run), "--kind", "wikicontradict", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not a wikicontradict run (a conflictscore run" in err and "Traceback" not in err
    assert not out.exists()  # the old code wrote an empty report and exited 0
    assert main(["view", str(run), "--kind", "conflictscore", "-o", str(out)]) == 0
    assert out.exists()
