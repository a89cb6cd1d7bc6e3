"""Built ConflictBench gold labels follow the paper's Table 7 rules (seed 003, App. A, Table 7).

A scripted labeller (``table7_rules``) decides every (claim, document) pair from what the
claim asserts and what the document states, never from the gold labels; a faithful
labeller must find exactly the builder's gold relations and gold conflicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.conflictbench import BenchItem, build_conflictbench, has_conflict, load

from .conftest import AMBIG_RECORDS, write_contraqa_beir, write_contraqa_current, write_json
from .table7_rules import label_item, parse_claim

# Two same-name documents giving the claimed answer, one giving another.
SHARED_ANSWER = {
    "qid": "q-20",
    "ambiguous_entity": "Springfield",
    "question": "Which country is Springfield in?",
    "documents": [
        {
            "title": "Springfield, Illinois",
            "text": "Springfield is the capital of Illinois, United States.",
            "pid": "9900001",
            "answer": "United States",
        },
        {
            "title": "Springfield, Massachusetts",
            "text": "Springfield is a city in Massachusetts, United States.",
            "pid": "9900002",
            "answer": "the United States",
        },
        {
            "title": "Springfield, Tasmania",
            "text": "Springfield is a locality in Tasmania, Australia.",
            "pid": "9900003",
            "answer": "Australia",
        },
    ],
}


def _check(specs: list[tuple[Any, ...]], **build: Any) -> list[BenchItem]:
    """Build, label with the Table 7 rules, and compare with the gold; returns the items."""
    owners = {
        it.id: it for spec in specs for it in load(*spec[:2], **(spec[2] if len(spec) > 2 else {}))
    }
    items = build_conflictbench(specs, **build).items
    assert items
    for item in items:
        labels = label_item(item, owners)
        gold = [d.gold for d in item.documents]
        assert labels == gold, f"{item.id}: Table 7 rules give {labels}, gold {gold}"
        assert has_conflict(labels) == item.conflict
    return items


def test_ambigdocs_gold_conflicts_are_found_by_the_table7_rules(tmp_path: Path) -> None:
    path = write_json(tmp_path / "dev.json", [*AMBIG_RECORDS, SHARED_ANSWER])
    items = _check([("ambigdocs", path)], sizes={"ambigdocs": (4, 0)})
    assert sum(it.conflict for it in items) == 4
    by_id = {it.id: it for it in items}
    griswold = by_id["ambigdocs:17:conf"]
    # The claim keeps the question's ambiguous name; no disambiguated subject.
    assert griswold.claim == (
        'The answer to "Where is Griswold House located?" is 171 Boston Street, Guilford.'
    )
    assert parse_claim(griswold.claim).subject is None
    assert [d.gold for d in griswold.documents] == ["SUPPORTS", "CONTRADICTS", "CONTRADICTS"]
    # Same answer (after SQuAD normalisation) supports; another answer contradicts.
    springfield = by_id["ambigdocs:q-20:conf"]
    assert [d.gold for d in springfield.documents] == ["SUPPORTS", "SUPPORTS", "CONTRADICTS"]


def test_ambigdocs_no_conflict_items_follow_the_rules(tmp_path: Path) -> None:
    path = write_json(tmp_path / "dev.json", [*AMBIG_RECORDS, SHARED_ANSWER])
    items = _check([("ambigdocs", path)], sizes={"ambigdocs": (0, 4)})
    assert {it.kind for it in items} == {"no-conflict"}
    for item in items:
        assert sorted(d.gold for d in item.documents) == ["IRRELEVANT", "IRRELEVANT", "SUPPORTS"]


def test_ambigdocs_record_whose_documents_agree_is_no_conflict(tmp_path: Path) -> None:
    record = json.loads(json.dumps(SHARED_ANSWER))
    record["documents"][2]["answer"] = "United States."
    path = write_json(tmp_path / "dev.json", [record])
    (item,) = load("ambigdocs", path)
    assert [d.gold for d in item.documents] == ["SUPPORTS"] * 3
    assert item.conflict is False


@pytest.mark.parametrize("level", ["25", "50", "75", "100"])
def test_macnoise_gold_follows_the_table7_rules(shared_data: Path, level: str) -> None:
    folder = shared_data / "macnoise"
    files = sorted(folder.glob("*.json"))
    if not files:
        pytest.skip("../shared/data/macnoise not present")
    for path in files:
        options = {"level": level, "variant": "nq", "keep_original": level == "100"}
        items = _check([("macnoise", path, options)])
        assert any(it.conflict for it in items)


def test_contraqa_gold_follows_the_table7_rules(tmp_path: Path) -> None:
    current = write_contraqa_current(tmp_path / "current")
    items = _check([("contraqa", current)])
    assert {it.kind for it in items} == {"conflict", "no-conflict"}


def test_contraqa_linked_paragraph_without_the_answer_is_irrelevant(tmp_path: Path) -> None:
    root = write_contraqa_beir(tmp_path / "beir")
    with (root / "corpus.jsonl").open("a", encoding="utf-8") as fh:
        row = {
            "_id": "p4",
            "title": "Super_Bowl_50:::Original",
            "text": "Super Bowl 50 was played at Levi's Stadium.",
            "metadata": {},
        }
        fh.write(json.dumps(row) + "\n")
    qrels = root / "q_rel_dev.tsv"
    qrels.write_text(qrels.read_text(encoding="utf-8") + "q1\tp4\t1\n", encoding="utf-8")
    (item, *_rest) = load("contraqa", root)
    assert item.id == "contraqa:q1"
    gold = {d.id: d.gold for d in item.documents}
    assert gold == {"p1": "SUPPORTS", "p4": "IRRELEVANT", "p1f": "CONTRADICTS"}
    owners = {item.id: item}
    assert label_item(item, owners) == [d.gold for d in item.documents]


@pytest.mark.parametrize(
    ("text", "answers", "gold"),
    [
        ("The canal opened in 1847.", ["1"], "IRRELEVANT"),  # "1" inside "1847"
        ("The Mayor of Paris spoke.", ["May"], "IRRELEVANT"),  # "May" inside "Mayor"
        ("It opened in May 1847.", ["may"], "SUPPORTS"),
        ("Seats: 1 of 9.", ["1"], "SUPPORTS"),
        ("Played at  Levi's\nStadium.", ["levi's stadium"], "SUPPORTS"),
        ("The fourth season began.", ["four"], "IRRELEVANT"),
        ("No answer here.", [], "SUPPORTS"),  # nothing to check
    ],
)
def test_contraqa_real_gold_matches_answers_as_whole_words(
    text: str, answers: list[str], gold: str
) -> None:
    from conflicteval.conflictbench.sources.contraqa import _Paragraph, _real_gold

    assert _real_gold(_Paragraph(id="p", text=text, title=None, fake=False), answers) == gold
