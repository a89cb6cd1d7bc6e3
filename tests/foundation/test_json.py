"""Lenient JSON extraction, the schema check and the JSON-lines reader."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from conflicteval.errors import DataError
from conflicteval.jsonio import iter_json_lines, iter_json_records
from conflicteval.jsonparse import MAX_EXAMINED, check_schema, extract_json


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"answer": "SUPPORTS"}', {"answer": "SUPPORTS"}),
        ('```json\n{"answer": "CONTRADICTS"}\n```', {"answer": "CONTRADICTS"}),
        ('```\n{"a": 1}\n```\nHope this helps.', {"a": 1}),
        ('Here is my analysis. {"a": "x } y", "b": [1, 2]} Done.', {"a": "x } y", "b": [1, 2]}),
        ('{"first": 1}\n{"second": 2}', {"first": 1}),
        ('Note {not json} then {"ok": true}', {"ok": True}),
        ('{"quote": "he said \\"hi\\" {"}', {"quote": 'he said "hi" {'}),
    ],
)
def test_extract_json_finds_the_first_complete_object(reply: str, expected: object) -> None:
    assert extract_json(reply) == expected


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ('{"answer": "SUPPO', "truncated"),
        ("The answer is SUPPORTS.", "no JSON dict"),
        ("", "no JSON dict"),
    ],
)
def test_extract_json_never_guesses(reply: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        extract_json(reply)


def test_extract_json_arrays() -> None:
    assert extract_json('Labels: [{"i": 1}, {"i": 2}]', want=list) == [{"i": 1}, {"i": 2}]


def test_check_schema_subset() -> None:
    schema = {
        "type": "object",
        "required": ["answer", "items"],
        "additionalProperties": False,
        "properties": {
            "answer": {"type": "string", "enum": ["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]},
            "items": {"type": "array", "minItems": 1, "items": {"type": "integer"}},
        },
    }
    assert check_schema({"answer": "SUPPORTS", "items": [1]}, schema) == []
    problems = check_schema({"answer": "MAYBE", "items": [], "extra": 1}, schema)
    assert any("not one of" in p for p in problems)
    assert any("fewer than 1" in p for p in problems)
    assert any("unexpected key 'extra'" in p for p in problems)
    assert check_schema({"answer": "SUPPORTS", "items": [True]}, schema) == [
        "$.items[0]: expected integer, got bool"
    ]
    assert "missing required key 'items'" in check_schema({"answer": "SUPPORTS"}, schema)[0]


def test_iter_json_lines_streams_and_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n{"b": 2}\n{"c": \n')
    rows = iter_json_lines(path)
    assert next(rows) == (1, {"a": 1})
    assert next(rows) == (3, {"b": 2})
    with pytest.raises(DataError) as info:
        next(rows)
    assert info.value.row == 4 and str(path) in str(info.value)


def test_iter_json_records_reads_arrays_lines_and_single_objects(tmp_path: Path) -> None:
    array = tmp_path / "a.json"
    array.write_text('[{"q": 1}, {"q": 2}]')
    assert list(iter_json_records(array)) == [("[0]", {"q": 1}), ("[1]", {"q": 2})]
    lines = tmp_path / "l.jsonl"
    lines.write_text('{"q": 1}\n{"q": 2}\n')
    assert list(iter_json_records(lines)) == [(1, {"q": 1}), (2, {"q": 2})]
    single = tmp_path / "s.json"
    single.write_text('{\n  "q": 1\n}\n')
    assert list(iter_json_records(single)) == [("[0]", {"q": 1})]
    with pytest.raises(DataError, match="file not found"):
        list(iter_json_records(tmp_path / "missing.json"))


def test_extract_json_prefers_a_fenced_reply_to_an_object_quoted_in_prose() -> None:
    # the documented order: the whole text, the code fences, then any balanced object
    reply = (
        'The format asks for {"label": "SUPPORTS or CONTRADICTS"}. My answer:\n'
        '```json\n{"label": "CONTRADICTS"}\n```'
    )
    assert extract_json(reply) == {"label": "CONTRADICTS"}
    fenced_with_trailer = 'e.g. {"a": 0}\n```json\n{"a": 1} // final\n```'
    assert extract_json(fenced_with_trailer) == {"a": 1}


@pytest.mark.parametrize("reader", [iter_json_lines, iter_json_records])
def test_a_file_that_is_not_utf8_is_a_data_error_naming_the_file(tmp_path: Path, reader) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"a": "ok"}\n{"b": "caf\u00e9"}\n'.encode("latin-1"))
    with pytest.raises(DataError) as info:
        list(reader(path))
    assert str(path) in str(info.value) and "UTF-8" in str(info.value)


# -- linear extraction (hostile or runaway replies) -----------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('He said "look: {"a": 1} and left', {"a": 1}),  # a prose quote opens no string
        ('{"outer": [1, {"inner": 2}', {"inner": 2}),  # truncated outer: a complete inner one
        ('{{"a": 1}}', {"a": 1}),
        ('{"s": "}{"} {"t": 1}', {"s": "}{"}),
        ('[1, 2] then {"x": [1, 2]}', {"x": [1, 2]}),
        ('{"a": 1] {"b": 2}', {"b": 2}),
    ],
)
def test_extract_json_single_scan_cases(reply: str, expected: object) -> None:
    assert extract_json(reply) == expected


def test_extract_json_nested_lists() -> None:
    assert extract_json("x [[1, 2], [3]] y", want=list) == [[1, 2], [3]]
    assert extract_json('x [{"a": [1]}] y', want=list) == [{"a": [1]}]


@pytest.mark.parametrize(
    "reply",
    [
        "{" * 1_000_000,
        "{" * 500_000 + "}" * 500_000,
        "{}" * 500_000,
        '{"a":' * 200_000,
        '{"a" 1} ' * 125_000,
        "[" * 500_000 + "]" * 500_000,
        '{"' * 500_000,
    ],
    ids=["open", "nested", "pairs", "keys", "bad-objects", "brackets", "quotes"],
)
def test_extract_json_is_fast_on_a_megabyte_of_braces(reply: str) -> None:
    # Rescanning from every "{" took minutes on such replies, on the event loop.
    start = time.process_time()
    try:
        extract_json(reply)
    except ValueError:
        pass
    assert time.process_time() - start < 1.0


def test_extract_json_examines_a_bounded_prefix() -> None:
    tail = '{"late": 1}'
    with pytest.raises(ValueError, match="only the first"):
        extract_json("x" * (MAX_EXAMINED + 10) + tail)
    assert extract_json("x" * (MAX_EXAMINED - 100) + tail) == {"late": 1}


def test_extract_json_deep_nesting_is_no_crash() -> None:
    with pytest.raises(ValueError):
        extract_json('{"a": ' * 100_000)
    # too deep for the decoder as a whole: an inner array that decodes is the answer
    assert isinstance(extract_json("[" * 100_000 + "]" * 99_999, want=list), list)
