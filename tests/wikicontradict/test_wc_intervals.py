"""Intervals on WikiContradict percentages and judge agreement; comparing two runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.wikicontradict import LabelledRow, report_from_rows
from conflicteval.wikicontradict.judge_agreement import agreement
from conflicteval.wikicontradict.runcompare import compare_runs


def _rows(n_correct: int, n_incorrect: int, n_failed: int = 0) -> list[LabelledRow]:
    out = []
    for k in range(n_correct + n_incorrect + n_failed):
        label = "correct" if k < n_correct else "incorrect" if k < n_correct + n_incorrect else None
        out.append(
            LabelledRow(
                model="m",
                template="5",
                instance_id=str(k),
                contradiction_type="explicit",
                label=label,  # type: ignore[arg-type]
                failure=None if label else "judge",
            )
        )
    return out


def test_report_rows_and_markdown_carry_share_intervals() -> None:
    report = report_from_rows(_rows(30, 60, 10))
    row = next(r for r in report.rows() if r["subset"] == "all")
    assert row["correct_pct"] == 30.0
    assert row["correct_pct_ci_low"] < 30.0 < row["correct_pct_ci_high"]
    assert 20.0 < row["correct_pct_ci_low"] and row["correct_pct_ci_high"] < 40.0
    assert row["failed_pct_ci_low"] < 10.0 < row["failed_pct_ci_high"]
    assert report.cell("m", "5").pct_ci("correct") == report.cell("m", "5").pct_ci("correct")
    text = report.to_markdown()
    assert "95% intervals of the percentages" in text
    assert f"- T5 m all:\n  C [{row['correct_pct_ci_low']:.1f}, " in text
    assert report.cell("m", "5", "implicit").pct_ci("correct") is None  # empty cell


def test_compare_runs_marks_only_differences_beyond_their_interval() -> None:
    a = report_from_rows(_rows(30, 70))
    b = report_from_rows(_rows(70, 30))
    c = report_from_rows(_rows(32, 68))
    big = next(r for r in compare_runs(a, b) if r["label"] == "correct" and r["subset"] == "all")
    assert big["difference_pct"] == pytest.approx(40.0) and big["larger_than_interval"]
    small = next(r for r in compare_runs(a, c) if r["label"] == "correct" and r["subset"] == "all")
    assert small["difference_pct"] == pytest.approx(2.0) and not small["larger_than_interval"]
    # paired on the same 100 items: the two discordant items both favour the second run, so
    # the paired interval reaches 0 from above; McNemar p on 0 vs 2 discordant pairs is 0.5
    assert small["difference_ci"][0] <= 0 < small["difference_ci"][1]
    assert small["p"] == pytest.approx(0.5) and small["paired_n"] == 100
    assert big["p"] == pytest.approx(2 / 2**40) and big["verdict"] == "second higher"


def test_agreement_has_intervals_in_the_shared_shape() -> None:
    human = ["correct", "incorrect", "partially correct", "correct"] * 10
    judge = ["correct", "incorrect", "correct", None] * 10
    rep = agreement(human, judge)
    assert (rep.n, rep.failed) == (30, 10)  # judge failures are left out, and counted
    assert rep.accuracy == pytest.approx(20 / 30)
    assert rep.accuracy_ci is not None and rep.accuracy_ci[0] < 20 / 30 < rep.accuracy_ci[1]
    assert rep.macro_f1_ci is not None and rep.kappa_ci is not None
    assert rep.per_class["correct"].f1_ci is not None
    assert "95% intervals: Acc [" in rep.to_markdown()


def test_report_compare_against_another_run(
    wc_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = []
    for name, text in (("a", "Yes."), ("b", "One source says yes; another passage says no.")):
        with OpenAICompatServer(lambda body, text=text: text) as srv:
            run = str(tmp_path / name)
            common = ["--data", str(wc_csv), "--model", "openai/t", "--base-url", srv.base_url]
            gen = ["wikicontradict", "generate", *common, "--templates", "5", "--out", run]
            assert main([*gen, "--limit", "8", "--quiet"]) == 0
        assert main(["wikicontradict", "judge", "--run", run, "--model", "lexical", "--quiet"]) == 0
        runs.append(run)
    capsys.readouterr()
    assert main(["wikicontradict", "report", "--run", runs[0], "--compare", runs[1]]) == 0
    out = capsys.readouterr().out
    assert "Comparison with the second run" in out and "difference [95% CI]" in out
    assert (
        main(
            ["wikicontradict", "report", "--run", runs[0], "--compare", runs[1], "--format", "json"]
        )
        == 0
    )
    rows = json.loads(capsys.readouterr().out)["run_comparison"]["rows"]
    assert {r["label"] for r in rows} == {"correct", "partially correct", "incorrect", "failed"}
    assert main(["wikicontradict", "report", "--run", runs[0], "--compare", "nowhere"]) == 2
    assert "neither a published table" in capsys.readouterr().err
