"""Exact match over multi-answer outputs on hand-worked cases, and the bootstrap interval."""

from __future__ import annotations

import pytest

from conflicteval.errors import ParseFailure
from conflicteval.ramdocs import answer_segment, exact_match, normalize_answer
from conflicteval.ramdocs.published import TABLE1, published
from conflicteval.ramdocs.report import score_item
from conflicteval.stats import bootstrap_ci


def test_normalize_answer_is_madams() -> None:
    assert normalize_answer("The  3,559 People!") == "3559 people"
    assert normalize_answer("An apple a day") == "apple day"


@pytest.mark.parametrize(
    ("segment", "gold", "wrong", "expected"),
    [
        ('["1963", "1956"]', ["1963", "1956"], ["1998"], True),  # every gold answer
        ('["1963"]', ["1963", "1956"], ["1998"], False),  # one gold answer missing
        ('["1963", "1956", "1998"]', ["1963", "1956"], ["1998"], False),  # a wrong one too
        ("['unknown']", ["1963"], [], False),  # 'unknown' holds no gold answer
        ("unknown", ["unknown answer"], [], False),
        ('["3,559 people"]', ["3,559 people"], ["3,559"], True),  # wrong inside gold: unchecked
        ('["19634"]', ["1963"], [], False),  # word boundaries: 1963 is not in 19634
        ('["The Beatles", "Queen"]', ["beatles", "queen"], [], True),
    ],
)
def test_exact_match_hand_worked(segment: str, gold: list, wrong: list, expected: bool) -> None:
    assert exact_match(segment, gold, wrong) is expected


def test_exact_match_refuses_no_gold() -> None:
    with pytest.raises(ValueError, match="no gold answer"):
        exact_match("x", ["..."])


def test_answer_segment_drops_the_explanation() -> None:
    out = 'All Correct Answers: ["1963", "1956"]. Explanation: Agent 3 says 1998, which is wrong.'
    assert answer_segment(out) == '["1963", "1956"].'
    item = {"output": out, "gold_answers": ["1963", "1956"], "wrong_answers": ["1998"]}
    assert score_item(item)["em"] == 1  # the rejected 1998 in the explanation does not count


def test_unreadable_output_is_a_failure_scored_zero() -> None:
    with pytest.raises(ParseFailure):
        answer_segment("1963 and 1956")
    scored = score_item({"output": "1963 and 1956", "gold_answers": ["1963"]})
    assert scored["em"] == 0 and scored["unreadable"] is True


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [1.0] * 30 + [0.0] * 70
    low, high = bootstrap_ci(values, n_resamples=500, seed=3)
    assert (low, high) == bootstrap_ci(values, n_resamples=500, seed=3)
    assert low < 0.3 < high and 0.15 < low and high < 0.45
    assert bootstrap_ci([1.0, 1.0]) == (1.0, 1.0)
    with pytest.raises(ValueError, match="no values"):
        bootstrap_ci([])


def test_table1_is_stored_exactly() -> None:
    assert published("ramdocs", "madam") == {
        "Llama3.3-70B-Inst": 34.40,
        "Qwen2.5-72B-Inst": 26.40,
        "GPT-4o-mini": 28.00,
    }
    assert TABLE1["GPT-4o-mini"]["ambigdocs"] == {
        "no-rag": 1.00,
        "rag": 51.50,
        "astute-rag": 15.00,
        "madam": 63.00,
    }
    assert TABLE1["Qwen2.5-72B-Inst"]["faitheval"]["madam"] == 57.70
    assert TABLE1["Llama3.3-70B-Inst"]["faitheval"]["no-rag"] == 26.70


# -- a draft list, negated gold answers, digit separators ----------------------------------


def test_two_answer_lists_that_differ_are_unreadable_with_the_raw_output() -> None:
    out = (
        "All Correct Answers: [1963]. Explanation: a draft.\n"
        "All Correct Answers: [1956]. Explanation: the final list."
    )
    with pytest.raises(ParseFailure) as caught:
        answer_segment(out)
    assert caught.value.raw == out
    scored = score_item({"output": out, "gold_answers": ["1963"]})
    assert scored["em"] == 0 and scored["unreadable"] is True and scored["raw"] == out
    same = "All Correct Answers: [1963]\nAll Correct Answers: 1963. Explanation: again."
    assert score_item({"output": same, "gold_answers": ["1963"]})["em"] == 1


@pytest.mark.parametrize(
    ("segment", "gold", "wrong", "expected"),
    [
        ("[not 3,559 people]", ["3,559 people"], [], False),
        ("[unknown; 3,559 people is misinformation]", ["3,559 people"], [], False),
        ("[3,559 people is wrong]", ["3,559 people"], [], False),
        ("[never 1963]", ["1963"], [], False),
        ("[maybe 1963]", ["1963"], [], False),  # hedged
        ("[1963 (probably)]; [possibly 1963]", ["1963"], [], True),  # asserted in one clause
        ("[1963; not 1956]", ["1963", "1956"], [], False),
        ("[1963, 1956]; 1956 is not disputed", ["1963", "1956"], [], True),  # once asserted
        ('["Paris, France"]', ["Paris, France"], [], True),  # gold across a comma
        ("[3,559 people]", ["3,559 people"], [], True),
        # digit separators, in the gold and in the wrong-answer check
        ("[3 559 people]", ["3,559 people"], [], True),
        ("[10,000]", ["10 000"], [], True),
        ("[10\u202f000]", ["10.000"], [], True),
        ("[5,000; 10 000 soldiers]", ["5000"], ["10,000"], False),
        ("[5,000; 10.000 soldiers]", ["5000"], ["10 000"], False),
        ("[2, 100]", ["2"], ["2100"], True),  # a comma and a space: a list, no separator
    ],
)
def test_negated_gold_and_digit_separators(
    segment: str, gold: list, wrong: list, expected: bool
) -> None:
    assert exact_match(segment, gold, wrong) is expected
