"""The ConflictQA Inspect task on mockllm agrees with the library's own run and report."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra")

from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from conflicteval import get_model as library_model
from conflicteval.adapters.inspect import conflictqa
from conflicteval.conflictqa import conflictqa_report, load_conflictqa, run_conflictqa


def reply(messages: list[dict[str, Any]]) -> str:
    """``A`` when the counter-memory mentions a year, an unreadable reply otherwise."""
    prompt = str(messages[-1]["content"])
    evidence = prompt.split("Information: ", 1)[1].split("\n\nQuestion:", 1)[0]
    return "A" if any(ch.isdigit() for ch in evidence) else "Maybe both."


class Mock:
    def __init__(self) -> None:
        self.calls = 0
        self.systems: list[str] = []

    def __call__(self, input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        self.calls += 1
        self.systems.append(input[0].text)
        out = ModelOutput.from_content(
            model="mockllm/model", content=reply([{"content": input[-1].text}])
        )
        out.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return out


def test_conflictqa_task_matches_the_library_run(tmp_path: Path, shared_data: Path) -> None:
    data = shared_data / "conflictqa" / "conflictQA-strategyQA-chatgpt_first30.json"
    mock = Mock()
    [log] = eval(
        conflictqa(data=str(data), experiment="counter"),
        model=get_model("mockllm/model", custom_outputs=mock, memoize=False),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success" and log.samples is not None
    assert mock.calls == 29 and set(mock.systems) == {"You are a helpful assistant."}
    inspect_outcomes = {str(s.id): s.scores["conflictqa_choice"].value for s in log.samples}

    lib = library_model("scripted", replies=reply)
    items = load_conflictqa(data)
    asyncio.run(
        run_conflictqa(items, lib, tmp_path / "lib", experiments=["counter"], progress=False)
    )
    rep = conflictqa_report(tmp_path / "lib")
    assert inspect_outcomes == {i["id"]: i["counter"] for i in rep["items"]}
    assert "unreadable" in inspect_outcomes.values() and "memory" in inspect_outcomes.values()
    metrics = log.results.scores[0].metrics if log.results else {}
    expected = rep["experiments_scored"]["counter"]
    assert metrics["memory"].value == pytest.approx(expected["shares"]["memory"]["value"])
    assert metrics["memorization_ratio"].value == pytest.approx(
        expected["memorization_ratio"]["value"]
    )
