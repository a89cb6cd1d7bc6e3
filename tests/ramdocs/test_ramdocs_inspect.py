"""The RAMDocs and FaithEval Inspect tasks on mockllm agree with the library's own runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra")

from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from conflicteval import get_model as library_model
from conflicteval.adapters.inspect import faitheval, ramdocs
from conflicteval.ramdocs import load_ramdocs, questions, ramdocs_report, run_method

RECORD = {
    "question": "What is the population of Broken Bow?",
    "documents": [
        {"text": "Nebraska: the answer is 3559.", "type": "correct", "answer": "3559"},
        {"text": "Oklahoma: the answer is 4120.", "type": "correct", "answer": "4120"},
        {"text": "A page about rivers.", "type": "noise", "answer": "unknown"},
    ],
    "disambig_entity": ["Broken Bow, Nebraska", "Broken Bow, Oklahoma"],
    "gold_answers": ["3559", "4120"],
    "wrong_answers": ["9999"],
}


class Mock:
    """mockllm's custom_outputs: the scripted replies, with usage on every output."""

    def __init__(self, reply: Any) -> None:
        self.reply = reply
        self.calls = 0

    def __call__(self, input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        self.calls += 1
        text = self.reply([{"role": "user", "content": input[-1].text}])
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    second = {**RECORD, "question": "Who founded Acme?", "gold_answers": ["Ann Lee"]}
    second["documents"] = [
        {"text": "Acme: the answer is Ann Lee.", "type": "correct", "answer": "Ann Lee"}
    ]
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(RECORD) + "\n" + json.dumps(second) + "\n")
    return path


@pytest.mark.parametrize("method", ["madam", "rag"])
def test_ramdocs_task_matches_the_library_run(
    tmp_path: Path, data: Path, madam_replies: Any, method: str
) -> None:
    mock = Mock(madam_replies("changing"))
    model = get_model("mockllm/model", custom_outputs=mock, memoize=False)
    [log] = eval(
        ramdocs(method=method, data=str(data)),
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success" and log.samples is not None
    inspect_em = {str(s.id): s.scores["ramdocs_exact_match"].value for s in log.samples}

    lib = library_model("scripted", replies=madam_replies("changing"))
    items = questions(load_ramdocs(data))
    asyncio.run(run_method(items, method, lib, tmp_path / "lib", progress=False))
    rep = ramdocs_report(tmp_path / "lib")
    assert inspect_em == {i["id"]: i["em"] for i in rep["items"]}
    assert mock.calls == len(lib.provider.requests)
    if method == "madam":
        # question 1: answers change every round, no early stop (3N + 3); question 2's lone
        # agent sees no history, keeps its answer and stops the debate after round 2 (2N + 1)
        assert mock.calls == (3 * 3 + 3) + (2 * 1 + 1)
        assert "rounds" in log.samples[0].metadata["madam"]


def test_faitheval_task_scores_strict_and_non_strict(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow", reason="needs the parquet extra")
    pq = pytest.importorskip("pyarrow.parquet", reason="needs the parquet extra")
    rows = [
        {"qid": "a", "question": "When?", "context": "It opened in 1847.", "answers": ["1847"]},
        {"qid": "b", "question": "Where?", "context": "It is in Ohio.", "answers": ["Ohio"]},
    ]
    path = tmp_path / "u.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)

    def reply(messages: list[dict[str, Any]]) -> str:
        return "unclear" if "1847" in messages[-1]["content"] else "unknown"

    model = get_model("mockllm/model", custom_outputs=Mock(reply), memoize=False)
    [log] = eval(
        faitheval(task="unanswerable", data=str(path)),
        model=model,
        log_dir=str(tmp_path / "l"),
        display="none",
    )
    assert log.status == "success" and log.samples is not None
    values = {str(s.id): s.scores["faitheval_accuracy"].value for s in log.samples}
    assert values == {"a": {"strict": 0, "non_strict": 1}, "b": {"strict": 1, "non_strict": 1}}
