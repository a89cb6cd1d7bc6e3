"""Gold sets of the labeler bench, from the real sample files and from edge-case files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.bench import RAMDOCS_TEMPLATE, load_gold, ramdocs_claim
from conflicteval.errors import DataError, UsageError
from conflicteval.testing.wikidb import write_wiki_db

from .helpers import (
    MACNOISE_SAMPLE,
    RAMDOCS_SAMPLE,
    S_SAMPLE,
    TRAIN_SAMPLE,
    pages_for,
    sample,
)


def test_ramdocs_first_30_label_counts_and_claim_wording(shared_data: Path) -> None:
    gold = load_gold("ramdocs", sample(shared_data, RAMDOCS_SAMPLE))
    assert len(gold.items) == 30 and gold.left_out == {}
    assert gold.label_counts() == {"SUPPORTS": 65, "CONTRADICTS": 21, "IRRELEVANT": 33}
    first = gold.items[0]
    assert first.claim == (
        'For Broken Bow, Nebraska, the answer to the question "What is the population of '
        'Broken Bow?" is 3,559 people.'
    )
    assert first.gold == ("SUPPORTS", "SUPPORTS", "IRRELEVANT")
    assert len({it.id for it in gold.items}) == 30


def test_ramdocs_template_is_one_fixed_wording() -> None:
    assert RAMDOCS_TEMPLATE == 'For {entity}, the answer to the question "{question}" is {answer}.'
    assert ramdocs_claim(" Who? ", " X ", " y ") == 'For X, the answer to the question "Who?" is y.'


def _ramdocs_row(gold: list[str], entities: list[str], types: list[str]) -> dict:
    return {
        "question": "Who directed Q?",
        "documents": [{"text": f"doc {t}", "type": t, "answer": "a"} for t in types],
        "disambig_entity": entities,
        "gold_answers": gold,
        "wrong_answers": ["w"],
    }


def test_ramdocs_multi_answer_and_entityless_questions_are_left_out_and_counted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ram.jsonl"
    rows = [
        _ramdocs_row(["A"], ["Q (film)"], ["correct", "misinfo", "noise"]),
        _ramdocs_row(["A", "B"], ["Q (film)", "Q (song)"], ["correct", "correct"]),
        _ramdocs_row(["A"], [], ["correct"]),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    gold = load_gold("ramdocs", path)
    assert [it.gold for it in gold.items] == [("SUPPORTS", "CONTRADICTS", "IRRELEVANT")]
    assert gold.left_out == {"several gold answers": 1, "no single entity": 1}


def _train_db(train: Path, tmp_path: Path) -> Path:
    ids = [
        e
        for line in train.read_text().splitlines()
        for s in json.loads(line)["evidence"]
        for e in s["content"]
    ]
    return write_wiki_db(tmp_path / "wiki.db", pages_for(ids))


def test_feverous_train_sample_through_the_wiki_db(shared_data: Path, tmp_path: Path) -> None:
    train = sample(shared_data, TRAIN_SAMPLE)
    gold = load_gold("feverous", train, db=_train_db(train, tmp_path))
    assert len(gold.items) == 10
    assert gold.label_counts() == {"SUPPORTS": 6, "CONTRADICTS": 4, "IRRELEVANT": 0}
    assert all(len(it.documents) == 1 and it.documents[0].text for it in gold.items)
    assert "Michael Folivi" in gold.items[0].documents[0].text


def test_feverous_not_enough_info_is_irrelevant_and_unresolvable_claims_counted(
    shared_data: Path, tmp_path: Path
) -> None:
    train = sample(shared_data, TRAIN_SAMPLE)
    db = _train_db(train, tmp_path)
    records = [json.loads(x) for x in train.read_text().splitlines()][:2]
    nei = {**records[0], "id": 999991, "label": "NOT ENOUGH INFO"}
    lost = {**records[1], "id": 999992, "evidence": [{"content": ["Nowhere_sentence_0"]}]}
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*records, nei, lost]))
    gold = load_gold("feverous", path, db=db)
    assert [it.gold for it in gold.items] == [("CONTRADICTS",), ("SUPPORTS",), ("IRRELEVANT",)]
    assert gold.left_out == {"no evidence text": 1}


def test_feverous_s_sample_label_counts(shared_data: Path) -> None:
    gold = load_gold("feverous-s", sample(shared_data, S_SAMPLE))
    assert gold.label_counts() == {"SUPPORTS": 2, "CONTRADICTS": 3, "IRRELEVANT": 0}
    assert load_gold("feverous-s", sample(shared_data, S_SAMPLE), limit=2).n_pairs == 2


def test_conflictbench_gold_is_the_builders_labelling(shared_data: Path, tmp_path: Path) -> None:
    from conflicteval.conflictbench import build_conflictbench, read_items

    out = tmp_path / "bench.jsonl"
    build_conflictbench(
        [("macnoise", sample(shared_data, MACNOISE_SAMPLE), {"level": "25", "variant": "nq"})],
        output=out,
    )
    built = read_items(out)
    gold = load_gold("conflictbench", out)
    assert [it.id for it in gold.items] == [it.id for it in built]
    assert [list(it.gold) for it in gold.items] == [it.gold_relations for it in built]
    counts = gold.label_counts()
    assert counts["SUPPORTS"] > 0 and counts["CONTRADICTS"] > 0
    assert {it.source for it in gold.items} <= {"macnoise-nq", "macnoise-tqa"}


def test_missing_inputs_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--db"):
        load_gold("feverous", tmp_path / "x.jsonl")
    with pytest.raises(UsageError, match="--data"):
        load_gold("feverous-s")
    with pytest.raises(UsageError, match="unknown gold set"):
        load_gold("fever")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "documents": []}\n')
    with pytest.raises(DataError) as info:
        load_gold("ramdocs", bad)
    assert info.value.row == 1


def test_gold_sets_by_name_go_through_the_dataset_registry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.cli import main
    from conflicteval.errors import ConflictEvalError

    # offline (as every test is) and not cached: the registry says how to get the release
    with pytest.raises(ConflictEvalError, match=r"(?s)'ramdocs'.*--data PATH"):
        load_gold("ramdocs")
    with pytest.raises(ConflictEvalError, match=r"(?s)ambigdocs.*conflictbench build"):
        load_gold("conflictbench")
    rc = main(
        [
            "bench",
            "labeler",
            "--gold",
            "ramdocs",
            "--labeler",
            "lexical",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and "conflicteval data fetch ramdocs" in err and len(err.splitlines()) == 1
