"""Loader, registry entries, stored release facts, reply parsing and the metrics by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.conflictqa import (
    LLMS,
    STRATEGYQA_QUESTIONS,
    claim_polarity,
    experiment_metrics,
    load_conflictqa,
    parse_choice,
    parse_elicitation,
)
from conflicteval.data.registry import get_entry
from conflicteval.errors import DataError, ParseFailure

ROW = {
    "question": "Q?",
    "popularity": 5,
    "ground_truth": ["True"],
    "memory_answer": "X is Y.",
    "parametric_memory": "m",
    "counter_answer": "X is not Y.",
    "counter_memory": "c",
    "parametric_memory_aligned_evidence": "ma",
    "counter_memory_aligned_evidence": "ca",
}


def test_the_sample_loads(shared_data: Path) -> None:
    items = load_conflictqa(
        shared_data / "conflictqa" / "conflictQA-strategyQA-chatgpt_first30.json"
    )
    assert len(items) == 30 and items[0].id == "0"
    assert items[0].ground_truth == ("True",) and items[0].popularity == 273182


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"popularity": "many"}, "popularity"),
        ({"ground_truth": [1]}, "ground_truth[0]"),
        ({"counter_memory": None}, "counter_memory"),
        ({"memory_answer": 3}, "memory_answer"),
    ],
)
def test_bad_input_names_file_row_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(ROW) + "\n" + json.dumps({**ROW, **change}) + "\n")
    with pytest.raises(DataError) as err:
        load_conflictqa(path)
    message = str(err.value)
    assert str(path) in message and "2" in message and field in message
    assert "\n" not in message


def test_registry_pins_every_strategyqa_file_and_the_popqa_commits() -> None:
    for llm in LLMS:
        entry = get_entry(f"conflictqa-strategyqa-{llm}")
        assert entry.pinned and entry.licence.startswith("Apache-2.0")
        popqa = get_entry(f"conflictqa-popqa-{llm}")
        assert popqa.revision == entry.revision and popqa.sha256 is None
        assert popqa.note and "first verified download" in popqa.note
    assert set(STRATEGYQA_QUESTIONS) == set(LLMS)
    assert STRATEGYQA_QUESTIONS["chatgpt"] == 1245


def test_polarity_from_the_claims() -> None:
    assert claim_polarity("You cannot buy it.", "You can buy it.") == "False"
    assert claim_polarity("It is rooted in English.", "It isn't rooted in English.") == "True"
    assert claim_polarity("A dog before a seal.", "A seal before a dog.") is None


OPTIONS = {"A": "True", "B": "False", "C": "Uncertain"}


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("A", "A"),
        ("B.", "B"),
        ("C: Uncertain.", "C"),
        ("Answer: (B) False", "B"),
        ("False.", "B"),
        ("uncertain", "C"),
        ("A: True.\nBecause the text says so.", "A"),
    ],
)
def test_parse_choice_reads_one_option(reply: str, letter: str) -> None:
    assert parse_choice(reply, OPTIONS) == letter


@pytest.mark.parametrize("reply", ["A: False", "It is true.", "A or B", "", "D."])
def test_parse_choice_refuses_what_is_not_one_option(reply: str) -> None:
    with pytest.raises(ParseFailure):
        parse_choice(reply, OPTIONS)


def test_parse_elicitation() -> None:
    assert parse_elicitation("False.\n\nBecause of x.") == ("False", "Because of x.")
    assert parse_elicitation("True, it is.\nThe reason.") == ("True", "The reason.")
    for bad in ("True or False?\n\nhm", "True.", "Maybe.\n\nreason"):
        with pytest.raises(ParseFailure):
            parse_elicitation(bad)


def test_metrics_by_hand() -> None:
    outcomes = ["memory", "memory", "counter", "uncertain", "unreadable"]
    m = experiment_metrics(outcomes)
    assert m["counts"] == {"memory": 2, "counter": 1, "uncertain": 1, "unreadable": 1}
    assert m["shares"]["memory"]["value"] == pytest.approx(2 / 5)
    assert m["shares"]["unreadable"]["value"] == pytest.approx(1 / 5)
    assert m["memorization_ratio"]["value"] == pytest.approx(2 / 3)
    assert m["memorization_ratio"]["n"] == 3
    assert 0.0 <= m["memorization_ratio"]["ci"][0] <= 2 / 3 <= m["memorization_ratio"]["ci"][1]
    none = experiment_metrics(["uncertain"])
    assert none["memorization_ratio"]["value"] is None  # nothing decided: None, never 0
    with pytest.raises(ValueError):
        experiment_metrics(["maybe"])
