"""Fixtures: a scripted model whose replies follow the MADAM-RAG and baseline prompts."""

from __future__ import annotations

import re
from typing import Any

import pytest

AGENT_START = "You are an agent reading a document to answer a question."
AGGREGATOR_START = "You are an aggregator reading answers from multiple agents."


def doc_answer(document: str) -> str:
    """The answer a test document states (``... answer is X.``), or ``unknown``."""
    found = re.search(r"answer is ([^.]+)\.", document)
    return found.group(1) if found else "unknown"


class MadamReplies:
    """Replies to MADAM-RAG prompts.

    ``mode``: ``stable`` (agents repeat their document's answer: the debate stops after round
    2), ``changing`` (answers change every round: no early stop), ``stop3`` (answers change in
    round 2 and hold in round 3). The aggregator lists every agent's answer except ``unknown``.
    """

    def __init__(self, mode: str = "stable") -> None:
        self.mode = mode
        self.prompts: list[str] = []

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        prompt = str(messages[-1]["content"])
        self.prompts.append(prompt)
        return reply_to(prompt, self.mode)


def reply_to(prompt: str, mode: str = "stable") -> str:
    """The reply to one prompt (see :class:`MadamReplies`)."""
    if prompt.startswith(AGENT_START):
        document = prompt.split("Document: ", 1)[1].split("\n", 1)[0]
        answer = doc_answer(document)
        if "other agents as additional information" in prompt and mode != "stable":
            # a new answer that neither contains nor is contained in the previous one
            answer = "gamma" if "beta" in prompt and mode == "changing" else "beta"
        return f"Answer: {answer}. Explanation: the document says so."
    if prompt.startswith(AGGREGATOR_START):
        joined = prompt.rsplit("Agent responses:\n", 1)[1]
        answers = re.findall(r"Agent \d+: Answer: ([^.]*)\.", joined)
        keep = [a for a in answers if a != "unknown"]
        body = ", ".join(f'"{a}"' for a in dict.fromkeys(keep))
        return f"All Correct Answers: [{body}]. Explanation: agents {len(answers)}."
    if "All Correct Answers" in prompt:  # the baselines
        answers = [doc_answer(d) for d in prompt.split("Document ")[1:]]
        keep = [a for a in answers if a != "unknown"]
        return "All Correct Answers: [" + ", ".join(dict.fromkeys(keep)) + "]. Explanation: x."
    if prompt.startswith("You are an expert in retrieval question answering."):
        return "conflict" if "Document 2" in prompt else "unknown"
    raise AssertionError(prompt[:80])


@pytest.fixture()
def madam_replies() -> type[MadamReplies]:
    """The :class:`MadamReplies` class (a scripted model's reply function)."""
    return MadamReplies


@pytest.fixture()
def reply_fn() -> Any:
    """:func:`reply_to` (for the local test server: it takes the request body)."""
    return lambda body: reply_to(str(body["messages"][-1]["content"]))
