"""Inputs that used to be accepted silently: each is now one line naming file, row and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.conflictbench import read_items
from conflicteval.conflictbench.sources.ambigdocs import load_ambigdocs
from conflicteval.errors import DataError
from conflicteval.feverous.items import load_feverous_s
from conflicteval.ramdocs import load_ramdocs

AMBIG = {
    "qid": 7,
    "ambiguous_entity": "Cleveland",
    "question": "What is the population of Cleveland?",
    "documents": [
        {"title": "Cleveland, Ohio", "text": "Ohio: 372624.", "pid": "p1", "answer": "372624"},
        {"title": "Cleveland, Texas", "text": "Texas: 7675.", "pid": "p2", "answer": "7675"},
    ],
}


def _message(path: Path, load: object) -> str:
    with pytest.raises(DataError) as caught:
        list(load(path))  # type: ignore[operator]
    text = str(caught.value)
    assert "\n" not in text and str(path) in text
    return text


@pytest.mark.parametrize("content", ["", "  \n\t\n"])
def test_an_empty_ambigdocs_file_is_refused_not_zero_questions(
    tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ambigdocs.json"
    path.write_text(content, encoding="utf-8")
    argv = ["ramdocs", "run", "--dataset", "ambigdocs", "--data", str(path), "--method", "rag"]
    assert main([*argv, "--model", "openai/x", "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{path}" in err and "no AmbigDocs records (the file is empty)" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("field", "value"), [("text", "  "), ("answer", "")])
def test_a_blank_ambigdocs_document_field_is_named(tmp_path: Path, field: str, value: str) -> None:
    record = json.loads(json.dumps(AMBIG))
    record["documents"][1][field] = value
    path = tmp_path / "ambigdocs.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    assert f"field 'documents[1].{field}': empty value" in _message(path, load_ambigdocs)


def test_a_blank_ambigdocs_id_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ambigdocs.json"
    path.write_text(json.dumps([{**AMBIG, "qid": "  "}]), encoding="utf-8")
    assert "field 'qid': empty id" in _message(path, load_ambigdocs)


def test_a_feverous_s_claim_without_evidence_is_refused(tmp_path: Path) -> None:
    claim = {"id": 3, "claim": "A claim.", "label": "supports", "evidence": " \n"}
    path = tmp_path / "feverous_s.json"
    path.write_text(json.dumps([claim]), encoding="utf-8")
    text = _message(path, load_feverous_s)
    assert "field 'evidence': empty" in text


def test_a_ramdocs_gold_answer_that_is_empty_is_refused(tmp_path: Path) -> None:
    row = {
        "question": "Who founded Acme?",
        "documents": [{"text": "Acme: Ann Lee.", "type": "correct", "answer": "Ann Lee"}],
        "disambig_entity": ["Acme"],
        "gold_answers": ["Ann Lee", ""],
        "wrong_answers": [],
    }
    path = tmp_path / "ramdocs.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert "field 'gold_answers[1]': empty answer" in _message(path, load_ramdocs)


def _item(item_id: str, doc_id: str, text: str) -> dict[str, object]:
    return {
        "id": item_id,
        "source": "macnoise-nq",
        "question": "q?",
        "claim": "The bridge opened in 1932.",
        "answer": "1932",
        "documents": [{"id": doc_id, "text": text, "gold": "SUPPORTS"}],
        "conflict": False,
    }


@pytest.mark.parametrize(
    ("item", "field"),
    [
        (_item(" ", "d", "The bridge opened in 1932."), "'id': empty id"),
        (_item("i", "", "The bridge opened in 1932."), "'documents[0].id': empty id"),
        (_item("i", "d", " \n "), "'documents[0].text': empty document text"),
    ],
)
def test_blank_detect_and_bench_item_fields_are_named(
    tmp_path: Path, item: dict[str, object], field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(item) + "\n", encoding="utf-8")
    assert f"row 1, field {field}" in _message(path, read_items)
    detect = ["conflictbench", "detect", "--items", str(path), "--out", str(tmp_path / "d")]
    assert main([*detect, "--quiet"]) == 2
    bench = ["bench", "labeler", "--gold", "conflictbench", "--data", str(path)]
    assert main([*bench, "--out", str(tmp_path / "b"), "--quiet"]) == 2
    assert "Traceback" not in capsys.readouterr().err
