"""A fixed set of ConflictScore items and a deterministic labelling model for them.

Shared by ``test_same_results.py`` and the script that wrote its expected
records (``data/same_results_expected.json``) with the code as it was before
the per-call speed-ups and the lean HTTP transport, so the test shows that
nothing in the results changed.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

RESPONSES = [
    "The bridge opened in 1932. It spans the river Tamar.",
    "The tower is 300 metres tall. It was built of iron. Millions visit it each year.",
    "The canal links two seas. Ships pay a toll.",
    "Nothing here can be checked.",
]
DOCUMENTS = [
    "The bridge over the Tamar opened in 1932 and carries a railway.",
    "Records say the bridge opened in 1934, two years late.",
    "An unrelated passage about gardening and roses.",
]
LABELS = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")


def items() -> list[dict[str, Any]]:
    """Four responses, each against the same three documents."""
    return [
        {
            "id": f"r{i}",
            "response": text,
            "documents": [{"id": f"d{j}", "text": d} for j, d in enumerate(DOCUMENTS)],
        }
        for i, text in enumerate(RESPONSES)
    ]


def _pick(text: str) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16)


def reply(prompt: str, n_messages: int = 1) -> str:
    """The model's reply to ``prompt``: a pure function of the prompt (and a re-ask)."""
    if prompt.startswith("Instruction: Break down the following report"):
        report = prompt.rsplit("Report:", 1)[-1]
        if "Nothing here" in report:
            return "Claims:\n1. The passage states that nothing here can be checked."
        sentences = [s.strip() for s in report.replace("\n", " ").split(".") if s.strip()]
        return "Claims:\n" + "\n".join(f"{k}. {s}." for k, s in enumerate(sentences, 1))
    h = _pick(prompt)
    if n_messages > 1:  # the re-ask after an unusable first reply
        return json.dumps(
            {"claim": "c", "document_snippet": "s", "reasoning": "re-asked", "answer": "SUPPORTS"}
        )
    if h % 11 == 0:
        return "I am not sure what to answer."  # no JSON: re-asked once
    if h % 13 == 0:
        return json.dumps({"claim": "c", "answer": "MAYBE"})  # no label: re-asked once
    if "Claims-Document" in prompt.split("\n", 1)[0]:  # the per-document batched prompt
        n = int(re.search(r"numbered 1 to (\d+)", prompt).group(1))  # type: ignore[union-attr]
        return json.dumps(
            {
                "labels": [
                    {
                        "index": k,
                        "document_snippet": "s",
                        "reasoning": "r",
                        "answer": LABELS[(h >> k) % 3],
                    }
                    for k in range(1, n + 1)
                ]
            }
        )
    return json.dumps(
        {
            "claim": "c",
            "document_snippet": f"snippet {h % 97}",
            "reasoning": f"because {h % 89}",
            "answer": LABELS[h % 3],
        }
    )


def server_reply(body: dict[str, Any]) -> str:
    """:func:`reply` for the test server's request bodies."""
    messages = body["messages"]
    return reply(messages[0]["content"], len(messages))


def scripted_reply(messages: list[dict[str, str]]) -> str:
    """:func:`reply` for the scripted provider."""
    return reply(messages[0]["content"], len(messages))


def run(model: Any, labeler: str, checkpoint: Any) -> list[dict[str, Any]]:
    """Score the items with the LLM decomposer and ``labeler``; the records as dicts."""
    from conflicteval import ConflictScorer, LLMDecomposer, LLMLabeler, PerDocumentLLMLabeler

    cls = LLMLabeler if labeler == "llm" else PerDocumentLLMLabeler
    scorer = ConflictScorer(LLMDecomposer(model), cls(model))
    result = scorer.score_many(items(), checkpoint=checkpoint, concurrency=3, progress=False)
    # the replies kept with each record (new since the expected records were made) have
    # their own tests (tests/runs/test_item_replies.py)
    return [r.model_dump(mode="json", exclude={"calls", "more_calls"}) for r in result.records]
