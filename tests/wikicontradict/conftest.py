"""Fixtures for the WikiContradict tests: the real CSV and files in the other two layouts."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.wikicontradict import WikiContradictInstance, load_wikicontradict

CSV_NAME = "WikiContradict_dataset_v1_rag_qa.csv"


@pytest.fixture(scope="session")
def wc_csv(shared_data: Path) -> Path:
    """The real CSV release in ../shared/data (skips when absent)."""
    path = shared_data / "wikicontradict" / CSV_NAME
    if not path.exists():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture(scope="session")
def wc_instances(wc_csv: Path) -> list[WikiContradictInstance]:
    """All instances of the real CSV."""
    return load_wikicontradict(wc_csv)


@pytest.fixture(scope="session")
def by_id(wc_instances: list[WikiContradictInstance]) -> dict[str, WikiContradictInstance]:
    """The real instances by id."""
    return {i.id: i for i in wc_instances}


def _annotation(**overrides: Any) -> dict[str, Any]:
    """An ``annotationResult`` object with every key of the supplement's Appendix E."""
    base: dict[str, Any] = {
        "wikitag_label_valid": "Valid",
        "valid_comment": "",
        "paragraphA_article": "Lake Example",
        "paragraphA_information": "It is 12 km long.",
        "paragraphA_information_standalone": "Lake Example is 12 km long.",
        "paragraphB_article": "Lake Example",
        "paragraphB_information": "The lake is 15 km long.",
        "paragraphB_information_standalone": "Lake Example is 15 km long.",
        "wikitag_label_samepassage": "Different",
        "relevantInfo_comment_A": "12 km",
        "relevantInfo_comment_B": "15 km",
        "Contradict_type_I": "(PhraseLevel) Entity - Number",
        "Contradict_type_II": "Text - Text",
        "Contradict_type_III": "Within the same article",
        "Contradict_type_IV": "Explicit",
        "taxonomy": [
            ["Contradict type I", "(PhraseLevel) Entity - Number"],
            ["Contradict type IV", "Explicit"],
        ],
        "question1": "How long is Lake Example?",
        "question1_answer1": "12 km",
        "question1_answer2": "15 km",
        "question2": "Is Lake Example longer than 13 km?",
        "question2_answer1": "No",
        "question2_answer2": "Yes",
    }
    base.update(overrides)
    return base


def _record(title: str, annotation: dict[str, Any]) -> dict[str, Any]:
    return {
        "title": title,
        "url": f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}",
        "paragraph_A": "Lake Example is 12 km long.[inconsistent]",
        "paragraph_A_clean": "Lake Example is 12 km long.",
        "tag": "Inconsistent",
        "tagDate": "May 2020",
        "tagReason": "",
        "annotationResult": annotation,
    }


def nested_records() -> list[dict[str, Any]]:
    """Four records in the nested layout of Appendix E.

    1. two questions (``Contradict_type_IV`` spelling, explicit);
    2. an empty second question, "Same" passage with an empty passage B,
       the paper's ``ContradicttypeIV`` spelling, implicit, surrounding spaces;
    3. an invalid tag (no instance);
    4. type IV only in the taxonomy (``Contradict type IV`` key left empty).
    """
    second = _annotation(
        paragraphA_information_standalone=" Ann was born in 1901, or so the parish says. ",
        paragraphB_information_standalone="",
        paragraphB_information="",
        wikitag_label_samepassage="Same",
        question1="When was Ann born?",
        question1_answer1="1901 ",
        question1_answer2="1902",
        question2="",
        question2_answer1="",
        question2_answer2="",
    )
    del second["Contradict_type_IV"]
    second["ContradicttypeIV"] = "Implicit (reasoning required)"
    invalid = _annotation(wikitag_label_valid="Invalid", question1="", question2="")
    fourth = _annotation(
        question2="",
        question2_answer1="",
        question2_answer2="",
        taxonomy=[["Contradict type IV", "Implicit (reasoning required)"]],
    )
    del fourth["Contradict_type_IV"]
    fourth["Contradict type IV"] = ""
    return [
        _record("Lake Example", _annotation()),
        _record("Ann Example", second),
        _record("Invalid Example", invalid),
        _record("Taxonomy Example", fourth),
    ]


def _text(name: str, value: str) -> dict[str, Any]:
    return {
        "id": f"r-{name}",
        "from_name": name,
        "to_name": "wikitag",
        "type": "textarea",
        "origin": "manual",
        "value": {"text": [value]},
    }


def _choice(name: str, value: str) -> dict[str, Any]:
    return {
        "id": f"r-{name}",
        "from_name": name,
        "to_name": "wikitag",
        "type": "choices",
        "origin": "manual",
        "value": {"choices": [value]},
    }


def label_studio_tasks() -> list[dict[str, Any]]:
    """A Label Studio "JSON" export made with the supplement's labelling config.

    Task 101: two questions, a cancelled older annotation and a newer one.
    Task 102: one question (question 2 left empty), "Same" passage, taxonomy implicit.
    Task 103: not annotated (skipped).
    """
    common = [
        _choice("wikitag_label_valid", "Valid"),
        _text("paragraphA_article", "Lake Example"),
        _text("paragraphA_information", "It is 12 km long."),
        _text("paragraphA_information_standalone", "Lake Example is 12 km long."),
        _text("paragraphB_article", "Lake Example"),
        _text("paragraphB_information", "The lake is 15 km long."),
        _text("paragraphB_information_standalone", "Lake Example is 15 km long."),
        _choice("wikitag_label_samepassage", "Different"),
        _text("relevantInfo_comment_A", "12 km"),
        _text("relevantInfo_comment_B", "15 km"),
        {
            "id": "r-tax",
            "from_name": "taxonomy",
            "to_name": "wikitag",
            "type": "taxonomy",
            "origin": "manual",
            "value": {
                "taxonomy": [
                    ["Contradict type I", "(PhraseLevel) Entity - Number"],
                    ["Contradict type II", "Text - Text"],
                    ["Contradict type III", "Within the same article"],
                    ["Contradict type IV", "Explicit"],
                ]
            },
        },
        _text("question1", "How long is Lake Example?"),
        _text("question1_answer1", "12 km"),
        _text("question1_answer2", "15 km"),
        _text("question2", "Is Lake Example longer than 13 km?"),
        _text("question2_answer1", "No"),
        _text("question2_answer2", "Yes"),
        {
            "id": "r-conf",
            "from_name": "confidence",
            "to_name": "wikitag",
            "type": "rating",
            "origin": "manual",
            "value": {"rating": 5},
        },
    ]
    stale = copy.deepcopy(common)
    stale[11] = _text("question1", "A stale question from a cancelled annotation?")
    same = [
        _choice("wikitag_label_valid", "Valid"),
        _text("paragraphA_information_standalone", "Ann was born in 1901, or so the parish says."),
        _choice("wikitag_label_samepassage", "Same"),
        {
            "id": "r-tax2",
            "from_name": "taxonomy",
            "to_name": "wikitag",
            "type": "taxonomy",
            "origin": "manual",
            "value": {"taxonomy": [["Contradict type IV", "Implicit (reasoning required)"]]},
        },
        _text("question1", "When was Ann born?"),
        _text("question1_answer1", "1901"),
        _text("question1_answer2", "1902"),
    ]

    def task(tid: int, title: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": tid,
            "annotations": annotations,
            "drafts": [],
            "predictions": [],
            "data": {
                "paragraph_A": "text[inconsistent]",
                "title": title,
                "url": f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}",
                "paragraph_A_clean": "text",
                "tag": "Inconsistent",
                "tagDate": "June 2023",
                "tagReason": "",
            },
            "meta": {},
            "created_at": "2024-01-10T10:00:00.000000Z",
            "updated_at": "2024-01-11T10:00:00.000000Z",
            "inner_id": tid,
            "total_annotations": len(annotations),
            "cancelled_annotations": 0,
            "project": 7,
        }

    def annotation(aid: int, result: list[dict[str, Any]], cancelled: bool, updated: str) -> dict:
        return {
            "id": aid,
            "completed_by": 1,
            "result": result,
            "was_cancelled": cancelled,
            "ground_truth": False,
            "created_at": updated,
            "updated_at": updated,
            "lead_time": 812.5,
            "task": aid,
        }

    return [
        task(
            101,
            "Lake Example",
            [
                annotation(1, stale, True, "2024-01-12T09:00:00.000000Z"),
                annotation(2, common, False, "2024-01-11T09:00:00.000000Z"),
            ],
        ),
        task(102, "Ann Example", [annotation(3, same, False, "2024-01-11T09:30:00.000000Z")]),
        task(103, "Not Done", []),
    ]


@pytest.fixture()
def nested_file(tmp_path: Path) -> Path:
    """The nested records written as a JSON file with a neutral name."""
    path = tmp_path / "records.data"
    path.write_text(json.dumps(nested_records(), indent=2), encoding="utf-8")
    return path


@pytest.fixture()
def label_studio_file(tmp_path: Path) -> Path:
    """The Label Studio export written as a JSON file."""
    path = tmp_path / "project-7-at-2024-01-12.json"
    path.write_text(json.dumps(label_studio_tasks()), encoding="utf-8")
    return path


@pytest.fixture()
def nested_data() -> list[dict[str, Any]]:
    """A fresh copy of the nested records (tests may modify it)."""
    return nested_records()


@pytest.fixture()
def label_studio_data() -> list[dict[str, Any]]:
    """A fresh copy of the Label Studio tasks (tests may modify it)."""
    return label_studio_tasks()
