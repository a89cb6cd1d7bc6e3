"""Grades are tied to the response text they graded: after ``generate --restart`` made new
responses, the report, the per-item table and the viewer show no stale grade, and ``judge``
grades the new responses (issue 24, item 1)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.view.registry import load_run
from conflicteval.wikicontradict import build_item_table, load_wikicontradict


def _cells(capsys: pytest.CaptureFixture[str], run: Path) -> list[dict[str, Any]]:
    capsys.readouterr()
    main(["wikicontradict", "report", "--run", str(run), "--format", "json"])
    return json.loads(capsys.readouterr().out)["cells"]


def test_judge_grades_again_after_generate_restart_and_the_report_never_shows_stale_grades(
    wc_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    instances = load_wikicontradict(wc_csv)[:3]

    def right(body: dict[str, Any]) -> str:  # both gold answers, and the conflict named
        prompt = body["messages"][-1]["content"]
        inst = next(i for i in instances if i.question in prompt)
        return f"The sources conflict: {inst.answer_1}; however, another says {inst.answer_2}."

    run, fresh = tmp_path / "run", tmp_path / "fresh"
    with OpenAICompatServer(replies=right) as server:
        gen = ["wikicontradict", "generate", "--data", str(wc_csv), "--model", "openai/t"]
        gen += ["--base-url", server.base_url, "--templates", "5", "--limit", "3", "--quiet"]
        assert main([*gen, "--out", str(run)]) == 0
        assert main(["wikicontradict", "judge", "--run", str(run), "--model", "lexical"]) == 0
        graded = _cells(capsys, run)
        assert graded[0]["correct"] == 3
        # new responses: the same rows, other text (not from the cache)
        server.set_replies(lambda body: "I do not know.")
        assert main([*gen, "--out", str(run), "--restart", "--no-cache"]) == 0
        assert main([*gen, "--out", str(fresh), "--no-cache"]) == 0
    # the old grades belong to the old responses: none is shown for the new ones
    stale = _cells(capsys, run)
    assert stale[0]["correct"] == 0 and stale[0]["failed"] == 3
    # nor does the per-item table, nor the viewer: each row is "not graded" there too
    table = build_item_table(run)
    assert [(r.status, r.verdict) for r in table.rows] == [("ungraded", None)] * 3
    shown = load_run(run)
    assert [it["facets"]["verdict"] for it in shown.items] == ["ungraded"] * 3
    assert shown.counts["judged ok"] == 0 and shown.counts["ungraded"] == 3
    capsys.readouterr()
    assert main(["wikicontradict", "judge", "--run", str(run), "--model", "lexical"]) == 0
    assert "3 recomputed because their inputs changed" in capsys.readouterr().err
    assert main(["wikicontradict", "judge", "--run", str(fresh), "--model", "lexical"]) == 0
    regraded, expected = _cells(capsys, run), _cells(capsys, fresh)
    assert regraded == expected and regraded[0]["incorrect"] == 3


def test_judge_restart_from_the_command_line_replaces_another_judges_grades(
    wc_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``judge --restart`` starts over even when the file holds another judge's grades.

    The command line hands ``--restart`` down inside its run options; the judge's own
    "another judge's grades" check must read it there, not only from a keyword.
    """
    run = tmp_path / "run"

    def reply(body: dict[str, Any]) -> str:
        if str(body["messages"][-1]["content"]).startswith("Please evaluate"):
            return "comment: The response names one answer.\nevaluation: partially correct"
        return "One source says yes; however, another passage says no."

    with OpenAICompatServer(replies=reply) as server:
        common = ["--base-url", server.base_url, "--quiet"]
        gen = ["wikicontradict", "generate", "--data", str(wc_csv), "--model", "openai/t"]
        assert main([*gen, *common, "--templates", "5", "--limit", "2", "--out", str(run)]) == 0
        judge = ["wikicontradict", "judge", "--run", str(run), *common]
        assert main([*judge, "--model", "lexical"]) == 0
        capsys.readouterr()
        assert main([*judge, "--model", "openai/judge"]) == 2
        assert "holds grades by judge" in capsys.readouterr().err
        assert main([*judge, "--model", "openai/judge", "--restart"]) == 0
    judges = {
        json.loads(line)["result"]["judge"]
        for line in (run / "judgements.jsonl").read_text().splitlines()
    }
    assert judges == {"openai/judge"}


def test_judge_of_an_empty_generations_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Grading nothing would write an empty judgements file and exit 0, as if the run were done."""
    (tmp_path / "generations.jsonl").write_text("", encoding="utf-8")
    assert main(["wikicontradict", "judge", "--run", str(tmp_path), "--model", "lexical"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "generations.jsonl" in err[0] and "no generations" in err[0]
    assert not (tmp_path / "judgements.jsonl").exists()
