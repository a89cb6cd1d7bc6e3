"""Every class of bad input against every loader: a DataError naming the file (and row, field).

Each loader case writes a small valid file (checked to load), then one kind of
damage is applied to it. Whatever the damage, the loader must raise
:class:`~conflicteval.errors.DataError` naming the file, the row or line, and
the field where there is one; no other exception type may escape.
"""

from __future__ import annotations

import csv
import io
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conflicteval import readers
from conflicteval.conflictbench.items import read_items as read_bench_items
from conflicteval.conflictbench.sources import (
    load_ambigdocs,
    load_conflictingqa,
    load_contraqa,
    load_macnoise,
)
from conflicteval.conflictbench.truthfulqa import (
    TruthfulQAQuestion,
    load_retrieved_documents,
    load_truthfulqa,
)
from conflicteval.conflictscore.score_inputs import read_documents
from conflicteval.conflictscore.score_inputs import read_items as read_score_items
from conflicteval.errors import DataError
from conflicteval.feverous.claims import load_claims
from conflicteval.feverous.items import load_feverous_s
from conflicteval.feverous.scorefiles import load_predictions
from conflicteval.jsonio import iter_json_records, load_json
from conflicteval.wikicontradict.calibrate import load_human_labels
from conflicteval.wikicontradict.data import load_revisions, load_wikicontradict

RAW = "@@RAW@@"
"""A string value replaced by raw JSON text after dumping (NaN, deep nesting)."""


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One loader reading one format.

    Attributes:
        name: Test id.
        fmt: ``csv``, ``jsonl`` or ``json`` (a JSON array).
        records: Two valid records (for CSV: ordered column → text).
        load: Reads the file completely.
        filename: Name of the file under test.
        id_field / id_name: Dotted path of the record id, and the field the error names.
        text_field / text_name: A required text field, and the field the error names.
        empty_field / empty_name: A field that must not be empty (default: the text field).
        second_rows: Accepted ``row`` values of an error in the second record.
        null_id_ok: A null id is allowed by the format (e.g. unlabeled FEVEROUS claims).
        setup: Writes companion files beside the file under test.
    """

    name: str
    fmt: str
    records: Callable[[], list[dict[str, Any]]]
    load: Callable[[Path], Any]
    filename: str
    id_field: str | None
    id_name: str | None
    text_field: str
    text_name: str
    empty_field: str | None = None
    empty_name: str | None = None
    second_rows: tuple[Any, ...] = ()
    null_id_ok: bool = False
    setup: Callable[[Path], None] | None = None

    def rows_of_second(self) -> tuple[Any, ...]:
        if self.second_rows:
            return self.second_rows
        return {"csv": (3,), "jsonl": (2,), "json": ("[1]", 2)}[self.fmt]


def _wc_csv() -> list[dict[str, Any]]:
    return [
        {
            "question_ID": f"q{i}",
            "question": f"How long is lake {i}?",
            "context1": "It is 12 km long.",
            "context2": "It is 15 km long.",
            "answer1": "12 km",
            "answer2": "15 km",
            "contradictType": "Explicit",
            "samepassage": "Different",
            "WikipediaArticleTitle": "Lake",
            "url": "https://en.wikipedia.org/wiki/Lake",
        }
        for i in (1, 2)
    ]


def _annotation(i: int) -> dict[str, Any]:
    return {
        "wikitag_label_valid": "Valid",
        "paragraphA_information_standalone": "Lake is 12 km long.",
        "paragraphB_information_standalone": "Lake is 15 km long.",
        "wikitag_label_samepassage": "Different",
        "Contradict_type_IV": "Explicit",
        "question1": f"How long is lake {i}?",
        "question1_answer1": "12 km",
        "question1_answer2": "15 km",
    }


def _wc_nested() -> list[dict[str, Any]]:
    return [
        {"id": f"r{i}", "title": "Lake", "url": "u", "annotationResult": _annotation(i)}
        for i in (1, 2)
    ]


def _wc_label_studio() -> list[dict[str, Any]]:
    def result(name: str, value: str) -> dict[str, Any]:
        return {"from_name": name, "to_name": "w", "type": "textarea", "value": {"text": [value]}}

    tasks = []
    for i in (1, 2):
        ann = _annotation(i)
        items = [result(k, v) for k, v in ann.items()]
        tasks.append({"id": i, "data": {"title": "Lake"}, "annotations": [{"result": items}]})
    return tasks


# index of question1 / question1_answer1 among the Label Studio result items
_LS_Q = list(_annotation(1)).index("question1")
_LS_A = list(_annotation(1)).index("question1_answer1")


def _revisions() -> list[dict[str, Any]]:
    return [
        {"id": f"q{i}", "revised_passage_1": "Lake is 12 km.", "revised_passage_2": "Lake is 15."}
        for i in (1, 2)
    ]


def _human(answers_as_list: bool) -> Callable[[], list[dict[str, Any]]]:
    def make() -> list[dict[str, Any]]:
        return [
            {
                "instance_id": f"q{i}",
                "template": "5",
                "model": "m",
                "response": "It is 12 km long.",
                "human_label": "correct",
                "question": "How long is the lake?",
                "answers": ["12 km", "15 km"] if answers_as_list else "12 km | 15 km",
            }
            for i in (1, 2)
        ]

    return make


def _conflictingqa() -> list[dict[str, Any]]:
    return [
        {
            "category": "health",
            "search_query": f"is coffee good {i}",
            "search_engine_input": "coffee is good",
            "search_type": "yes_statement",
            "url": f"https://example.org/{i}",
            "title": "Coffee",
            "text_raw": "Coffee is good for you.",
            "text_window": "Coffee is good for you.",
            "stance": "yes",
        }
        for i in (1, 2)
    ]


def _ambigdocs() -> list[dict[str, Any]]:
    return [
        {
            "qid": i,
            "ambiguous_entity": "Cleveland",
            "question": f"What is the population of Cleveland {i}?",
            "documents": [
                {"title": "Cleveland, OH", "text": "About 370,000.", "pid": 1, "answer": "370k"},
                {"title": "Cleveland, WI", "text": "About 1,500.", "pid": 2, "answer": "1,500"},
            ],
        }
        for i in (1, 2)
    ]


def _contraqa_queries() -> list[dict[str, Any]]:
    return [
        {
            "id": f"s{i}",
            "question": f"Who won game {i}?",
            "answers": {"text": ["Denver"]},
            "title": "Super_Bowl",
            "context": f"Denver won game {i}.",
        }
        for i in (1, 2)
    ]


def _contraqa_corpus() -> list[dict[str, Any]]:
    return [
        {"id": "1:::Super_Bowl", "contents": "Denver won game 1."},
        {"id": "1:::Super_Bowl-FAKE", "contents": "Carolina won game 1."},
    ]


def _contraqa_setup_corpus(d: Path) -> None:
    lines = "".join(json.dumps(r) + "\n" for r in _contraqa_corpus())
    (d / "corpus.json").write_text(lines, encoding="utf-8")


def _contraqa_setup_queries(d: Path) -> None:
    (d / "queries.json").write_text(json.dumps(_contraqa_queries()), encoding="utf-8")


def _macnoise() -> list[dict[str, Any]]:
    return [
        {
            "question": f"who wrote book {i}",
            "answers": ["Ann"],
            "ctxs": [
                {
                    "id": f"c{i}",
                    "title": "Book",
                    "text": "title: Book context: Ann wrote it.",
                    "text_pert": "title: Book context: Bob wrote it.",
                }
            ],
            "pert_lbls": [1],
            "pert_lbls_35": [1],
        }
        for i in (1, 2)
    ]


def _truthfulqa(with_choice: bool) -> Callable[[], list[dict[str, Any]]]:
    def make() -> list[dict[str, Any]]:
        out = []
        for i in (1, 2):
            row = {
                "Type": "Adversarial",
                "Category": "Misconceptions",
                "Question": f"What happens if you eat seeds {i}?",
                "Best Answer": "Nothing happens",
                "Best Incorrect Answer": "They grow in you",
                "Correct Answers": "Nothing; They pass",
                "Incorrect Answers": "They grow",
                "Source": "https://example.org",
            }
            if not with_choice:
                del row["Best Incorrect Answer"]
            out.append(row)
        return out

    return make


_QUESTIONS = [
    TruthfulQAQuestion(
        index=i,
        question=f"What happens if you eat seeds {i}?",
        best_answer="Nothing",
        best_incorrect_answer="They grow",
        correct_answers=["Nothing"],
        incorrect_answers=["They grow"],
    )
    for i in (0, 1)
]


def _retrieved() -> list[dict[str, Any]]:
    return [{"index": i, "documents": [{"id": f"d{i}", "text": "Seeds pass."}]} for i in (0, 1)]


def _bench() -> list[dict[str, Any]]:
    return [
        {
            "id": f"contraqa:{i}",
            "source": "contraqa",
            "question": f"Who won game {i}?",
            "claim": "Denver won.",
            "documents": [{"id": "d", "text": "Denver won.", "gold": "SUPPORTS"}],
            "conflict": False,
        }
        for i in (1, 2)
    ]


def _feverous() -> list[dict[str, Any]]:
    return [
        {
            "id": i,
            "claim": f"Claim {i} holds.",
            "label": "SUPPORTS",
            "evidence": [{"content": ["Page_sentence_0"], "context": {}}],
        }
        for i in (1, 2)
    ]


def _feverous_s() -> list[dict[str, Any]]:
    return [
        {"id": i, "claim": f"Claim {i} holds.", "label": "supports", "evidence": "Page\tText."}
        for i in (1, 2)
    ]


def _predictions() -> list[dict[str, Any]]:
    return [
        {
            "id": i,
            "predicted_label": "SUPPORTS",
            "predicted_evidence": ["Page_sentence_0"],
            "label": "SUPPORTS",
            "evidence": [["Page_sentence_0"]],
        }
        for i in (1, 2)
    ]


def _documents() -> list[dict[str, Any]]:
    return [{"id": f"d{i}", "text": f"Document {i} says so."} for i in (1, 2)]


def _score_items() -> list[dict[str, Any]]:
    return [
        {"id": f"i{i}", "response": "It is so.", "documents": ["Document says so."]} for i in (1, 2)
    ]


def _drain(fn: Callable[[Path], Any]) -> Callable[[Path], Any]:
    return lambda p: list(fn(p))


CASES = [
    Case(
        "wikicontradict-csv",
        "csv",
        _wc_csv,
        load_wikicontradict,
        "wc.csv",
        "question_ID",
        "question_ID",
        "question",
        "question",
        second_rows=(2, 3),
    ),
    Case(
        "wikicontradict-nested",
        "json",
        _wc_nested,
        load_wikicontradict,
        "wc.json",
        "id",
        "id",
        "annotationResult.question1",
        "annotationResult.question1",
        empty_field="annotationResult.question1_answer1",
        empty_name="annotationResult.question1_answer1",
        second_rows=(2,),
    ),
    Case(
        "wikicontradict-label-studio",
        "json",
        _wc_label_studio,
        load_wikicontradict,
        "ls.json",
        "id",
        "id",
        f"annotations.0.result.{_LS_Q}.value.text",
        "question1",
        empty_field=f"annotations.0.result.{_LS_A}.value.text",
        empty_name="question1_answer1",
        second_rows=(2,),
    ),
    Case(
        "revisions-jsonl",
        "jsonl",
        _revisions,
        load_revisions,
        "rev.jsonl",
        "id",
        "id",
        "revised_passage_1",
        "revised_passage_1",
    ),
    Case(
        "revisions-csv",
        "csv",
        _revisions,
        load_revisions,
        "rev.csv",
        "id",
        "id",
        "revised_passage_1",
        "revised_passage_1",
        second_rows=(2, 3),
    ),
    Case(
        "human-labels-csv",
        "csv",
        _human(False),
        load_human_labels,
        "labels.csv",
        "instance_id",
        "instance_id",
        "response",
        "response",
        empty_field="human_label",
        empty_name="human_label",
        second_rows=(2, 3),
    ),
    Case(
        "human-labels-jsonl",
        "jsonl",
        _human(True),
        load_human_labels,
        "labels.jsonl",
        "instance_id",
        "instance_id",
        "response",
        "response",
        empty_field="human_label",
        empty_name="human_label",
    ),
    Case(
        "conflictingqa-csv",
        "csv",
        _conflictingqa,
        _drain(load_conflictingqa),
        "cqa.csv",
        None,
        None,
        "search_query",
        "search_query",
    ),
    Case(
        "conflictingqa-jsonl",
        "jsonl",
        _conflictingqa,
        _drain(load_conflictingqa),
        "cqa.jsonl",
        None,
        None,
        "search_query",
        "search_query",
    ),
    Case(
        "ambigdocs",
        "json",
        _ambigdocs,
        _drain(load_ambigdocs),
        "dev.json",
        "qid",
        "qid",
        "question",
        "question",
    ),
    Case(
        "contraqa-queries",
        "json",
        _contraqa_queries,
        lambda p: list(load_contraqa(p.parent)),
        "queries.json",
        "id",
        "id",
        "question",
        "question",
        setup=_contraqa_setup_corpus,
    ),
    Case(
        "contraqa-corpus",
        "jsonl",
        _contraqa_corpus,
        lambda p: list(load_contraqa(p.parent)),
        "corpus.json",
        "id",
        "id",
        "contents",
        "contents",
        setup=_contraqa_setup_queries,
    ),
    Case(
        "macnoise",
        "json",
        _macnoise,
        _drain(load_macnoise),
        "NQ_eval.json",
        "ctxs.0.id",
        "ctxs[0].id",
        "question",
        "question",
    ),
    Case(
        "truthfulqa-csv",
        "csv",
        _truthfulqa(True),
        load_truthfulqa,
        "TruthfulQA.csv",
        "Question",
        "Question",
        "Best Answer",
        "Best Answer",
    ),
    Case(
        "truthfulqa-2022-csv",
        "csv",
        _truthfulqa(False),
        load_truthfulqa,
        "TruthfulQA.csv",
        "Question",
        "Question",
        "Best Answer",
        "Best Answer",
    ),
    Case(
        "truthfulqa-documents",
        "jsonl",
        _retrieved,
        lambda p: load_retrieved_documents(p, _QUESTIONS),
        "docs.jsonl",
        "index",
        "index",
        "documents.0.text",
        "documents[0].text",
        null_id_ok=True,  # no index: the line is matched by its question text
    ),
    Case(
        "conflictbench-items",
        "jsonl",
        _bench,
        read_bench_items,
        "bench.jsonl",
        "id",
        "id",
        "question",
        "question",
    ),
    Case(
        "feverous-claims",
        "jsonl",
        _feverous,
        load_claims,
        "dev.jsonl",
        "id",
        "id",
        "claim",
        "claim",
        null_id_ok=True,  # the unlabeled test file has no ids
    ),
    Case(
        "feverous-s",
        "json",
        _feverous_s,
        load_feverous_s,
        "dev.json",
        "id",
        "id",
        "claim",
        "claim",
        second_rows=(2,),
    ),
    Case(
        "feverous-predictions",
        "jsonl",
        _predictions,
        load_predictions,
        "pred.jsonl",
        "id",
        "id",
        "predicted_label",
        "predicted_label",
    ),
    Case(
        "score-documents-jsonl",
        "jsonl",
        _documents,
        lambda p: read_documents(str(p)),
        "docs.jsonl",
        "id",
        "id",
        "text",
        "text",
    ),
    Case(
        "score-documents-json",
        "json",
        _documents,
        lambda p: read_documents(str(p)),
        "docs.json",
        "id",
        "id",
        "text",
        "text",
        second_rows=(2,),
    ),
    Case(
        "score-input",
        "jsonl",
        _score_items,
        lambda p: read_score_items(str(p)),
        "items.jsonl",
        "id",
        "id",
        "response",
        "response",
        empty_field="documents.0",
        empty_name="text",
    ),
]

# --------------------------------------------------------------------------- writing


def _set(record: dict[str, Any], dotted: str, value: Any) -> None:
    keys = dotted.split(".")
    target: Any = record
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value


def _render(case: Case, records: list[dict[str, Any]], raw: str | None = None) -> str:
    if case.fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(list(records[0]))
        for r in records:
            writer.writerow([r[k] for k in records[0]])
        text = buf.getvalue()
    elif case.fmt == "jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    else:
        text = json.dumps(records, indent=1, ensure_ascii=False)
    if raw is not None:
        text = text.replace(json.dumps(RAW), raw)
    return text


def _write(tmp_path: Path, case: Case, data: str | bytes) -> Path:
    d = tmp_path / case.name
    d.mkdir()
    if case.setup is not None:
        case.setup(d)
    path = d / case.filename
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def _second(case: Case, field: str, value: Any) -> list[dict[str, Any]]:
    records = case.records()
    _set(records[1], field, value)
    return records


# --------------------------------------------------------------------------- damage


def _latin1(case: Case) -> tuple[bytes, dict[str, Any]]:
    data = _render(case, _second(case, case.text_field, "caf\u00e9 au lait")).encode("latin-1")
    line = data[: data.index(b"\xe9")].count(b"\n") + 1  # the physical line of the bad byte
    return data, {"rows": (line,), "field": None, "match": "not valid UTF-8"}


def _utf16(case: Case) -> tuple[bytes, dict[str, Any]]:
    return _render(case, case.records()).encode("utf-16"), {"rows": (1,), "field": None}


def _utf16_no_bom(case: Case) -> tuple[bytes, dict[str, Any]]:
    return _render(case, case.records()).encode("utf-16-le"), {"rows": (1,), "field": None}


def _deep(case: Case) -> tuple[str, dict[str, Any]]:
    raw = "[" * 100_000 + "]" * 100_000
    text = _render(case, _second(case, case.text_field, RAW), raw)
    return text, {"rows": None, "field": None, "match": "nested deeper"}


def _nan(case: Case) -> tuple[str, dict[str, Any]]:
    text = _render(case, _second(case, case.text_field, RAW), "NaN")
    return text, {"rows": None, "field": None, "match": "NaN"}


def _infinity(case: Case) -> tuple[str, dict[str, Any]]:
    text = _render(case, _second(case, case.text_field, RAW), "-Infinity")
    return text, {"rows": None, "field": None, "match": "Infinity"}


def _number_text(case: Case) -> tuple[str, dict[str, Any]]:
    text = _render(case, _second(case, case.text_field, 12345))
    return text, {"rows": case.rows_of_second(), "field": case.text_name}


def _object_text(case: Case) -> tuple[str, dict[str, Any]]:
    text = _render(case, _second(case, case.text_field, {"x": 1}))
    return text, {"rows": case.rows_of_second(), "field": case.text_name}


def _object_id(case: Case) -> tuple[str, dict[str, Any]]:
    assert case.id_field is not None
    text = _render(case, _second(case, case.id_field, {"x": 1}))
    return text, {"rows": case.rows_of_second(), "field": case.id_name}


def _null_id(case: Case) -> tuple[str, dict[str, Any]]:
    assert case.id_field is not None
    text = _render(case, _second(case, case.id_field, None))
    return text, {"rows": case.rows_of_second(), "field": case.id_name}


def _duplicate_id(case: Case) -> tuple[str, dict[str, Any]]:
    assert case.id_field is not None
    records = case.records()
    first: Any = records[0]
    for key in case.id_field.split("."):
        first = first[int(key)] if isinstance(first, list) else first[key]
    _set(records[1], case.id_field, first)
    return _render(case, records), {
        "rows": case.rows_of_second(),
        "field": case.id_name,
        "match": "duplicate",
    }


def _empty(case: Case) -> tuple[str, dict[str, Any]]:
    field = case.empty_field or case.text_field
    value: Any = [""] if field.endswith(".value.text") else ""
    text = _render(case, _second(case, field, value))
    return text, {"rows": case.rows_of_second(), "field": case.empty_name or case.text_name}


def _csv_lines(case: Case) -> list[str]:
    return _render(case, case.records()).splitlines(keepends=True)


def _short_row(case: Case) -> tuple[str, dict[str, Any]]:
    lines = _csv_lines(case)
    lines[2] = lines[2].rstrip("\n").rsplit(",", 1)[0] + "\n"
    last = list(case.records()[0])[-1]
    return "".join(lines), {"rows": (3,), "field": last, "match": "cut short"}


def _long_row(case: Case) -> tuple[str, dict[str, Any]]:
    lines = _csv_lines(case)
    lines[2] = lines[2].rstrip("\n") + ",extra\n"
    return "".join(lines), {"rows": (3,), "field": None, "match": "more fields"}


def _field_over_limit(case: Case) -> tuple[str, dict[str, Any]]:
    text = _render(case, _second(case, case.text_field, "x" * 5000))
    return text, {"rows": (3,), "field": None, "match": "longer than the limit", "limit": 1000}


DAMAGE: dict[str, tuple[Callable[[Case], tuple[str | bytes, dict[str, Any]]], set[str]]] = {
    "not-utf8": (_latin1, {"csv", "jsonl", "json"}),
    "utf16-bom": (_utf16, {"csv", "jsonl", "json"}),
    "utf16-no-bom": (_utf16_no_bom, {"csv", "jsonl", "json"}),
    "deep-nesting": (_deep, {"jsonl", "json"}),
    "nan": (_nan, {"jsonl", "json"}),
    "infinity": (_infinity, {"jsonl", "json"}),
    "number-as-text": (_number_text, {"jsonl", "json"}),
    "object-as-text": (_object_text, {"jsonl", "json"}),
    "object-id": (_object_id, {"jsonl", "json"}),
    "null-id": (_null_id, {"jsonl", "json"}),
    "duplicate-id": (_duplicate_id, {"csv", "jsonl", "json"}),
    "empty-required": (_empty, {"csv", "jsonl", "json"}),
    "short-row": (_short_row, {"csv"}),
    "long-row": (_long_row, {"csv"}),
    "field-over-limit": (_field_over_limit, {"csv"}),
}


def _applies(case: Case, damage: str) -> bool:
    if case.fmt not in DAMAGE[damage][1]:
        return False
    if damage in ("object-id", "duplicate-id", "null-id") and case.id_field is None:
        return False
    if damage == "null-id" and case.null_id_ok:
        return False
    if case.name == "macnoise" and damage == "duplicate-id":
        return False  # records are identified by their list index; passage ids may repeat
    if case.name == "contraqa-corpus" and damage in ("duplicate-id", "empty-required"):
        # Paragraph text may be empty in the release (allow_empty); the 1M-line corpus is
        # streamed without keeping every id, so duplicates there are not tracked.
        return False
    return True


PAIRS = [
    pytest.param(case, damage, id=f"{case.name}-{damage}")
    for case in CASES
    for damage in DAMAGE
    if _applies(case, damage)
]


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_the_valid_file_of_each_case_loads(tmp_path: Path, case: Case) -> None:
    path = _write(tmp_path, case, _render(case, case.records()))
    assert case.load(path)


@pytest.mark.parametrize(("case", "damage"), PAIRS)
def test_bad_input_gives_a_data_error_naming_file_row_and_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Case, damage: str
) -> None:
    data, expect = DAMAGE[damage][0](case)
    if "limit" in expect:
        monkeypatch.setattr(readers, "CSV_FIELD_LIMIT", expect["limit"])
    path = _write(tmp_path, case, data)
    with pytest.raises(DataError) as info:
        case.load(path)
    err = info.value
    assert err.path == str(path), str(err)
    assert str(path) in str(err)
    assert err.row is not None, str(err)
    if expect["rows"] is not None:
        row = err.row
        if isinstance(row, str) and re.match(r"^\d+ \(", row):
            row = int(row.split()[0])  # "2 (question_ID q2)"
        assert row in expect["rows"], str(err)
    if expect["field"] is not None:
        assert err.field == expect["field"], str(err)
    if "match" in expect:
        assert re.search(expect["match"], str(err)), str(err)


def test_every_loader_and_every_damage_are_exercised() -> None:
    covered = {damage for _, damage in (p.values for p in PAIRS)}
    assert covered == set(DAMAGE)
    assert len(PAIRS) > 200


# ------------------------------------------------------------- CSV field limit, per reader

CSV_CASES = [pytest.param(c, id=c.name) for c in CASES if c.fmt == "csv"]


@pytest.mark.parametrize("case", CSV_CASES)
def test_a_field_over_pythons_default_limit_loads_and_the_global_limit_is_untouched(
    tmp_path: Path, case: Case
) -> None:
    before = csv.field_size_limit()
    long_text = "word " * 40_000  # 200,000 characters, over the csv module's 131,072
    path = _write(tmp_path, case, _render(case, _second(case, case.text_field, long_text)))
    assert case.load(path)
    assert csv.field_size_limit() == before
    # A plain reader elsewhere in the process still has its own (default) limit.
    with pytest.raises(csv.Error, match="field larger than field limit"):
        list(csv.reader(io.StringIO(f'"{long_text}"\n')))


def test_concurrent_readers_keep_their_own_limit(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.name == "truthfulqa-csv")
    records = [dict(case.records()[0], Question=f"Question {i}?") for i in range(60)]
    for r in records:
        r["Best Answer"] = "a" * 150_000
    path = tmp_path / "big.csv"
    path.write_text(_render(case, records), encoding="utf-8")
    before = csv.field_size_limit()
    errors: list[BaseException] = []

    def load() -> None:
        try:
            assert len(load_truthfulqa(path)) == 60
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert csv.field_size_limit() == before


# ------------------------------------------------------------------- JSON layer details


def test_an_integer_with_too_many_digits_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"id": ' + "1" * 5000 + "}", encoding="utf-8")
    with pytest.raises(DataError, match="invalid JSON") as info:
        load_json(path)
    assert info.value.path == str(path)


def test_deep_first_line_is_refused_not_mistaken_for_a_document(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": ' + "[" * 5000 + "]" * 5000 + "}\n", encoding="utf-8")
    with pytest.raises(DataError, match="nested deeper") as info:
        list(iter_json_records(path))
    assert info.value.row == 1


def test_nan_inside_a_string_is_text_not_a_literal(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('[{"q": "NaN and -Infinity [[["}]', encoding="utf-8")
    assert load_json(path) == [{"q": "NaN and -Infinity [[["}]


def test_a_utf8_bom_is_accepted_everywhere(tmp_path: Path) -> None:
    for case in CASES:
        path = _write(tmp_path, case, b"\xef\xbb\xbf" + _render(case, case.records()).encode())
        assert case.load(path), case.name


def test_nested_json_line_numbers_point_at_the_problem(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('[\n{"a": 1},\n{"a": NaN}\n]', encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_json(path)
    assert info.value.row == 3


# ----------------------------------------------------------------- duplicate-id tracking


@pytest.mark.parametrize("value", [0, 7, 100_000, (1 << 24) + 5, -3, "x", 2**70])
def test_compact_unique_ids_find_duplicates_and_look_up_the_first_row(value: Any) -> None:
    looked_up: list[Any] = []

    def first_row(v: Any) -> int:
        looked_up.append(v)
        return 4

    ids = readers.UniqueIds("f.jsonl", "id", first_row=first_row)
    for other in (1, 8, 99_999, 1 << 24, -2, "y", 2**70 + 1):
        ids.add(other, 1)
    ids.add(value, 4)
    assert looked_up == []
    with pytest.raises(DataError, match=r"duplicate id .* \(first at row 4\)") as info:
        ids.add(value, 9)
    assert (info.value.row, info.value.field) == (9, "id")
    assert looked_up == [value]


def test_feverous_duplicate_claim_ids_name_both_lines(tmp_path: Path) -> None:
    rows = [dict(_feverous()[0], id=i) for i in (5, 6, 7, 6)]
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(DataError, match=r"duplicate claim id 6 \(first at row 2\)") as info:
        load_claims(path)
    assert info.value.row == 4


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        ('{"title": NaN}', "NaN"),
        ("{oops", "invalid JSON"),
        (None, "not text"),
        ("[1, 2]", "not an object"),
    ],
)
def test_a_bad_page_in_the_feverous_database_names_the_database_and_page(
    tmp_path: Path, data: str | None, match: str
) -> None:
    import sqlite3

    from conflicteval.feverous.wikidb import WikiDB

    path = tmp_path / "wiki.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE wiki (id TEXT PRIMARY KEY, data TEXT)")
        conn.execute("INSERT INTO wiki VALUES (?, ?)", ("Page", data))
    conn.close()
    with WikiDB(path) as db, pytest.raises(DataError, match=match) as info:
        db.page_json("Page")
    assert (info.value.path, info.value.row, info.value.field) == (str(path), "Page", "data")


def _template_file(path: Path) -> Any:
    from conflicteval.wikicontradict.templates import TemplateSet

    return TemplateSet.from_file(path)


def _macnoise_pairs(path: Path) -> Any:
    from conflicteval.conflictscore.macnoise_check import macnoise_pairs

    return macnoise_pairs(path)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b'{"5": "caf\xe9"}', id="not-utf8"),
        pytest.param('{"5": "x"}'.encode("utf-16"), id="utf16"),
        pytest.param(("[" * 100_000 + "]" * 100_000).encode(), id="deep"),
        pytest.param(b'{"5": NaN}', id="nan"),
    ],
)
@pytest.mark.parametrize("load", [_template_file, _macnoise_pairs])
def test_the_other_json_readers_follow_the_same_rules(
    tmp_path: Path, load: Callable[[Path], Any], data: bytes
) -> None:
    path = tmp_path / "file.json"
    path.write_bytes(data)
    with pytest.raises(DataError) as info:
        load(path)
    assert info.value.path == str(path) and info.value.row is not None
