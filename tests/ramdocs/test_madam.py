"""MADAM-RAG's rounds, early stop and call counts, offline with a scripted model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from conflicteval.errors import PendingCall
from conflicteval.models import get_model
from conflicteval.ramdocs import agent_answer, answers_unchanged, call_count, madam
from conflicteval.ramdocs.methods import gather_all

DOCS = [
    "Broken Bow, Nebraska: the answer is 3559.",
    "Broken Bow, Oklahoma: the answer is 4120.",
    "A made-up page: the answer is 9999.",
    "A page about the weather.",
]


@pytest.fixture()
def run(madam_replies: Any) -> Any:
    def go(mode: str, rounds: int = 3) -> tuple[dict, Any, int]:
        return _run(madam_replies(mode), rounds)

    return go


def _run(replies: Any, rounds: int) -> tuple[dict, Any, int]:
    model = get_model("scripted", replies=replies)
    result = asyncio.run(madam(model, "What is the population of Broken Bow?", DOCS, rounds=rounds))
    return result, replies, len(model.provider.requests)


def test_early_stop_after_round_two_makes_2n_plus_1_calls(run: Any) -> None:
    result, replies, calls = run("stable")
    n = len(DOCS)
    assert calls == 2 * n + 1 == call_count(n, 3, stopped_after=2)
    assert result["stopped_early"] is True
    assert len(result["rounds"]) == 2
    assert result["rounds"][1]["aggregation"] is None  # the stopping round is not aggregated
    assert result["output"] == result["rounds"][0]["aggregation"]
    assert result["output"].startswith('All Correct Answers: ["3559", "4120", "9999"]')
    aggregations = [p for p in replies.prompts if p.startswith("You are an aggregator")]
    assert len(aggregations) == 1


def test_no_early_stop_makes_3n_plus_3_calls_and_aggregates_the_last_round(run: Any) -> None:
    result, replies, calls = run("changing")
    n = len(DOCS)
    assert calls == 3 * n + 3 == call_count(n, 3)
    assert result["stopped_early"] is False
    assert [r["answers"][0] for r in result["rounds"]] == [
        "3559.",
        "beta.",
        "gamma.",
    ]  # the slice keeps the period
    assert result["output"] == result["rounds"][2]["aggregation"]
    assert '"gamma"' in result["output"] and "3559" not in result["output"]
    # round 3's agents saw round 2's responses of the *other* agents only
    third = [p for p in replies.prompts if "gamma" not in p and "Agent 2: Answer: beta" in p]
    assert third


def test_stop_in_round_three_makes_3n_plus_2_calls(run: Any) -> None:
    result, _, calls = run("stop3")
    n = len(DOCS)
    assert calls == 3 * n + 2 == call_count(n, 3, stopped_after=3)
    assert result["stopped_early"] is True
    assert result["output"] == result["rounds"][1]["aggregation"]


def test_one_round_is_agents_plus_one_aggregation(run: Any) -> None:
    result, _, calls = run("changing", rounds=1)
    assert calls == len(DOCS) + 1
    assert result["output"] == result["rounds"][0]["aggregation"]


def test_agent_history_names_other_agents_with_their_original_numbers(run: Any) -> None:
    _, replies, _ = run("stable")
    second_round_agent_2 = [
        p
        for p in replies.prompts
        if "additional information" in p and "Document: Broken Bow, Oklahoma" in p
    ]
    assert len(second_round_agent_2) == 1
    history = second_round_agent_2[0].split("additional information.\n", 1)[1]
    assert history.startswith("Agent 1: Answer: 3559.")
    assert "Agent 2:" not in history and "Agent 3: Answer: 9999." in history


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("Answer: 1963. Explanation: born then.", "1963."),
        ("Answer: 1963 Explanation: born then.", "1963"),
        ("The year is 1963.", "r is 1963"),  # no 'Answer: ': the slice starts at 7, ends at -1
        ("Answer: 1963.", "1963"),  # no 'Explanation': the slice drops the last character
    ],
)
def test_agent_answer_slices_as_the_original_code(reply: str, answer: str) -> None:
    assert agent_answer(reply) == answer


def test_unchanged_is_two_way_containment_after_normalization() -> None:
    assert answers_unchanged(["The 1963."], ["1963"])
    assert answers_unchanged(["1963"], ["born in 1963"])
    assert answers_unchanged([""], ["anything"])  # an empty answer is in every answer
    assert not answers_unchanged(["1963", "x"], ["1963", "1956"])
    with pytest.raises(ValueError):
        answers_unchanged(["a"], ["a", "b"])


def test_gather_all_finishes_every_call_before_raising_pending() -> None:
    finished: list[int] = []

    async def ok(i: int) -> int:
        await asyncio.sleep(0.01)
        finished.append(i)
        return i

    async def pending() -> int:
        raise PendingCall("k" * 12, "m")

    with pytest.raises(PendingCall):
        asyncio.run(gather_all([pending(), ok(1), ok(2)]))
    assert sorted(finished) == [1, 2]

    async def broken() -> int:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        asyncio.run(gather_all([pending(), broken()]))


def test_madam_refuses_no_documents() -> None:
    model = get_model("scripted", replies=[])
    with pytest.raises(ValueError, match="at least one document"):
        asyncio.run(madam(model, "Q?", []))
