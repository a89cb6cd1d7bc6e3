"""The claim loader: real records, header detection, challenge, test file, errors, streaming."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from pathlib import Path

import pytest

from conflicteval.errors import DataError
from conflicteval.feverous import (
    FeverousClaim,
    is_header_record,
    iter_claims,
    load_claims,
    parse_element_id,
)

IDS = [24435, 14802, 28540, 71874, 70296, 16578, 76062, 15702, 55963, 20067]
HEADER = {
    "evidence": "",
    "id": "",
    "claim": "",
    "label": "",
    "annotator_operations": "",
    "challenge": "",
}


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _check_sample(claims: list[FeverousClaim], challenge: bool) -> None:
    assert [c.id for c in claims] == IDS
    assert [c.index for c in claims] == list(range(10))
    by_id = {c.id: c for c in claims}
    folivi = by_id[24435]
    assert folivi.label == "REFUTES"
    assert folivi.claim.startswith("Michael Folivi competed with ten teams")
    assert len(folivi.evidence) == 2
    assert folivi.evidence[0].content[0] == "Michael Folivi_cell_1_2_0"
    assert folivi.evidence[1].context["Michael Folivi_cell_0_13_1"] == [
        "Michael Folivi_title",
        "Michael Folivi_header_cell_0_13_0",
        "Michael Folivi_header_cell_0_11_0",
    ]
    assert folivi.annotator_operations is not None
    assert folivi.annotator_operations[1] == {
        "operation": "Now on",
        "value": "?search=",
        "time": "0.78",
    }
    assert by_id[14802].label == "SUPPORTS"
    assert [len(c.evidence) for c in claims] == [2, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    # Two pages in one set.
    pages = {parse_element_id(e).page for e in by_id[70296].evidence[0].content}
    assert pages == {"Herbivore men", "Aging of Japan"}
    types = {parse_element_id(e).type for c in claims for s in c.evidence for e in s.content}
    assert types == {"sentence", "cell", "table_caption", "item"}
    assert by_id[76062].evidence[0].elements()[1].type == "table_caption"
    assert sorted({c.label or "" for c in claims}) == ["REFUTES", "SUPPORTS"]
    if challenge:
        assert all(c.challenge == "Numerical Reasoning" for c in claims)
    else:
        assert all(c.challenge is None for c in claims)
    assert all(c.extra == {} for c in claims)


def test_reads_the_ten_real_records(train_sample: Path) -> None:
    claims = load_claims(train_sample)
    _check_sample(claims, challenge=False)
    assert [c.line for c in claims] == list(range(1, 11))


def test_header_line_is_detected_and_challenge_read(train_sample: Path, tmp_path: Path) -> None:
    records = [{**r, "challenge": "Numerical Reasoning"} for r in _records(train_sample)]
    path = _write(tmp_path / "with_header.jsonl", [HEADER, *records])
    claims = load_claims(path)
    _check_sample(claims, challenge=True)
    assert claims[0].line == 2  # line numbers still count the header line


def test_header_without_challenge_and_no_header_with_challenge(
    train_sample: Path, tmp_path: Path
) -> None:
    plain = _records(train_sample)
    header = {k: v for k, v in HEADER.items() if k != "challenge"}
    _check_sample(load_claims(_write(tmp_path / "a.jsonl", [header, *plain])), challenge=False)
    with_challenge = [{**r, "challenge": "Numerical Reasoning"} for r in plain]
    _check_sample(load_claims(_write(tmp_path / "b.jsonl", with_challenge)), challenge=True)


def test_gzipped_file(train_sample: Path, tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(train_sample.read_bytes())
    assert [c.id for c in iter_claims(path)] == IDS


def test_header_only_counts_on_the_first_line(train_sample: Path, tmp_path: Path) -> None:
    records = _records(train_sample)
    path = _write(tmp_path / "late_header.jsonl", [records[0], HEADER, *records[1:]])
    with pytest.raises(DataError) as info:
        load_claims(path)
    assert info.value.row == 2
    assert info.value.field == "id"


def test_is_header_record() -> None:
    assert is_header_record(HEADER)
    assert not is_header_record({})
    assert not is_header_record({"claim": "x", "label": ""})
    assert not is_header_record([])


def test_unlabeled_test_file(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "test.jsonl",
        [{"claim": ""}, {"claim": "First claim."}, {"claim": "Second claim."}],
    )
    # {"claim": ""} is all empty: a header.
    claims = load_claims(path)
    assert [(c.claim, c.id, c.label, c.evidence, c.index) for c in claims] == [
        ("First claim.", None, None, [], 0),
        ("Second claim.", None, None, [], 1),
    ]


def test_labels_are_normalised_and_extra_keys_kept(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "x.jsonl",
        [
            {
                "id": 1,
                "claim": "c",
                "label": "not enough info",
                "evidence": [],
                "expected_challenge": "Other",
            },
        ],
    )
    claim = load_claims(path)[0]
    assert claim.label == "NOT ENOUGH INFO"
    assert claim.extra == {"expected_challenge": "Other"}


@pytest.mark.parametrize(
    ("record", "field", "message"),
    [
        ({"id": "abc", "claim": "c"}, "id", "expected an integer"),
        ({"id": True, "claim": "c"}, "id", "expected an integer"),
        ({"id": 1}, "claim", "missing"),
        ({"id": 1, "claim": 5}, "claim", "expected a string"),
        ({"id": 1, "claim": "c", "label": "MAYBE"}, "label", "expected one of"),
        ({"id": 1, "claim": "c", "evidence": "Page_sentence_0"}, "evidence", "expected a list"),
        ({"id": 1, "claim": "c", "evidence": [{"context": {}}]}, "evidence[0].content", "missing"),
        (
            {"id": 1, "claim": "c", "evidence": [{"content": ["P_sentence_0", 5]}]},
            "evidence[0].content[1]",
            "non-empty id string",
        ),
        (
            {"id": 1, "claim": "c", "evidence": [{"content": [], "context": {"a": "b"}}]},
            "evidence[0].context['a']",
            "list of id strings",
        ),
        ({"id": 1, "claim": "c", "evidence": [7]}, "evidence[0]", "expected an object"),
        ({"id": 1, "claim": "c", "challenge": 3}, "challenge", "expected a string"),
        (
            {"id": 1, "claim": "c", "annotator_operations": "x"},
            "annotator_operations",
            "expected a list",
        ),
    ],
)
def test_malformed_fields_name_file_line_and_field(
    tmp_path: Path, record: dict, field: str, message: str
) -> None:
    good = {"id": 0, "claim": "fine", "label": "SUPPORTS", "evidence": []}
    path = _write(tmp_path / "bad.jsonl", [good, {**good, "id": 5}, record])
    with pytest.raises(DataError) as info:
        load_claims(path)
    err = info.value
    assert (err.path, err.row, err.field) == (str(path), 3, field)
    assert message in err.message
    text = str(err)
    assert str(path) in text and "row 3" in text and repr(field) in text


def test_invalid_json_and_non_object_lines(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"id": 1, "claim": "a"}\n\n{"id": 2, "claim": \n', encoding="utf-8")
    with pytest.raises(DataError, match=r"broken\.jsonl, row 3: invalid JSON"):
        load_claims(path)
    path.write_text('{"id": 1, "claim": "a"}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(DataError, match="row 2: expected a JSON object, got list"):
        load_claims(path)


def test_iter_claims_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "lazy.jsonl"
    path.write_text('{"id": 1, "claim": "a"}\n{"id": 2, "claim": "b"}\nnot json\n', "utf-8")
    stream = iter_claims(path)
    assert next(stream).id == 1
    assert next(stream).id == 2
    with pytest.raises(DataError):
        next(stream)


@pytest.mark.slow
def test_streaming_memory_is_bounded(train_sample: Path, tmp_path: Path) -> None:
    records = _records(train_sample)
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps(HEADER) + "\n")
        for i in range(6000):  # about 12 MB
            fh.write(json.dumps({**records[i % 10], "id": i}) + "\n")
    size = path.stat().st_size
    tracemalloc.start()
    count = 0
    for claim in iter_claims(path):
        count += 1
        assert claim.id == count - 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 6000
    assert size > 10_000_000
    assert peak < size / 10, f"peak {peak} bytes for a {size}-byte file"


def test_bom_and_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": 1, "claim": "a"}\n{"id": 2, "claim": "b"}\n')
    assert [c.id for c in load_claims(path)] == [1, 2]
    path.write_bytes(b'{"id": 1, "claim": "a"}\n{"id": 2, "claim": "\xff"}\n')
    with pytest.raises(DataError, match="not valid UTF-8") as info:
        load_claims(path)
    assert info.value.row == 2
