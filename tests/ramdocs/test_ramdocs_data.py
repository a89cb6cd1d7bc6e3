"""The RAMDocs loader on the real release sample and on damaged files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.data.registry import get_entry
from conflicteval.errors import DataError
from conflicteval.ramdocs import document_counts, load_ramdocs


def test_real_sample_loads(shared_data: Path) -> None:
    items = load_ramdocs(shared_data / "ramdocs" / "RAMDocs_test_first30.jsonl")
    assert len(items) == 30
    assert sum(len(i.documents) for i in items) == 119
    assert document_counts(items) == {"correct": 65, "misinfo": 21, "noise": 33}
    first = items[0]
    assert first.id == "0"
    assert first.question == "What is the population of Broken Bow?"
    assert first.documents[0].type == "correct"
    assert first.documents[0].answer == "3,559 people"
    assert first.gold_answers
    assert all(len(i.gold_answers) == 1 for i in items)  # the sample is single-answer


def test_registry_entry_is_pinned() -> None:
    entry = get_entry("ramdocs")
    assert entry.revision == "d44454c9ebb0bf513d8236a03decc9fb58704cad"
    assert entry.sha256 == "c67f699c97349f00cf1bd08d1dbf8ca1d0cc38c306715c93a10a4f961dcf28b7"
    assert entry.size == 1_931_157
    assert entry.download_url is not None and entry.revision in entry.download_url


def _write(tmp_path: Path, records: list[object]) -> Path:
    path = tmp_path / "ramdocs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


GOOD = {
    "question": "Q?",
    "documents": [{"text": "t", "type": "correct", "answer": "a"}],
    "disambig_entity": ["E"],
    "gold_answers": ["a"],
    "wrong_answers": [],
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"documents": []}, "documents"),
        ({"gold_answers": []}, "gold_answers"),
        ({"gold_answers": [1]}, "gold_answers[0]"),
        ({"documents": [{"text": "t", "type": "rumour", "answer": "a"}]}, "documents[0].type"),
        ({"documents": ["t"]}, "documents[0]"),
        ({"question": ""}, "question"),
    ],
)
def test_bad_record_names_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = _write(tmp_path, [GOOD, {**GOOD, **change}])
    with pytest.raises(DataError) as info:
        load_ramdocs(path)
    message = str(info.value)
    assert str(path) in message and "2" in message and field in message


def test_empty_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="no RAMDocs items"):
        load_ramdocs(path)


def test_entity_as_string_is_kept(tmp_path: Path) -> None:
    items = load_ramdocs(_write(tmp_path, [{**GOOD, "disambig_entity": "E"}]))
    assert items[0].disambig_entity == ("E",)
