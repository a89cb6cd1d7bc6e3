"""Fixtures for the Inspect AI adapter tests: offline Inspect runs on mockllm.

Both the evaluated model and the grader are ``mockllm/model`` with a *callable*
``custom_outputs`` that answers from the prompt's content (a list would be
consumed in arbitrary order under concurrency). Every ModelOutput carries a
``usage``: without it mockllm counts tokens with a tokenizer it downloads.
The library's scripted model answers with the same function, so the library's
own runner sees exactly the replies Inspect's run saw.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra")

from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

LABELS = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")
JUDGE_START = "Please evaluate the response to a question under relaxed evaluation"
NO_CLAIMS = "Report with nothing to claim"
OFF_TOPIC = "Off-topic remark"


def _h(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16)


def _between(text: str, start: str, end: str) -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


def _label_entry(key: str, index: int | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"document_snippet": key[:30], "reasoning": "scripted"}
    if index is not None:
        entry["index"] = index
    # off-topic claims have no evidence in any document: CS-R is undefined for them
    entry["answer"] = "IRRELEVANT" if OFF_TOPIC in key else LABELS[_h(key) % 3]
    return entry


def reply_to(prompt: str) -> str:
    """The scripted answer to one prompt (deterministic, from the prompt's content)."""
    if prompt.startswith(JUDGE_START):
        k = _h(prompt) % 4
        return [
            "comment: the response names both answers.\nevaluation: correct",
            "comment: only one answer is given.\nevaluation: partially correct",
            "comment: no answer matches.\nevaluation: incorrect",
            "I would rather not grade this one.",  # no readable verdict
        ][k]
    if "Break down the following report into individual claims" in prompt:
        report = _between(prompt, "Report: ", "\n\nPlease identify")
        if NO_CLAIMS in report:
            return "Claims:"  # an empty list
        parts = [p.strip() for p in report.split(".") if p.strip()]
        return "\n".join(f"Claims: {p}." for p in parts)
    if prompt.startswith("Document-Claim Conflict Detection"):
        claim = _between(prompt, "\n\nClaim to evaluate\n\n", "\n\nDocument to evaluate against")
        doc = _between(prompt, "\n\nDocument to evaluate against\n\n", "\n\nOutput format")
        if _h(claim + doc) % 7 == 0:
            return "I cannot decide."  # a failed pair
        return json.dumps({"claim": claim, **_label_entry(claim + "|" + doc)})
    if prompt.startswith("# Claims-Document Conflict Detection"):
        doc = _between(prompt, "# Document to evaluate against\n\n", "\n\n# Claims to evaluate")
        block = _between(prompt, "numbered 1 to", "\n\n# Output format")
        claims = re.findall(r"^\[(\d+)\] (.*)$", block, flags=re.MULTILINE)
        entries = [_label_entry(c + "|" + doc, int(k)) for k, c in claims]
        return json.dumps({"labels": entries})
    if prompt.startswith("# Claim-Documents Conflict Detection"):
        claim = _between(prompt, "# Claim to evaluate\n\n", "\n\n# Documents to evaluate")
        block = _between(prompt, "numbered 1 to", "\n\n# Output format")
        docs = re.split(r"\n\n(?=\[\d+\] )", block.split("\n\n", 1)[1])
        entries = []
        for d in docs:
            k, text = re.match(r"\[(\d+)\] (.*)", d, flags=re.DOTALL).groups()  # type: ignore[union-attr]
            entries.append(_label_entry(claim + "|" + text, int(k)))
        return json.dumps({"labels": entries})
    if prompt.startswith("Instruction: Write a report about"):
        k = _h(prompt) % 6
        if k == 0:
            return NO_CLAIMS
        if k == 1:
            return f"{OFF_TOPIC} one. {OFF_TOPIC} two."
        return " ".join(f"Statement {n} about the topic of report {k}." for n in range(1, k + 1))
    return f"Variant {_h(prompt) % 7}: the passages disagree, so both answers are possible."


class MockReplies:
    """The mockllm ``custom_outputs`` callable; records each call's settings by prompt kind."""

    def __init__(self, reply: Callable[[str], str] = reply_to) -> None:
        self.reply = reply
        self.calls: list[tuple[str, Any, int]] = []

    def __call__(self, input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = input[-1].text
        text = self.reply(prompt)
        self.calls.append((prompt, config, len(input)))
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(
            input_tokens=len(prompt) // 4 + 1,
            output_tokens=len(text) // 4 + 1,
            total_tokens=(len(prompt) + len(text)) // 4 + 2,
        )
        return out


def library_reply(messages: list[dict[str, Any]]) -> str:
    """The same replies for the library's scripted model (last message's content)."""
    return reply_to(messages[-1]["content"])


@pytest.fixture()
def inspect_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Inspect logs into tmp_path, with no display; returns the log directory."""
    log_dir = tmp_path / "inspect-logs"
    monkeypatch.setenv("INSPECT_LOG_DIR", str(log_dir))
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    return log_dir


@pytest.fixture()
def mock_replies() -> MockReplies:
    """A fresh recording reply callable."""
    return MockReplies()


@pytest.fixture()
def mock_model(mock_replies: MockReplies) -> Model:
    """``mockllm/model`` answering with :func:`reply_to` (used for both roles)."""
    return get_model("mockllm/model", custom_outputs=mock_replies, memoize=False)


@pytest.fixture()
def wc_data(shared_data: Path) -> Path:
    """The real WikiContradict CSV in ../shared/data."""
    path = shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    if not path.exists():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture()
def bench_file(shared_data: Path, tmp_path: Path) -> Path:
    """ConflictBench items built by the library's builder from the real MacNoise samples."""
    from conflicteval.conflictbench import build_conflictbench

    samples = shared_data / "macnoise"
    out = tmp_path / "bench.jsonl"
    build_conflictbench(
        [
            ("macnoise-nq", samples / "GPT_trainx_chatgptpert_samples.json", {"level": "25"}),
            ("macnoise-tqa", samples / "GPT_trainx_longpre_samples.json", {"level": "25"}),
        ],
        output=out,
        seed=0,
    )
    return out


@pytest.fixture()
def scripted_reply() -> Callable[[list[dict[str, Any]]], str]:
    """The reply function for the library's scripted model."""
    return library_reply
