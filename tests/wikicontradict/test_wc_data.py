"""Loading WikiContradict: the real CSV, nested JSON, Label Studio exports, malformed files."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.errors import DataError
from conflicteval.wikicontradict import (
    WikiContradictInstance,
    add_revisions,
    load_revisions,
    load_wikicontradict,
    summary,
)

HEADER = (
    "question_ID,question,context1,context2,answer1,answer2,contradictType,samepassage,"
    "merged_context,ref_answer,WikipediaArticleTitle,url"
)


def _csv_rows(path: Path) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return {r["question_ID"]: r for r in csv.DictReader(fh)}


# -- the real CSV ------------------------------------------------------------------------


def test_real_csv_counts(wc_instances: list[WikiContradictInstance]) -> None:
    counts = summary(wc_instances)
    assert counts["total"] == 253
    assert (counts["explicit"], counts["implicit"]) == (161, 92)
    assert (counts["same_passage"], counts["different_passage"]) == (63, 190)
    assert counts["yes_no"] == 134  # the documented heuristic (the paper reports 133)
    assert counts["yes_no"] + counts["wh"] == 253
    assert counts["same_passage_differing_text"] == 1
    assert sorted(int(i.id) for i in wc_instances) == list(range(1, 254))


def test_real_csv_instance_1_fields(by_id: dict[str, WikiContradictInstance]) -> None:
    inst = by_id["1"]
    assert inst.question == (
        "Which of the following are present in Nymphaea nouchali var. caerulea: apomorphine, "
        "aporphine, or neither?"
    )
    assert inst.passage_1 == "Apomorphine is said to be main psychoactive compound present."
    assert inst.passage_2 == (
        "Like other species in the genus, Nymphaea nouchali var. caerulea contains the "
        "psychoactive alkaloid aporphine (not to be confused with apomorphine, a metabolic "
        "product of aporphine)."
    )
    assert (inst.answer_1, inst.answer_2) == ("Apomorphine", "Aporphine")
    assert inst.contradiction_type == "implicit"
    assert inst.same_passage is False
    assert inst.title == "Nymphaea nouchali var. caerulea"
    assert inst.url == "https://en.wikipedia.org/wiki/Nymphaea_nouchali_var._caerulea"
    assert inst.taxonomy is None and inst.tag is None and inst.revised_passage_1 is None


def test_real_csv_text_is_raw_for_every_row(wc_csv: Path, wc_instances: list) -> None:
    rows = _csv_rows(wc_csv)
    spaced = 0
    for inst in wc_instances:
        row = rows[inst.id]
        assert (inst.question, inst.passage_1, inst.passage_2) == (
            row["question"],
            row["context1"],
            row["context2"],
        )
        assert (inst.answer_1, inst.answer_2) == (row["answer1"], row["answer2"])
        spaced += inst.answer_1 != inst.answer_1.strip() or inst.answer_2 != inst.answer_2.strip()
    assert spaced == 5  # IDs 12, 139, 140, 142, 217 keep their surrounding spaces


def test_context_reproduces_merged_context_except_the_one_same_row_with_other_text(
    wc_csv: Path, by_id: dict[str, WikiContradictInstance]
) -> None:
    rows = _csv_rows(wc_csv)
    differing = [i for i, inst in by_id.items() if inst.context != rows[i]["merged_context"]]
    assert differing == ["126"]


@pytest.mark.parametrize("qid", ["106", "107", "164", "165"])
def test_same_rows_differing_only_in_whitespace_show_one_passage(
    qid: str, by_id: dict[str, WikiContradictInstance]
) -> None:
    inst = by_id[qid]
    assert inst.same_passage and inst.passage_1 != inst.passage_2  # raw text differs
    assert inst.passage_1.split() == inst.passage_2.split()
    assert inst.context == inst.passage_1 and "\n" not in inst.context.strip()
    assert inst.context_swapped == inst.passage_2


def test_same_row_126_with_really_different_passages_shows_both(
    by_id: dict[str, WikiContradictInstance],
) -> None:
    inst = by_id["126"]
    assert inst.same_passage is True  # the annotation is kept as it is
    assert inst.context == inst.passage_1 + "\n" + inst.passage_2
    assert inst.context_swapped == inst.passage_2 + "\n" + inst.passage_1
    assert "Shiraz" in inst.context and "Herat" in inst.context


def test_bom_and_no_bom_give_the_same_instances(tmp_path: Path, wc_csv: Path) -> None:
    raw = wc_csv.read_bytes()
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    with_bom, without = tmp_path / "a.csv", tmp_path / "b.txt"
    with_bom.write_bytes(b"\xef\xbb\xbf" + body)
    without.write_bytes(body)
    a, b = load_wikicontradict(with_bom), load_wikicontradict(without)
    assert a == b and len(a) == 253 and a[0].id == b[0].id


# -- malformed CSV -----------------------------------------------------------------------

GOOD_ROW = (
    '7,"How long?","It is 12 km.","It is 15 km.","12 km","15 km",Explicit,Different,'
    '"It is 12 km.\nIt is 15 km.","12 km|15 km",Lake,https://x'
)


def _write(tmp_path: Path, text: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_small_good_csv_loads(tmp_path: Path) -> None:
    [inst] = load_wikicontradict(_write(tmp_path, HEADER + "\n" + GOOD_ROW + "\n"))
    assert (inst.id, inst.answer_2, inst.contradiction_type) == ("7", "15 km", "explicit")


@pytest.mark.parametrize(
    ("header", "row", "field", "message"),
    [
        (HEADER.replace("answer2,", ""), None, "answer2", "missing column"),
        (HEADER, GOOD_ROW.replace('"How long?"', '"  "'), "question", "empty value"),
        (HEADER, GOOD_ROW.replace('"15 km",Explicit', '"",Explicit'), "answer2", "empty value"),
        (HEADER, GOOD_ROW.replace("Explicit", "Sort of"), "contradictType", "unknown"),
        (HEADER, GOOD_ROW.replace("Different", "Maybe"), "samepassage", "unknown value"),
    ],
)
def test_malformed_csv_names_file_row_and_field(
    tmp_path: Path, header: str, row: str | None, field: str, message: str
) -> None:
    good_first = GOOD_ROW.replace("7,", "1,", 1)
    text = header + "\n" + good_first + "\n" + (row or GOOD_ROW) + "\n"
    path = _write(tmp_path, text)
    with pytest.raises(DataError) as info:
        load_wikicontradict(path)
    err = info.value
    assert err.path == str(path) and err.field == field and message in err.message
    assert str(path) in str(err) and field in str(err)
    if row is not None:
        assert str(err.row).startswith("2") and "question_ID 7" in str(err.row)


def test_duplicate_id_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "\n" + GOOD_ROW + "\n" + GOOD_ROW + "\n")
    with pytest.raises(DataError, match="duplicate instance id '7'"):
        load_wikicontradict(path)


def test_bad_json_empty_file_and_unknown_json(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"invalid JSON.*line 2") as info:
        load_wikicontradict(_write(tmp_path, '[{"annotationResult": {}},\n  oops]', "x.json"))
    assert info.value.path is not None and info.value.path.endswith("x.json")
    with pytest.raises(DataError, match="file is empty"):
        load_wikicontradict(_write(tmp_path, "  \n", "e.csv"))
    with pytest.raises(DataError, match="unrecognised JSON layout"):
        load_wikicontradict(_write(tmp_path, '[{"foo": 1}]', "u.json"))


# -- nested JSON (paper Appendix E) ------------------------------------------------------


def test_nested_json_one_instance_per_non_empty_question(nested_file: Path) -> None:
    insts = load_wikicontradict(nested_file)
    assert [i.id for i in insts] == ["1-q1", "1-q2", "2-q1", "4-q1"]
    q1, q2, ann, tax = insts
    assert q1.question == "How long is Lake Example?"
    assert (q1.answer_1, q1.answer_2) == ("12 km", "15 km")
    assert q2.question == "Is Lake Example longer than 13 km?"
    assert (q2.answer_1, q2.answer_2) == ("No", "Yes")
    # the stand-alone passages are used
    assert q1.passage_1 == "Lake Example is 12 km long." == q2.passage_1
    assert q1.passage_2 == "Lake Example is 15 km long."
    assert q1.contradiction_type == "explicit" and q1.same_passage is False
    assert q1.title == "Lake Example" and q1.tag == "Inconsistent"
    assert q1.url == "https://en.wikipedia.org/wiki/Lake_Example"
    assert q1.taxonomy == [
        ["Contradict type I", "(PhraseLevel) Entity - Number"],
        ["Contradict type IV", "Explicit"],
    ]
    # 'ContradicttypeIV' spelling, Same passage with an empty passage B, raw spaces kept
    assert ann.contradiction_type == "implicit" and ann.same_passage is True
    assert ann.passage_1 == " Ann was born in 1901, or so the parish says. " == ann.passage_2
    assert ann.answer_1 == "1901 " and ann.context == ann.passage_1
    # type IV taken from the taxonomy when its own key is empty
    assert tax.contradiction_type == "implicit"


def test_nested_json_single_object_and_revised_keys(tmp_path: Path, nested_data: list) -> None:
    record = nested_data[0]
    record["annotationResult"]["revised_passage_1"] = "Lake Example is 12 km long (2019)."
    record["revised_passage_2"] = "Lake Example was 15 km long before 2019."
    path = _write(tmp_path, json.dumps(record), "one.json")
    insts = load_wikicontradict(path)
    assert len(insts) == 2
    assert insts[0].revised_passage_1 == "Lake Example is 12 km long (2019)."
    assert insts[1].revised_passage_2 == "Lake Example was 15 km long before 2019."
    assert insts[0].has_revised_passages


@pytest.mark.parametrize(
    ("mutate", "row", "field", "message"),
    [
        (lambda a: a.update(question1_answer2=""), 1, "question1_answer2", "empty value"),
        (lambda a: a.update(question2_answer1="  "), 1, "question2_answer1", "empty value"),
        (lambda a: a.update(question1="", question2=""), 1, "question1", "empty question"),
        (lambda a: a.update(Contradict_type_IV="Subtle"), 1, "Contradict_type_IV", "unknown"),
        (lambda a: a.update(Contradict_type_IV="", taxonomy=[]), 1, "Contradict_type_IV", "no "),
        (
            lambda a: a.update(paragraphB_information_standalone="", paragraphB_information=""),
            1,
            "paragraphB_information_standalone",
            "empty value",
        ),
    ],
)
def test_malformed_nested_json(
    tmp_path: Path, nested_data: list, mutate: Any, row: int, field: str, message: str
) -> None:
    mutate(nested_data[0]["annotationResult"])
    path = _write(tmp_path, json.dumps(nested_data), "n.json")
    with pytest.raises(DataError) as info:
        load_wikicontradict(path)
    err = info.value
    assert err.field == "annotationResult." + field and message in err.message
    assert str(err.row).startswith(f"{row} (record id")
    assert str(path) in str(err)


def test_nested_json_missing_annotation_object(tmp_path: Path, nested_data: list) -> None:
    nested_data[2]["annotationResult"] = None
    path = _write(tmp_path, json.dumps(nested_data), "n.json")
    with pytest.raises(DataError) as info:
        load_wikicontradict(path)
    assert (info.value.row, info.value.field) == (3, "annotationResult")


# -- Label Studio export (supplement App. A) ---------------------------------------------


def test_label_studio_export(label_studio_file: Path) -> None:
    insts = load_wikicontradict(label_studio_file)
    assert [i.id for i in insts] == ["101-q1", "101-q2", "102-q1"]
    a, b, c = insts
    assert a.question == "How long is Lake Example?"  # the cancelled annotation is ignored
    assert (a.passage_1, a.passage_2) == (
        "Lake Example is 12 km long.",
        "Lake Example is 15 km long.",
    )
    assert (b.answer_1, b.answer_2) == ("No", "Yes")
    assert a.contradiction_type == "explicit" and a.same_passage is False
    assert a.taxonomy is not None and ["Contradict type II", "Text - Text"] in a.taxonomy
    assert a.title == "Lake Example" and a.tag == "Inconsistent"
    assert c.same_passage is True and c.passage_2 == c.passage_1
    assert c.contradiction_type == "implicit"


def test_label_studio_latest_annotation_wins(tmp_path: Path, label_studio_data: list) -> None:
    anns = label_studio_data[0]["annotations"]
    anns[0]["was_cancelled"] = False  # now the stale one is newer and live
    path = _write(tmp_path, json.dumps(label_studio_data), "ls.json")
    assert load_wikicontradict(path)[0].question.startswith("A stale question")


def test_label_studio_malformed(tmp_path: Path, label_studio_data: list) -> None:
    result = label_studio_data[1]["annotations"][0]["result"]
    for item in result:
        if item["from_name"] == "question1_answer2":
            item["value"]["text"] = [""]
    path = _write(tmp_path, json.dumps(label_studio_data), "ls.json")
    with pytest.raises(DataError) as info:
        load_wikicontradict(path)
    assert info.value.field == "question1_answer2"
    assert str(info.value.row).startswith("2 (record id 102)")
    del label_studio_data[1]["annotations"][0]["result"][0]["from_name"]
    path.write_text(json.dumps(label_studio_data), encoding="utf-8")
    with pytest.raises(DataError, match="no 'from_name'"):
        load_wikicontradict(path)


# -- revised passages --------------------------------------------------------------------


def test_revised_passages_from_csv_columns_and_from_a_file(tmp_path: Path) -> None:
    header = HEADER + ",revised_passage_1,revised_passage_2"
    row = GOOD_ROW + ',"It was 12 km in 2001.","It is 15 km since 2010."'
    [inst] = load_wikicontradict(_write(tmp_path, header + "\n" + row + "\n"))
    assert inst.revised_passage_1 == "It was 12 km in 2001." and inst.has_revised_passages

    [plain] = load_wikicontradict(_write(tmp_path, HEADER + "\n" + GOOD_ROW + "\n", "p.csv"))
    rev = _write(
        tmp_path,
        json.dumps({"id": "7", "revised_passage_1": "r1", "revised_passage_2": "r2"}) + "\n",
        "rev.jsonl",
    )
    [updated] = add_revisions([plain], load_revisions(rev))
    assert (updated.revised_passage_1, updated.revised_passage_2) == ("r1", "r2")
    bad = _write(tmp_path, "id,revised_passage_1,revised_passage_2\n7,r1,\n", "rev.csv")
    with pytest.raises(DataError) as info:
        load_revisions(bad)
    assert (info.value.row, info.value.field) == (1, "revised_passage_2")
    header_only = _write(tmp_path, "id,revised_passage_1,revised_passage_2\n", "none.csv")
    with pytest.raises(DataError, match="no revised passages") as info:
        load_revisions(header_only)
    assert "none.csv" in str(info.value)
