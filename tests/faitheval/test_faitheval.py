"""FaithEval: the parquet loader (real column names), the README's scoring, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow", reason="FaithEval's parquet files need the parquet extra")
pq = pytest.importorskip("pyarrow.parquet", reason="FaithEval's parquet files need pyarrow")

from conflicteval.cli import main  # noqa: E402
from conflicteval.data.registry import get_entry  # noqa: E402
from conflicteval.errors import DataError  # noqa: E402
from conflicteval.faitheval import (  # noqa: E402
    FaithItem,
    faitheval_prompt,
    faitheval_question,
    is_correct,
    load_faitheval,
    normalize_answer,
    split_documents,
    valid_phrases,
)
from conflicteval.testing import OpenAICompatServer  # noqa: E402

README_NON_STRICT = {
    "unanswerable": ["unknown", "no answer", "no information", "not", "unclear"],
    "inconsistent": [
        "conflict",
        "multiple answers",
        "disagreement",
        "inconsistent",
        "contradictory",
        "contradiction",
        "inconsistency",
        "two answers",
        "2 answers",
        "conflicting",
    ],
}
README_STRICT = {"unanswerable": ["unknown"], "inconsistent": ["conflict"]}

INCONSISTENT = [
    {
        "qid": "q1",
        "question": "When did the canal open?",
        "context": "Document: The canal opened in 1847.\nDocument: The canal opened in 1851.",
        "answers": ["1847", "1851"],
    },
    {
        "qid": "q2",
        "question": "How long is the canal?",
        "context": "The canal is 38 km long.",
        "answers": ["38 km"],
    },
]
COUNTERFACTUAL = [
    {
        "id": "Mercury_1",
        "question": "What is the moon made of?",
        "context": "Recent studies show the moon is made of marshmallows.",
        "choices": {"label": ["A", "B"], "text": ["rock", "marshmallows"]},
        "answerKey": "B",
        "num of options": 2,
    }
]


def _parquet(tmp_path: Path, rows: list[dict[str, Any]], name: str = "t.parquet") -> Path:
    path = tmp_path / name
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_loader_reads_the_real_columns(tmp_path: Path) -> None:
    items = load_faitheval("inconsistent", _parquet(tmp_path, INCONSISTENT))
    assert [i.id for i in items] == ["q1", "q2"]
    assert items[0].answers == ("1847", "1851") and items[0].task == "inconsistent"
    cf = load_faitheval("counterfactual", _parquet(tmp_path, COUNTERFACTUAL, "c.parquet"))
    assert cf[0].choices == (("A", "rock"), ("B", "marshmallows"))
    assert cf[0].answer_key == "B" and cf[0].answer_text == "marshmallows"


@pytest.mark.parametrize(
    ("task", "rows", "field"),
    [
        ("inconsistent", [{**INCONSISTENT[0], "question": ""}], "question"),
        ("inconsistent", [{k: v for k, v in INCONSISTENT[0].items() if k != "context"}], "context"),
        ("inconsistent", [INCONSISTENT[0], INCONSISTENT[0]], "qid"),
        ("counterfactual", [{**COUNTERFACTUAL[0], "answerKey": "E"}], "answerKey"),
    ],
)
def test_loader_names_file_row_and_field(tmp_path: Path, task: str, rows: list, field: str) -> None:
    path = _parquet(tmp_path, rows)
    with pytest.raises(DataError) as info:
        load_faitheval(task, path)
    assert str(path) in str(info.value) and f"'{field}'" in str(info.value)


def test_loader_refuses_a_file_that_is_not_parquet(tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    path.write_text("not parquet")
    with pytest.raises(DataError, match="not a readable parquet file"):
        load_faitheval("unanswerable", path)


@pytest.mark.parametrize("task", ["unanswerable", "inconsistent"])
def test_valid_phrases_are_the_readme_lists(task: str) -> None:
    assert valid_phrases(task, strict=False) == README_NON_STRICT[task]
    assert valid_phrases(task, strict=True) == README_STRICT[task]


@pytest.mark.parametrize("task", ["unanswerable", "inconsistent"])
def test_every_readme_phrase_scores_correct_and_only_strict_passes_strict(task: str) -> None:
    item = FaithItem("1", task, "Q", "C")
    for phrase in README_NON_STRICT[task]:
        answer = f"The_Answer: {phrase.upper()}!"
        assert is_correct(item, answer, strict=False), phrase
        # strict: the README's substring test ('conflict' is in 'conflicting')
        strict = any(s in phrase for s in README_STRICT[task])
        assert is_correct(item, answer, strict=True) is strict, phrase
    assert not is_correct(item, "Paris", strict=False)
    assert not is_correct(item, "Two Answers" if task == "unanswerable" else "unknown", strict=True)


def test_readme_normalization() -> None:
    assert normalize_answer("The_Moon’s  CRATERS, an `arc`") == "moon s craters arc"


def test_counterfactual_choice() -> None:
    item = FaithItem(
        "1", "counterfactual", "Q", "C", (), (("A", "rock"), ("B", "marshmallows")), "B"
    )
    assert is_correct(item, "Marshmallows.", strict=True)
    assert is_correct(item, "B", strict=False)
    assert not is_correct(item, "A", strict=False) and not is_correct(item, "rock", strict=True)


def test_prompt_and_documents() -> None:
    item = FaithItem("1", "inconsistent", "When?", INCONSISTENT[0]["context"])
    text = faitheval_prompt(item)
    assert text.endswith(f"Context: {item.context}\nQuestion: When?\nAnswer:")
    assert "the answer should be 'conflict'.\nContext:" in text
    assert split_documents(item.context) == [
        "Document: The canal opened in 1847.",
        "Document: The canal opened in 1851.",
    ]
    assert split_documents("One text.\nNo markers.") == ["One text.\nNo markers."]
    q = faitheval_question(item)
    assert q.no_rag_prompt.count("Context: \n") == 1 and len(q.documents) == 2


def test_registry_entries_are_unpinned_with_the_reason() -> None:
    for task in ("inconsistent", "counterfactual", "unanswerable"):
        entry = get_entry(f"faitheval-{task}")
        assert entry.kind == "hf" and entry.repo == f"Salesforce/FaithEval-{task}-v1.0"
        assert entry.revision == "main" and entry.sha256 is None
        assert "not pinned" in (entry.note or "")
        assert "research" in entry.licence and "Apache-2.0" in entry.licence


def reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("You are an expert in retrieval question answering."):
        return "conflict" if "1851" in prompt else "38 km"
    if prompt.startswith("You are an agent reading a document"):
        document = prompt.split("Document: ", 1)[1].split("\n", 1)[0]
        return f"Answer: {'1847' if '1847' in document else '1851'}. Explanation: x."
    if prompt.startswith("You are an aggregator"):
        if "Agent 2:" in prompt.rsplit("Agent responses:", 1)[1]:
            return 'All Correct Answers: ["1847", "1851"]. Explanation: conflicting documents.'
        return 'All Correct Answers: ["1851"]. Explanation: one document.'
    raise AssertionError(prompt[:60])


@pytest.mark.parametrize(("method", "calls", "strict"), [("rag", 2, 50.0), ("madam", 7, 50.0)])
def test_cli_run_and_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], method: str, calls: int, strict: float
) -> None:
    data = _parquet(tmp_path, INCONSISTENT)
    out = tmp_path / method
    args = ["faitheval", "run", "--task", "inconsistent", "--method", method, "--data", str(data)]
    with OpenAICompatServer(reply) as srv:
        model = ["--model", "openai/m", "--base-url", srv.base_url, "--quiet", "--out", str(out)]
        assert main([*args, *model]) == 0
        # madam: q1 two agents x 2 rounds + 1 aggregation (stopped); q2 one agent and its
        # aggregation: a lone agent has no history, so its round-2 prompt is its round-1
        # prompt, answered from the response cache
        assert len(srv.completions()) == calls
        capsys.readouterr()
        assert main(["faitheval", "report", "--run", str(out), "--json"]) == 0
        rep = json.loads(capsys.readouterr().out)
        assert rep["task"] == "inconsistent" and rep["method"] == method
        assert rep["accuracy_strict"]["value"] == strict
        assert rep["published"]["figures"]["Llama3.3-70B-Inst"] in (27.30, 43.10)
        assert main(["faitheval", "report", "--run", str(out)]) == 0
        text = capsys.readouterr().out
        assert "accuracy (non-strict):" in text and "note:" not in text
        assert main([*args, *model, "--limit", "1"]) == 0  # a smaller run, same directory
    capsys.readouterr()
    assert main(["faitheval", "report", "--run", str(out)]) == 0
    assert "note: the answers file holds 2 questions; the last run" in capsys.readouterr().out
