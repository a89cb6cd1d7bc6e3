"""Numbers from nothing: a share over nothing graded is "not measured" with the reason, and
an interval over a few items does not look certain (Wilson, with a small-sample note)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflicteval.stats_text import share_text, small_sample_note, wilson_ci
from conflicteval.wikicontradict.report import LabelledRow, report_from_rows, share_ci


def _rows(labels: list[str | None], failure: str = "judge") -> list[LabelledRow]:
    return [
        LabelledRow(
            model="m",
            template="2",
            instance_id=str(i),
            contradiction_type="explicit",
            label=label,
            failure=None if label else failure,
        )
        for i, label in enumerate(labels)
    ]


def test_a_report_after_every_judge_reply_failed_shows_not_measured() -> None:
    report = report_from_rows(_rows([None, None, None]), judge="llm")
    cell = report.cell("m", "2")
    assert cell.pct("correct") is None and cell.pct_ci("correct") is None
    assert cell.not_measured("correct") == "no item graded: 3 judge failures"
    assert cell.pct("failed") == 100.0  # the failures themselves are measured
    text = report.to_markdown()
    assert "not measured" in text and "| 0.0 (0) |" not in text
    assert "labels not measured (no item graded: 3 judge failures)" in text
    row = next(r for r in report.rows() if r["subset"] == "all")
    assert row["correct_pct"] is None


def test_a_few_items_get_an_interval_that_does_not_collapse() -> None:
    low, high = share_ci(3, 3)  # three of three right: the bootstrap said [100, 100]
    assert high == 100.0 and 40.0 < low < 50.0
    low, high = share_ci(0, 3)
    assert low == 0.0 and 50.0 < high < 60.0
    report = report_from_rows(_rows(["correct", "correct", "correct"]))
    assert "(interval over 3 items (under 10): too small to mean much)" in report.to_markdown()


def test_the_formatters_name_the_unit_and_refuse_nothing() -> None:
    assert share_text(None, None, 0, "instances", reason="all judge replies failed") == (
        "not measured (all judge replies failed)"
    )
    text = share_text(1.0, wilson_ci(3, 3), 3, "instances")
    assert text.startswith("100.0% [43.9, 100.0] n = 3 instances (interval over 3 instances")
    assert small_sample_note(10, "items") is None
    assert wilson_ci(0, 0) is None


def test_the_viewer_headline_after_every_judge_reply_failed_is_not_measured(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.cli import main
    from conflicteval.testing import OpenAICompatServer
    from conflicteval.view import load_run
    from conflicteval.view.page import _headline_cell

    csv = shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    if not csv.exists():
        pytest.skip(f"{csv} not found")
    run = tmp_path / "wc"
    with OpenAICompatServer() as server:
        server.set_replies(lambda body: "Paris.")
        common = ["--model", "openai/t", "--base-url", server.base_url, "--quiet"]
        gen = ["wikicontradict", "generate", "--data", str(csv), "--templates", "2"]
        assert main([*gen, "--out", str(run), "--limit", "3", *common]) == 0
        server.set_replies(lambda body: "I am not sure what you mean.")  # no verdict in it
        main(["wikicontradict", "judge", "--run", str(run), *common])
    capsys.readouterr()
    view = load_run(run)
    (headline,) = view.headlines
    assert headline.value is None and headline.note.startswith("not measured")
    cell = _headline_cell(headline)
    assert "not measured" in cell and "0.0%" not in cell
    assert main(["wikicontradict", "report", "--run", str(run)]) == 1  # failures: exit 1
    assert "not measured" in capsys.readouterr().out
