# ruff: noqa: E501
"""The prompts are the repositories' text, byte for byte (typos and trailing spaces included).

The expected texts below are copies of the f-string bodies in ``run_madam_rag.py`` of
github.com/HanNight/RAMDocs at commit d44454c9ebb0bf513d8236a03decc9fb58704cad (MIT) and of the
Quick Start prompt in the README of github.com/SalesforceAIResearch/FaithEval at commit
104dbb0fb34ebe4792ee21088ad1b067f5214533 (Apache-2.0), written out independently of the
package files.
"""

from __future__ import annotations

import hashlib

import pytest

from conflicteval.ramdocs import prompts

AGENT = (
    "You are an agent reading a document to answer a question.\n"
    "\n"
    "Question: {query}\n"
    "Document: {document}\n"
    "\n"
    "Answer the question based only on this document. Provide your answer and a step-by-step reasoning explanation.\n"
    "Please follow the format: 'Answer: {{}}. Explanation: {{}}.''"
)

AGENT_HISTORY = (
    "You are an agent reading a document to answer a question.\n"
    "\n"
    "Question: {query}\n"
    "Document: {document}\n"
    "\n"
    "The following reponses are from other agents as additional information.\n"
    "{history}\n"
    "Answer the question based on the document and other agents' response. Provide your answer and a step-by-step reasoning explanation.  \n"
    "Please follow the format: 'Answer: {{}}. Explanation: {{}}.''"
)

AGGREGATOR = (
    "You are an aggregator reading answers from multiple agents.\n"
    "\n"
    "If there are multiple answers, please provide all possible correct answers and also provide a step-by-step reasoning explanation. If there is no correct answer, please reply 'unknown'.\n"
    "Please follow the format: 'All Correct Answers: []. Explanation: {{}}.'\n"
    "\n"
    "The following are examples:\n"
    "Question: In which year was Michael Jordan born?\n"
    "Agent responses:\n"
    "Agent 1: Answer: 1963. Explanation: The document clearly states that Michael Jeffrey Jordan was born on February 17, 1963. \n"
    "Agent 2: Answer: 1956. Explanation: The document states that Michael Irwin Jordan was born on February 25, 1956. However, it's important to note that this document seems to be about a different Michael Jordan, who is an American scientist, not the basketball player. The other agents' responses do not align with the information provided in the document.\n"
    "Agent 3: Answer: 1998. Explanation: The According to the document provided, Michael Jeffrey Jordan was born on February 17, 1998.\n"
    "Agent 4: Answer: Unknown. Explanation: The provided document focuses on Jordan's college and early professional career, mentioning his college championship in 1982 and his entry into the NBA in 1984, but it does not include information about his birth year.\n"
    'All Correct Answers: ["1963", "1956"]. Explanation: Agent 1 is talking about the basketball player Michael Jeffrey Jordan, who was born on Februray 17, 1963, so 1963 is correct. Agent 2 is talking about another person named Michael Jordan, who is an American scientist, and he was born in 1956. Therefore, the answer 1956 from Agent 2 is also correct. Agent 3 provides an error stating Michael Jordan\'s birth year as 1998, which is incorrect. Based on the correct information from Agent 1, Michael Jeffrey Jordan was born on February 17, 1963. Agent 4 does not provide any useful information.\n'
    "\n"
    "Question: {query}\n"
    "Agent responses:\n"
    "{joined}\n"
    ""
)

FAITHEVAL = (
    "You are an expert in retrieval question answering. \n"
    "Please respond with the exact answer only. Do not be verbose or provide extra information.\n"
    "{task_specific_prompt}\n"
    "Context: {example['context']}\n"
    "Question: {example['question']}\n"
    "Answer:"
)

FAITHEVAL_TASK_PROMPTS = {
    "unanswerable": "If there is no information available from the context, the answer should be 'unknown'. ",
    "inconsistent": "If there is conflict information or multiple answers from the context, the answer should be 'conflict'.",
}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (prompts.AGENT, AGENT),
        (prompts.AGENT_HISTORY, AGENT_HISTORY),
        (prompts.AGGREGATOR, AGGREGATOR),
        ("faitheval_prompt", FAITHEVAL),
    ],
)
def test_prompt_files_are_the_repository_text_byte_for_byte(name: str, expected: str) -> None:
    stored = prompts.load_prompt(name)
    assert stored == expected
    assert hashlib.sha256(stored.encode()).digest() == hashlib.sha256(expected.encode()).digest()


def test_faitheval_task_sentences_are_the_readme_text() -> None:
    from conflicteval.faitheval.scoring import readme_data

    assert readme_data()["task_specific_prompt"] == FAITHEVAL_TASK_PROMPTS


def test_agent_prompt_renders_as_the_fstring_did() -> None:
    text = prompts.agent_prompt("Who?", "Doc {with} braces")
    assert text == AGENT.replace("{query}", "Who?").replace(
        "{document}", "Doc {with} braces"
    ).replace("{{}}", "{}")
    assert text.endswith("Please follow the format: 'Answer: {}. Explanation: {}.''")


def test_history_prompt_is_used_only_with_history() -> None:
    history = prompts.history_for(["r1", "r2", "r3"], 1)
    assert history == "Agent 1: r1\nAgent 3: r3"
    with_history = prompts.agent_prompt("Q", "D", history)
    assert "The following reponses are from other agents" in with_history
    assert "Agent 1: r1\nAgent 3: r3\nAnswer the question based on the document" in with_history
    assert "reponses" not in prompts.agent_prompt("Q", "D", "")


def test_aggregator_prompt_numbers_agents_and_ends_with_a_newline() -> None:
    text = prompts.aggregator_prompt("Q?", ["Answer: a.", "Answer: b."])
    assert text.endswith(
        "Question: Q?\nAgent responses:\nAgent 1: Answer: a.\nAgent 2: Answer: b.\n"
    )
    assert "All Correct Answers: []. Explanation: {}." in text


def test_render_fstring_names_a_missing_field() -> None:
    with pytest.raises(KeyError):
        prompts.render_fstring("{a} {b}", {"a": "x"})
