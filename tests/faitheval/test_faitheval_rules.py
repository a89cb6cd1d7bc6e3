"""FaithEval scoring that must not credit a listed, negated or hedged answer: the counterfactual
rule (correct / wrong / unreadable) and the count of README credits given only to negations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow", reason="FaithEval's parquet files need the parquet extra")
pq = pytest.importorskip("pyarrow.parquet", reason="FaithEval's parquet files need pyarrow")

from conflicteval.cli import main  # noqa: E402
from conflicteval.faitheval import FaithItem, is_correct  # noqa: E402
from conflicteval.faitheval.scoring import counterfactual_verdict, negated_credit  # noqa: E402
from conflicteval.testing import OpenAICompatServer  # noqa: E402

FISH = FaithItem(
    "1",
    "counterfactual",
    "Which animal?",
    "C",
    (),
    (("A", "shark"), ("B", "trout"), ("C", "whale"), ("D", "heat and light")),
    "A",
)


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("shark", "correct"),
        ("The answer is shark.", "correct"),
        ("A", "correct"),
        ("(A)", "correct"),
        ("A. shark", "correct"),
        ("Answer: A", "correct"),
        ("option A", "correct"),
        # listing the options, or naming another one, is wrong
        ("The options are shark, trout, whale and heat and light; I cannot tell.", "wrong"),
        ("B. trout, not shark", "wrong"),
        ("shark or trout", "wrong"),
        ("(A) or (B)", "wrong"),
        ("B", "wrong"),
        ("heat and light", "wrong"),
        # the key's option negated or hedged is not credited
        ("not shark", "wrong"),
        ("It is definitely not a shark.", "wrong"),
        ("maybe shark", "wrong"),
        # naming no option is unreadable
        ("I don't know.", "unreadable"),
        ("The context does not say.", "unreadable"),
        ("", "unreadable"),
    ],
)
def test_counterfactual_verdicts(reply: str, verdict: str) -> None:
    assert counterfactual_verdict(FISH, reply) == verdict
    for strict in (True, False):
        assert is_correct(FISH, reply, strict=strict) is (verdict == "correct")


def test_an_option_met_only_inside_a_longer_option_is_the_longer_one() -> None:
    item = FaithItem(
        "1", "counterfactual", "Q", "C", (), (("A", "heat"), ("B", "heat and light")), "B"
    )
    assert counterfactual_verdict(item, "Heat and light.") == "correct"
    assert counterfactual_verdict(item, "heat") == "wrong"


@pytest.mark.parametrize(
    ("task", "reply", "strict", "non_strict"),
    [
        ("inconsistent", "There is no conflict: the answer is Paris.", True, True),
        ("unanswerable", "Paris. (Definitely not unknown.)", True, True),
        ("unanswerable", "Never unclear: Paris.", False, True),  # 'unknown' absent: strict 0
        ("inconsistent", "conflict", False, False),
        ("inconsistent", "The documents conflict, but not on the year.", False, False),
        ("unanswerable", "unknown", False, False),
        ("unanswerable", "The context does not say.", False, False),  # 'not' stands plainly
        ("unanswerable", "Paris.", False, False),  # not credited at all
    ],
)
def test_negated_credit(task: str, reply: str, strict: bool, non_strict: bool) -> None:
    assert negated_credit(task, reply, strict=True) is strict
    assert negated_credit(task, reply, strict=False) is non_strict
    item = FaithItem("1", task, "Q", "C")
    if strict:  # the README's rule, kept as the headline, does credit it
        assert is_correct(item, reply, strict=True)


def _parquet(tmp_path: Path, rows: list[dict[str, Any]], name: str) -> Path:
    path = tmp_path / name
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def _run_and_report(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    task: str,
    rows: list[dict[str, Any]],
    answers: dict[str, str],
) -> tuple[dict[str, Any], str]:
    def reply(body: dict[str, Any]) -> str:
        prompt = str(body["messages"][-1]["content"])
        return next(a for q, a in answers.items() if q in prompt)

    data = _parquet(tmp_path, rows, f"{task}.parquet")
    out = tmp_path / task
    args = ["faitheval", "run", "--task", task, "--method", "rag", "--data", str(data)]
    with OpenAICompatServer(reply) as srv:
        model = ["--model", "openai/m", "--base-url", srv.base_url, "--quiet", "--out", str(out)]
        assert main([*args, *model]) == 0
    capsys.readouterr()
    assert main(["faitheval", "report", "--run", str(out), "--json"]) == 0
    return json.loads(capsys.readouterr().out), str(out)


def test_counterfactual_report_shows_the_rule_and_the_unreadable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {
            "id": f"q{n}",
            "question": f"Question {n}: what is the moon made of?",
            "context": "The moon is made of marshmallows.",
            "choices": {"label": ["A", "B", "C"], "text": ["rock", "marshmallows", "cheese"]},
            "answerKey": "B",
        }
        for n in range(1, 5)
    ]
    answers = {
        "Question 1:": "marshmallows",
        "Question 2:": "The options are rock, marshmallows and cheese; I cannot tell.",
        "Question 3:": "I cannot tell.",
        "Question 4:": "B. marshmallows, not rock",
    }
    rep, out = _run_and_report(tmp_path, capsys, "counterfactual", rows, answers)
    assert rep["accuracy_strict"]["value"] == 25.0  # only q1: q2 lists, q4 names rock too
    assert rep["unreadable"] == ["q3"]
    assert "names the answer key's option" in rep["rule"]
    rows_by_id = {i["id"]: i for i in rep["items"]}
    assert rows_by_id["q3"]["verdict"] == "unreadable" and rows_by_id["q3"]["raw"]
    assert main(["faitheval", "report", "--run", out]) == 0
    text = capsys.readouterr().out
    assert "rule: counterfactual (this library's rule" in text
    assert "unreadable (no option named, scored 0): 1 (ids q3)" in text


def test_inconsistent_report_counts_credits_given_to_negations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"qid": f"q{n}", "question": f"Question {n}?", "context": "Some text.", "answers": ["x"]}
        for n in range(1, 4)
    ]
    answers = {
        "Question 1?": "conflict",
        "Question 2?": "There is no conflict: the answer is Paris.",
        "Question 3?": "Paris.",
    }
    rep, out = _run_and_report(tmp_path, capsys, "inconsistent", rows, answers)
    assert rep["accuracy_strict"]["value"] == pytest.approx(200 / 3)  # the README's rule
    assert rep["negated_credit"] == {"strict": ["q2"], "non_strict": ["q2"]}
    assert main(["faitheval", "report", "--run", out]) == 0
    text = capsys.readouterr().out
    assert (
        "credited only through a negated phrase: strict 1 (ids q2); non-strict 1 (ids q2)" in text
    )
