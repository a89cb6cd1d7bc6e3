"""The commands: reproduce from response files, run a new model against the local test server,
report, bad input in one line; and the user-side reproduction of the paper's figures."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

REAL = "CONFLICTEVAL_CLASHEVAL_DIR"


def test_reproduce_prints_measured_beside_the_notebook(
    responses: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["clasheval", "reproduce", "--responses", str(responses), "--wide"]) == 0
    out = capsys.readouterr().out
    assert "ClashEval · GPT-4o · 9 rows, 6 kept (balanced)" in out
    assert re.search(
        r"baseline \| 0\.571 \[[0-9.]+, [0-9.]+\] \| .* \| 0\.615 / 0\.304 / 0\.021", out
    )
    assert "context_chosen | 0.333 | 0.750 | 0.608 / 0.903" in out


def test_bad_input_is_one_line(
    tmp_path: Path, synthetic: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = synthetic.records()
    rows[4]["prior_correct"] = 7
    path = synthetic.write_parquet(tmp_path / "bad.pqt", rows)
    assert main(["clasheval", "reproduce", "--responses", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "row 5" in err[0]
    assert "prior_correct" in err[0]
    rows = [{k: v for k, v in r.items() if k != "answer_mod"} for r in synthetic.records()]
    path = synthetic.write_parquet(tmp_path / "cols.pqt", rows)
    assert main(["clasheval", "reproduce", "--responses", str(path)]) == 2
    assert "answer_mod" in capsys.readouterr().err


def _reply(body: dict[str, Any]) -> str:
    """Prior: always 1900; with context: the context's answer ("The answer is X.")."""
    system, user = body["messages"][0], body["messages"][-1]
    assert system["role"] == "system" and user["role"] == "user"
    if "Context:" not in user["content"]:
        assert user["content"].startswith("Question: Q")
        return " 1900\n"
    return re.search(r"The answer is (.+)\.", user["content"]).group(1)  # type: ignore[union-attr]


def test_run_a_new_model_and_report(
    tmp_path: Path, responses: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    args = ["clasheval", "run", "--data", str(responses), "--out", str(out)]
    model = ["--model", "openai/test-model", "--quiet"]
    with OpenAICompatServer(_reply) as srv:
        assert main([*args, *model, "--base-url", srv.base_url]) == 0
        assert len(srv.completions()) == 4 + 9  # one prior per question, one call per row
        system = srv.completions()[0].body["messages"][0]["content"]
        assert "Given a question, answer it" in system or "retrieved context" in system
        assert main([*args, *model, "--base-url", srv.base_url]) == 0
        assert len(srv.completions()) == 13  # resumed: no call
    capsys.readouterr()
    assert main(["clasheval", "report", "--run", str(out), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    base = rep["methods"]["baseline"]
    # priors: only Q2's "1900" is right; the model always follows the context. Kept: r3, r4
    # (prior right, context modified) and 2 of r0, r5, r7 (context right): all context chosen
    assert rep["kept_rows"] == 4
    assert base["table"]["context_chosen"] == {"prior_correct": 2, "context_correct": 2}
    assert base["accuracy"]["value"] == 0.5 and base["context_bias"]["value"] == 0.5
    assert base["prior_bias"]["value"] == 0.0
    assert rep["methods"]["token_prob"] is None  # no log probabilities from a new run
    assert all(p["value"] == 1.0 for pts in rep["curve"].values() for p in pts)


@pytest.mark.skipif(
    not os.environ.get(REAL),
    reason=f"user-side reproduction: set {REAL} to a folder holding the released "
    "model_responses/*.pqt (commit 56e7e08; over this environment's download limit)",
)
def test_the_release_reproduces_the_notebooks_figures() -> None:
    from conflicteval.clasheval import TABLE2, TABLE3, reproduce_file

    folder = Path(os.environ[REAL])
    for model, methods in TABLE3.items():
        rep = reproduce_file(folder / f"{model}.pqt", model)
        for method, paper in methods.items():
            for figure, value in paper.items():
                assert rep["methods"][method][figure]["value"] == pytest.approx(value, abs=5e-4)
    for model, table in TABLE2.items():
        rep = reproduce_file(folder / f"{model}.pqt", model)
        got = rep["methods"]["baseline"]["table_normalised"]
        for row, (pc, cc) in table.items():
            assert got[row]["prior_correct"] == pytest.approx(pc, abs=5e-4)
            assert got[row]["context_correct"] == pytest.approx(cc, abs=5e-4)


def test_the_viewer_draws_the_per_level_curve(
    tmp_path: Path, responses: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conflicteval.view import render_report

    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with OpenAICompatServer(_reply) as srv:
        args = ["clasheval", "run", "--data", str(responses), "--out", str(out), "--quiet"]
        assert main([*args, "--model", "openai/test-model", "--base-url", srv.base_url]) == 0
    html = render_report(out)
    assert "ClashEval years: share of answers following the modified context" in html
    assert "level -10 (n=1)" in html and "context bias" in html


def test_the_question_set_needs_only_the_input_columns(tmp_path: Path, synthetic: Any) -> None:
    from conflicteval.clasheval import INPUT_COLUMNS, load_dataset

    rows = [{k: r[k] for k in INPUT_COLUMNS} for r in synthetic.records()]
    path = synthetic.write_parquet(tmp_path / "dataset.pqt", rows)
    loaded = load_dataset(path)
    assert len(loaded) == 9 and loaded[0].prior_response is None
    assert [r.mod_type for r in loaded[:3]] == ["0", "-5", "0"]
