"""AmbigDocs other-entity documents: the builder and docs/bench.md give the same relation."""

from __future__ import annotations

import json
from pathlib import Path

from conflicteval.conflictbench import load_ambigdocs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bench.md"


def test_other_entity_documents_contradict_in_the_builder_and_the_docs(tmp_path: Path) -> None:
    record = {
        "qid": 1,
        "ambiguous_entity": "Cleveland",
        "question": "What is the population of Cleveland?",
        "documents": [
            {
                "title": "Cleveland, Wisconsin",
                "text": "1,485 people.",
                "pid": "a",
                "answer": "1,485",
            },
            {
                "title": "Cleveland, Ohio",
                "text": "372,624 people.",
                "pid": "b",
                "answer": "372,624",
            },
        ],
    }
    path = tmp_path / "dev.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    [item] = load_ambigdocs(path)
    assert [d.gold for d in item.documents] == ["SUPPORTS", "CONTRADICTS"]
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert "the other entities' documents (a different answer) contradict" in text
    assert "the other entities' documents are irrelevant" not in text
