"""Element ids: parsing from the right, formatting, official triples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.feverous import (
    ElementId,
    ElementIdError,
    format_element_id,
    from_triple,
    parse_element_id,
    to_triple,
)


@pytest.mark.parametrize(
    ("element_id", "page", "etype", "position", "numbers"),
    [
        ("Korean Air_cell_1_19_0", "Korean Air", "cell", "1_19_0", (1, 19, 0)),
        ("Wolfgang Niedecken_sentence_1", "Wolfgang Niedecken", "sentence", "1", (1,)),
        ("Mukaradeeb_header_cell_0_3_0", "Mukaradeeb", "header_cell", "0_3_0", (0, 3, 0)),
        (
            "2006–07 San Jose Sharks season_table_caption_1",
            "2006–07 San Jose Sharks season",
            "table_caption",
            "1",
            (1,),
        ),
        (
            "2018 Mexican general election_item_11_11",
            "2018 Mexican general election",
            "item",
            "11_11",
            (11, 11),
        ),
        ("Michael Folivi_section_4", "Michael Folivi", "section", "4", (4,)),
        ("Michael Folivi_title", "Michael Folivi", "title", "", ()),
    ],
)
def test_parse_every_type(
    element_id: str, page: str, etype: str, position: str, numbers: tuple[int, ...]
) -> None:
    parsed = parse_element_id(element_id)
    assert parsed == ElementId(page, etype, position)
    assert parsed.numbers == numbers
    assert format_element_id(parsed) == element_id == str(parsed)


@pytest.mark.parametrize(
    ("element_id", "page", "etype"),
    [
        ("Under_score (band)_sentence_0", "Under_score (band)", "sentence"),
        ("A_B_C_cell_0_1_2", "A_B_C", "cell"),
        # A title that itself ends like an id: the type token is found from the right.
        ("List_sentence_2_sentence_0", "List_sentence_2", "sentence"),
        ("X_cell_1_2_3_header_cell_0_0_1", "X_cell_1_2_3", "header_cell"),
        ("Pre_header_cell_0_1_2", "Pre", "header_cell"),
        ("Foo_title_title", "Foo_title", "title"),
        ("Room_101_item_1_2", "Room_101", "item"),
    ],
)
def test_titles_with_underscores_round_trip(element_id: str, page: str, etype: str) -> None:
    parsed = parse_element_id(element_id)
    assert (parsed.page, parsed.type) == (page, etype)
    assert format_element_id(parsed) == element_id


def test_the_official_first_underscore_split_would_fail_here() -> None:
    # The official evaluate.py takes the page as the text before the first "_";
    # for this title that is "Under", which is wrong. Ours keeps the title whole.
    assert to_triple("Under_score (band)_sentence_0") == ["Under_score (band)", "sentence", "0"]


@pytest.mark.parametrize(
    "bad",
    [
        "Page",
        "Page_sentence",
        "Page_cell_1_2",
        "Page_sentence_1_2",
        "_sentence_1",
        "Page_table_0",
        "Page_sentence_x",
        "",
        "Page_sentence_١",
    ],
)
def test_malformed_ids_are_rejected(bad: str) -> None:
    with pytest.raises(ElementIdError, match="not a FEVEROUS element id"):
        parse_element_id(bad)


def test_non_string_is_rejected() -> None:
    with pytest.raises(ElementIdError):
        parse_element_id(5)  # type: ignore[arg-type]


def test_triples_match_the_official_conversion_on_normal_titles() -> None:
    # evaluate.py: type is header_cell/table_caption when present, else the
    # second field; position is the rest joined with "_".
    assert to_triple("Korean Air_cell_1_19_0") == ["Korean Air", "cell", "1_19_0"]
    assert to_triple("Korean Air_header_cell_1_0_0") == ["Korean Air", "header_cell", "1_0_0"]
    assert to_triple("Korean Air_table_caption_3") == ["Korean Air", "table_caption", "3"]
    assert to_triple("Korean Air_title") == ["Korean Air", "title", ""]
    assert to_triple(["P", "sentence", "1"]) == ["P", "sentence", "1"]


def test_from_triple_keeps_the_triple_as_given() -> None:
    element = from_triple(["P", "sentence", "1"])
    assert element == ("P", "sentence", "1")
    assert format_element_id(element) == "P_sentence_1"
    assert format_element_id(["P", "title", ""]) == "P_title"
    with pytest.raises(ElementIdError):
        from_triple(["P", "sentence"])
    with pytest.raises(ElementIdError):
        from_triple(["P", "sentence", 1])  # type: ignore[list-item]
    with pytest.raises(ElementIdError):
        from_triple("P_sentence_1")


def test_every_id_in_the_real_samples_round_trips(train_sample: Path) -> None:
    ids: set[str] = set()
    for line in train_sample.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for evidence_set in record["evidence"]:
            ids.update(evidence_set["content"])
            for key, context in evidence_set["context"].items():
                ids.add(key)
                ids.update(context)
    types = set()
    for element_id in ids:
        parsed = parse_element_id(element_id)
        types.add(parsed.type)
        assert format_element_id(parsed) == element_id
        assert from_triple(to_triple(element_id)) == parsed
        assert "_" not in parsed.page  # no title in the sample contains "_"
    assert len(ids) > 60
    assert types == {"sentence", "cell", "header_cell", "table_caption", "item", "section", "title"}
