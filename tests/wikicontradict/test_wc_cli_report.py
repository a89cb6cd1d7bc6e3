"""The ``conflicteval wikicontradict`` commands, and the report's formats."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.wikicontradict import LabelledRow, report_from_rows


def test_stats(wc_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wikicontradict", "stats", "--data", str(wc_csv), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["total"], counts["explicit"], counts["implicit"]) == (253, 161, 92)
    assert main(["wikicontradict", "stats", "--data", str(wc_csv)]) == 0
    out = capsys.readouterr().out
    assert "253" in out and "yes/no questions" in out and "same passage" in out


def test_render(wc_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["wikicontradict", "render", "--data", str(wc_csv), "--template", "3"]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("Provide a short answer for the following question based on the")
    assert "expected answers:" in cap.err and "first instance" in cap.err
    assert main(["wikicontradict", "render", "--data", str(wc_csv), "--template", "5.3"]) == 2
    assert "needs revised" in capsys.readouterr().err
    assert (
        main(["wikicontradict", "render", "--data", str(wc_csv), "--template", "5", "--id", "x"])
        == 2
    )


def test_cli_pipeline(
    wc_csv: Path,
    openai_server: OpenAICompatServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openai_server.set_replies(lambda body: "One source says yes; however, another passage says no.")
    run = str(tmp_path / "run")
    common = ["--data", str(wc_csv), "--model", "openai/t", "--base-url", openai_server.base_url]
    args = ["wikicontradict", "generate", *common, "--templates", "4,5", "--out", run]
    assert main([*args, "--limit", "3", "--dry-run"]) == 0
    assert "6 model calls" in capsys.readouterr().out and openai_server.completions() == []
    assert main([*args, "--limit", "3", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "6 rows generated: 6 ok, 0 failed" in err and "completion tokens" in err
    assert len(openai_server.completions()) == 6

    assert main(["wikicontradict", "judge", "--run", run, "--model", "lexical", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "judging (lexical): 6 items" in out and "no model calls" in out
    # the old spelling of the judge (--judge) still works, with one deprecation line
    assert main(["wikicontradict", "judge", "--run", run, "--judge", "lexical", "--dry-run"]) == 0
    old = capsys.readouterr()
    assert "judging (lexical): 6 items" in old.out
    assert old.err.splitlines()[0] == "warning: --judge is deprecated; use --model"
    judge_args = ["--model", "openai/j", "--base-url", openai_server.base_url]
    assert main(["wikicontradict", "judge", "--run", run, *judge_args, "--dry-run"]) == 0
    assert "6 model calls" in capsys.readouterr().out
    assert len(openai_server.completions()) == 6
    assert main(["wikicontradict", "judge", "--run", run, "--model", "lexical", "--quiet"]) == 0
    assert "6 rows graded by lexical: 6 ok, 0 failed" in capsys.readouterr().err

    assert main(["wikicontradict", "report", "--run", run, "--wide"]) == 0
    md = capsys.readouterr().out
    # --plot writes the report page's own chart: its title and the paper's rows
    svg = tmp_path / "chart.svg"
    assert main(["wikicontradict", "report", "--run", run, "--plot", str(svg)]) == 0
    capsys.readouterr()
    drawn = svg.read_text(encoding="utf-8")
    assert drawn.startswith("<?xml") and "<svg" in drawn
    assert "WikiContradict verdicts per template, measured beside published" in drawn
    assert main(["wikicontradict", "report", "--run", run, "--plot", str(tmp_path / "c.gif")]) == 2
    assert "a chart is written as .svg or .png" in capsys.readouterr().err
    assert "### Template 4" in md and "### Template 5" in md and "| openai/t |" in md
    assert main(["wikicontradict", "report", "--run", run, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 6 and {r["subset"] for r in rows} == {"all", "explicit", "implicit"}
    assert all(
        int(r["n"])
        == int(r["correct"]) + int(r["partially_correct"]) + int(r["incorrect"]) + int(r["failed"])
        for r in rows
    )
    out_json = tmp_path / "r.json"
    assert (
        main(["wikicontradict", "report", "--run", run, "--format", "json", "--out", str(out_json)])
        == 0
    )
    assert json.loads(out_json.read_text())["judge"] == "lexical"

    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps(
            {
                "instance_id": "1",
                "template": "5",
                "model": "m",
                "response": "Apomorphine.",
                "human_label": "partially correct",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    code = main(
        [
            "wikicontradict",
            "calibrate",
            "--labels",
            str(labels),
            "--model",
            "lexical",
            "--data",
            str(wc_csv),
            "--json",
            "--quiet",
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["examples"]["accuracy"] == 1.0 and result["human"]["n"] == 1


def test_report_formats_pandas_and_plot(tmp_path: Path) -> None:
    rows = [
        LabelledRow(model="m", template="1", instance_id=str(i), contradiction_type=t, label=lab)
        for i, (t, lab) in enumerate(
            [
                ("explicit", "correct"),
                ("explicit", "partially correct"),
                ("implicit", "incorrect"),
                ("implicit", None),
            ]
        )
    ]
    rows[3].failure = "judge"
    rep = report_from_rows(rows, judge="j")
    cell = rep.cell("m", "1")
    assert [cell.pct(v) for v in ("correct", "partially correct", "incorrect", "failed")] == [
        25.0,
        25.0,
        25.0,
        25.0,
    ]
    table2 = rep.to_markdown(layout="table2")
    assert "| C | 25.0 (1) | 50.0 (1) | 0.0 (0) |" in table2
    assert "| failed | 25.0 (1) | 0.0 (0) | 50.0 (1) |" in table2
    pd = pytest.importorskip("pandas")
    df = rep.to_pandas()
    assert isinstance(df, pd.DataFrame) and list(df["subset"]) == ["all", "explicit", "implicit"]
    assert df.loc[df.subset == "implicit", "failed_judge"].item() == 1
    pytest.importorskip("matplotlib")
    with pytest.warns(DeprecationWarning, match="report page's chart"):
        png = rep.plot(tmp_path / "r.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000


def test_example_script_runs_against_the_local_test_server(wc_csv: Path, tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "examples" / "wikicontradict_eval.py"
    out = tmp_path / "demo"
    args = ["--data", str(wc_csv), "--local-test-server", "--out", str(out), "--limit", "2"]
    proc = subprocess.run(
        [sys.executable, str(script), *args, "--templates", "2,5"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "### Template 5" in proc.stdout and "0 generation failures" in proc.stdout
    assert (out / "report.md").exists() and (out / "report.json").exists()


@pytest.mark.parametrize("layout", ["compact", "table5", "table2"])
def test_a_model_without_rows_for_a_template_shows_an_empty_cell(layout: str) -> None:
    """Model b answered template 5 only: template 2's table shows it with n 0 and dashes."""
    rows = [
        LabelledRow(model="a", template="2", instance_id="1", contradiction_type="explicit",
                    label="correct"),
        LabelledRow(model="a", template="5", instance_id="1", contradiction_type="explicit",
                    label="correct"),
        LabelledRow(model="b", template="5", instance_id="1", contradiction_type="explicit",
                    label="incorrect"),
    ]  # fmt: skip
    text = report_from_rows(rows, judge="j").to_markdown(layout=layout)
    t2 = text.split("### Template 2", 1)[1].split("### Template 5", 1)[0]
    expected = {
        "compact": "| b | all | – | – | – | – | 0 |",
        "table5": "| b |" + " – |" * 12 + " 0/0/0 |",
        "table2": "| n | 1 | 1 | 0 | 0 | 0 | 0 |",
    }
    assert expected[layout] in t2.splitlines()
