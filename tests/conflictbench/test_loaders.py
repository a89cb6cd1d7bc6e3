"""Each source loader on fixtures in its release layout, plus MacNoise on the real samples."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.conflictbench import (
    BenchItem,
    convert_conflictingqa_pickle,
    load,
    load_conflictingqa,
)
from conflicteval.errors import ConflictEvalError, DataError

# ------------------------------------------------------------------ ConflictingQA


def _by_question(items: list[BenchItem]) -> dict[str, BenchItem]:
    return {it.question: it for it in items}


def test_conflictingqa_jsonl_groups_rows_and_maps_stance(cqa_jsonl: Path) -> None:
    items = list(load("conflictingqa", cqa_jsonl))
    assert len(items) == 3
    by_q = _by_question(items)
    scroll = by_q["Is infinite scrolling a good web design technique?"]
    # rows 0, 1 and 3 belong to this query (row 3 not adjacent)
    assert [d.url for d in scroll.documents] == [
        "https://a.example/scroll-good",
        "https://b.example/scroll-bad",
        "https://d.example/scroll-meh",
    ]
    assert [d.gold for d in scroll.documents] == ["SUPPORTS", "CONTRADICTS", "SUPPORTS"]
    assert scroll.conflict is True
    # a yes_statement row with stance "no" is CONTRADICTS: search_type is provenance only
    assert scroll.documents[1].meta["search_type"] == "yes_statement"
    # a no_statement row with stance "YES " is SUPPORTS
    assert scroll.documents[2].meta["search_type"] == "no_statement"
    assert scroll.documents[0].text.startswith("Infinite scrolling keeps")  # text_window
    assert scroll.id.startswith("conflictingqa:") and len(scroll.id) == len("conflictingqa:") + 12
    # template claim: first variant of the yes-statement, quotes removed, capitalised
    assert scroll.claim == "Infinite scrolling is a good web design technique."

    tea = by_q["Does green tea help weight loss?"]
    assert tea.conflict is False
    assert [d.gold for d in tea.documents] == ["SUPPORTS", "SUPPORTS"]
    assert tea.documents[0].text == "Only the raw text is present for this page."  # text_raw
    assert tea.claim == "Green tea helps weight loss."  # from the yes_statement row only

    cats = by_q["Can cats truly understand human emotions?"]
    assert cats.conflict is False and cats.documents[0].gold == "CONTRADICTS"


def test_conflictingqa_csv_and_pickle_and_converter(
    tmp_path: Path, cqa_rows: list[dict[str, Any]], cqa_jsonl: Path
) -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(cqa_rows)
    expected = [it.model_dump() for it in load("conflictingqa", cqa_jsonl)]

    csv_path = tmp_path / "cqa.csv"
    frame.to_csv(csv_path, index=False)
    assert [it.model_dump() for it in load("conflictingqa", csv_path)] == expected

    pkl = tmp_path / "data.pkl"
    frame.to_pickle(pkl)
    with pytest.raises(ConflictEvalError, match="allow_pickle"):
        list(load("conflictingqa", pkl))
    assert [it.model_dump() for it in load("conflictingqa", pkl, allow_pickle=True)] == expected

    out = tmp_path / "converted.jsonl"
    with pytest.raises(ConflictEvalError):
        convert_conflictingqa_pickle(pkl, out)
    assert not out.exists()
    assert convert_conflictingqa_pickle(pkl, out, allow_pickle=True) == len(cqa_rows)
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[2])
    assert first["text_window"] is None  # NaN became null
    assert [it.model_dump() for it in load_conflictingqa(out)] == expected


def test_conflictingqa_parquet(tmp_path: Path, cqa_rows: list[dict[str, Any]]) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    path = tmp_path / "cqa.parquet"
    pd.DataFrame(cqa_rows).to_parquet(path)
    assert len(list(load("conflictingqa", path))) == 3


def test_conflictingqa_bad_stance_names_file_row_field(
    tmp_path: Path, cqa_rows: list[dict[str, Any]]
) -> None:
    cqa_rows[4]["stance"] = "maybe"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in cqa_rows), encoding="utf-8")
    with pytest.raises(DataError) as err:
        list(load("conflictingqa", path))
    assert err.value.path == str(path) and err.value.row == 5 and err.value.field == "stance"


def test_conflictingqa_missing_text_is_an_error(
    tmp_path: Path, cqa_rows: list[dict[str, Any]]
) -> None:
    cqa_rows[0]["text_window"] = None
    cqa_rows[0]["text_raw"] = ""
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in cqa_rows), encoding="utf-8")
    with pytest.raises(DataError) as err:
        list(load("conflictingqa", path))
    assert err.value.row == 1 and err.value.field == "text_window"


# ------------------------------------------------------------------ AmbigDocs


def test_ambigdocs_records_layout(ambig_json: Path) -> None:
    items = list(load("ambigdocs", ambig_json))
    assert [it.id for it in items] == ["ambigdocs:17", "ambigdocs:q-18", "ambigdocs:q-19"]
    first = items[0]
    assert [d.id for d in first.documents] == ["5560001", "5560002", "5560003"]
    assert [d.gold for d in first.documents] == ["SUPPORTS", "CONTRADICTS", "CONTRADICTS"]
    assert first.conflict is True
    assert first.answer == "171 Boston Street, Guilford"
    # The question's claim keeps the ambiguous name (App. A), not the claimed title.
    assert first.claim == (
        'The answer to "Where is Griswold House located?" is 171 Boston Street, Guilford.'
    )
    assert first.meta["claimed_title"] == "Griswold House (Guilford, Connecticut)"
    assert first.documents[1].meta["answer"] == "76 Bellevue Avenue, Newport"
    assert first.meta["ambiguous_entity"] == "Griswold House"
    assert first.group == "ambigdocs:griswold house"


def test_ambigdocs_columnar_documents_equal_records(
    ambig_json: Path, ambig_columnar_json: Path
) -> None:
    a = [it.model_dump() for it in load("ambigdocs", ambig_json)]
    b = [it.model_dump() for it in load("ambigdocs", ambig_columnar_json)]
    assert a == b


def test_ambigdocs_column_wise_table_and_jsonl(
    tmp_path: Path, ambig_records: list[dict[str, Any]], ambig_json: Path
) -> None:
    table = {k: [r[k] for r in ambig_records] for k in ambig_records[0]}
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    expected = [it.model_dump() for it in load("ambigdocs", ambig_json)]
    assert [it.model_dump() for it in load("ambigdocs", path)] == expected
    lines = tmp_path / "dev.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in ambig_records), encoding="utf-8")
    assert [it.model_dump() for it in load("ambigdocs", lines)] == expected


def test_ambigdocs_claimed_index_and_seed(ambig_json: Path) -> None:
    second = next(iter(load("ambigdocs", ambig_json, claimed_index=1)))
    assert [d.gold for d in second.documents] == ["CONTRADICTS", "SUPPORTS", "CONTRADICTS"]
    a = [it.meta["claimed_index"] for it in load("ambigdocs", ambig_json, seed=3)]
    b = [it.meta["claimed_index"] for it in load("ambigdocs", ambig_json, seed=3)]
    assert a == b


def test_ambigdocs_malformed_document(tmp_path: Path, ambig_records: list[dict[str, Any]]) -> None:
    del ambig_records[1]["documents"][1]["pid"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(ambig_records), encoding="utf-8")
    with pytest.raises(DataError) as err:
        list(load("ambigdocs", path))
    assert err.value.row == "[1]" and err.value.field == "documents[1].pid"
    assert str(path) in str(err.value)


def test_ambigdocs_columnar_length_mismatch(tmp_path: Path, ambig_records: list[dict]) -> None:
    rec = ambig_records[0]
    rec["documents"] = {
        "title": ["a", "b"],
        "text": ["x"],
        "pid": ["1", "2"],
        "answer": ["p", "q"],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([rec]), encoding="utf-8")
    with pytest.raises(DataError, match="column lengths differ") as err:
        list(load("ambigdocs", path))
    assert err.value.field == "documents"


# ------------------------------------------------------------------ ContraQA


def test_contraqa_current_layout_links_by_context(contraqa_current: Path) -> None:
    items = {it.id: it for it in load("contraqa", contraqa_current)}
    # the query whose context is not in the corpus is skipped
    assert set(items) == {
        "contraqa:56be4db0acb8001400a502ec",
        "contraqa:571cb1b2dd7acb1400e4c101",
        "contraqa:5729e1101d04691400779649",
        "contraqa:570d2556fed7b91900d45c99",
    }
    sb = items["contraqa:56be4db0acb8001400a502ec"]
    assert [(d.id, d.gold, d.synthetic) for d in sb.documents] == [
        ("1020959:::Super_Bowl_50", "SUPPORTS", False),
        ("1020959:::Super_Bowl_50-FAKE", "CONTRADICTS", True),  # found in the second pass
    ]
    assert sb.conflict is True
    assert sb.answer == "Denver Broncos"
    assert sb.documents[0].title == "Super Bowl 50"
    amazon = items["contraqa:5729e1101d04691400779649"]
    assert amazon.conflict is False and [d.gold for d in amazon.documents] == ["SUPPORTS"]


def test_contraqa_corpus_file_with_explicit_queries_and_qrels(
    contraqa_current: Path, tmp_path: Path
) -> None:
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("56be4db0acb8001400a502ec\t1020959:::Super_Bowl_50\t1\n", encoding="utf-8")
    items = list(
        load(
            "contraqa",
            contraqa_current / "corpus.json",
            queries=contraqa_current / "queries.json",
            qrels=qrels,
        )
    )
    assert [it.id for it in items] == ["contraqa:56be4db0acb8001400a502ec"]
    assert [d.gold for d in items[0].documents] == ["SUPPORTS", "CONTRADICTS"]


def test_contraqa_beir_layout(contraqa_beir: Path) -> None:
    items = {it.id: it for it in load("contraqa", contraqa_beir)}
    q1 = items["contraqa:q1"]
    assert [(d.id, d.gold, d.meta.get("type")) for d in q1.documents] == [
        ("p1", "SUPPORTS", "Original"),
        ("p1f", "CONTRADICTS", "FAKE_Human"),
    ]
    assert q1.documents[0].title == "Super_Bowl_50"
    assert q1.answer == "Denver Broncos" and q1.conflict is True
    q2 = items["contraqa:q2"]
    assert q2.conflict is False and q2.answer is None


def test_contraqa_malformed_corpus_line(contraqa_current: Path) -> None:
    corpus = contraqa_current / "corpus.json"
    lines = corpus.read_text(encoding="utf-8").splitlines()
    lines[2] = json.dumps({"id": "x", "text": "wrong field name"})
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        list(load("contraqa", contraqa_current))
    assert err.value.path == str(corpus) and err.value.row == 3 and err.value.field == "contents"


# ------------------------------------------------------------------ MacNoise


def test_macnoise_fixture_level_35(macnoise_json: Path) -> None:
    items = list(load("macnoise", macnoise_json, level="35"))
    assert [it.source for it in items] == ["macnoise-nq", "macnoise-nq"]  # from the file name
    first = items[0]
    assert first.id == "macnoise-nq:0"
    assert [(d.id, d.gold) for d in first.documents] == [
        ("101#pert", "CONTRADICTS"),
        ("102", "SUPPORTS"),
        ("103", "IRRELEVANT"),
    ]
    # "title: X Context:" prefix stripped case-insensitively; invented title kept
    assert first.documents[0].title == "A Memoir Reconsidered"
    assert first.documents[0].text == "Dreams from My Father is a memoir by Joe Biden."
    assert first.documents[1].text == "Obama published his memoir in 1995."
    assert first.conflict is True
    second = items[1]
    assert second.conflict is False  # nothing swapped at level 35
    assert [d.gold for d in second.documents] == ["SUPPORTS", "IRRELEVANT"]


def test_macnoise_upper_case_prefix_and_keep_original(macnoise_json: Path) -> None:
    items = list(load("macnoise-nq", macnoise_json, level=None, keep_original=True))
    second = items[1]  # pert_lbls swaps ctx 201 (prefix "TITLE: … CONTEXT:")
    assert [(d.id, d.gold) for d in second.documents] == [
        ("201", "SUPPORTS"),
        ("201#pert", "CONTRADICTS"),
        ("202", "IRRELEVANT"),
    ]
    assert second.documents[1].text == "It was drafted by John Adams."
    assert second.documents[1].title == "Declaration"


def test_macnoise_missing_level_and_bad_flags(macnoise_json: Path, tmp_path: Path) -> None:
    with pytest.raises(DataError) as err:
        list(load("macnoise", macnoise_json, level="100"))
    assert err.value.row == "[0]" and err.value.field == "pert_lbls_100"
    data = json.loads(macnoise_json.read_text(encoding="utf-8"))
    data[1]["pert_lbls_35"] = [0]
    bad = tmp_path / "TQA_eval_bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError, match="1 flags for 2 ctxs") as err2:
        list(load("macnoise", bad))
    assert err2.value.row == "[1]" and err2.value.field == "pert_lbls_35"
    with pytest.raises(ValueError, match="variant"):
        list(load("macnoise", tmp_path / "unnamed.json"))


def test_macnoise_real_sample_known_record(shared_data: Path) -> None:
    path = shared_data / "macnoise" / "GPT_trainx_chatgptpert_samples.json"
    items = list(load("macnoise", path, level="25", variant="nq"))
    assert len(items) == 5
    nfl = items[0]
    assert nfl.question == "which nfl team has the most super bowls"
    assert nfl.answer == "Pittsburgh Steelers"
    gold = {d.id: d.gold for d in nfl.documents}
    # pert_lbls_25 = [0,0,0,1,0]; pert_lbls = [1,0,1,1,0]
    assert gold == {
        "375992": "SUPPORTS",
        "376005": "IRRELEVANT",
        "9002022": "SUPPORTS",
        "284561#pert": "CONTRADICTS",
        "376006": "IRRELEVANT",
    }
    pert = next(d for d in nfl.documents if d.id == "284561#pert")
    assert pert.title == "American Football Association" and pert.synthetic
    assert pert.text.startswith("The American Football Association was formed in 1920")
    assert not any(d.text.lower().startswith("title:") for d in nfl.documents)
    assert nfl.conflict is True
    # level 100 swaps every answer-bearing passage: no SUPPORTS left, so no conflict
    at100 = list(load("macnoise", path, level="100", variant="nq"))
    assert not any(it.conflict for it in at100)
    assert [d.gold for d in at100[0].documents].count("CONTRADICTS") == 3
    kept = list(load("macnoise", path, level="100", variant="nq", keep_original=True))
    assert kept[0].conflict is True and len(kept[0].documents) == 8


def test_macnoise_real_longpre_sample(shared_data: Path) -> None:
    path = shared_data / "macnoise" / "GPT_trainx_longpre_samples.json"
    items = list(load("macnoise", path, level="25", variant="tqa"))
    mistresses = items[3]
    assert mistresses.source == "macnoise-tqa"
    assert [d.gold for d in mistresses.documents] == [
        "SUPPORTS",
        "SUPPORTS",
        "CONTRADICTS",
        "SUPPORTS",
        "CONTRADICTS",
    ]
    # the entity-swap perturbation no longer holds the answer
    assert "four" not in mistresses.documents[2].text.split()


def test_jsonl_inputs_are_streamed(shared_data: Path, tmp_path: Path) -> None:
    """A JSON-lines file yields its first items before a later line is even read."""
    records = json.loads(
        (shared_data / "macnoise" / "GPT_trainx_chatgptpert_samples.json").read_text("utf-8")
    )
    path = tmp_path / "NQ_stream.jsonl"
    lines = [json.dumps(r) for r in records[:2]] + ["{not json at all"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = load("macnoise", path, level="25")
    first = next(items)
    assert first.id == "macnoise-nq:0" and first.question == records[0]["question"]
    assert next(items).id == "macnoise-nq:1"
    with pytest.raises(DataError) as err:  # only now is the broken line 3 reached
        next(items)
    assert err.value.path == str(path) and err.value.row == 3


def test_macnoise_duplicate_ctx_id_keeps_ids_unique(shared_data: Path, tmp_path: Path) -> None:
    records = json.loads(
        (shared_data / "macnoise" / "GPT_trainx_chatgptpert_samples.json").read_text("utf-8")
    )
    record = records[0]
    record["ctxs"][1]["id"] = record["ctxs"][2]["id"]  # "9002022" twice (ctx 1 and ctx 2)
    path = tmp_path / "NQ_dup.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    (item,) = load("macnoise", path, level="25")
    assert [d.id for d in item.documents] == [
        "375992",
        "9002022",
        "9002022#2",
        "284561#pert",
        "376006",
    ]
    assert item.documents[2].meta["ctx_id"] == "9002022"


def test_duplicate_record_ids_name_file_row_field(
    tmp_path: Path, ambig_records: list[dict[str, Any]], contraqa_current: Path
) -> None:
    ambig_records[2]["qid"] = "17"  # the first record's int qid 17, as a string
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(ambig_records), encoding="utf-8")
    with pytest.raises(DataError) as err:
        list(load("ambigdocs", path))
    assert (err.value.path, err.value.row, err.value.field) == (str(path), "[2]", "qid")
    assert "[0]" in str(err.value)

    queries_path = contraqa_current / "queries.json"
    queries = json.loads(queries_path.read_text(encoding="utf-8"))
    queries.append(dict(queries[0]))
    queries_path.write_text(json.dumps(queries), encoding="utf-8")
    with pytest.raises(DataError) as err2:
        list(load("contraqa", contraqa_current))
    assert err2.value.path == str(queries_path)
    assert (err2.value.row, err2.value.field) == (f"[{len(queries) - 1}]", "id")


def test_unknown_source() -> None:
    with pytest.raises(ValueError, match="unknown ConflictBench source"):
        list(load("fever", "x.json"))


def test_the_registry_instructions_for_conflictingqa_give_a_file_the_loader_reads(
    tmp_path: Path, cqa_rows: list[dict[str, Any]], cqa_jsonl: Path
) -> None:
    """Run the command the download instructions give, word for word, then load its output."""
    import re
    import shlex

    from conflicteval.cli import main
    from conflicteval.data.registry import REGISTRY

    pd = pytest.importorskip("pandas")
    pd.DataFrame(cqa_rows).to_pickle(tmp_path / "data.pkl")
    entry = next(e for e in REGISTRY if e.name == "conflictingqa")
    command = re.search(r"'conflicteval (conflictbench convert [^']+)'", entry.instructions or "")
    assert command is not None
    argv = shlex.split(command.group(1))
    argv = [str(tmp_path / a) if a in ("data.pkl", "conflictingqa.jsonl") else a for a in argv]
    assert main(argv) == 0
    expected = [it.model_dump() for it in load("conflictingqa", cqa_jsonl)]
    assert [it.model_dump() for it in load("conflictingqa", tmp_path / "conflictingqa.jsonl")] == (
        expected
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("answer_id", 1.5),
        ("answer_id", True),
        ("answer_id", ["a", "b"]),
        ("title", 3),
        ("url", {"href": "x"}),
        ("category", ["health"]),
    ],
)
def test_conflictingqa_ids_and_text_fields_are_refused_not_converted(
    tmp_path: Path, cqa_rows: list[dict[str, Any]], field: str, value: Any
) -> None:
    """An id is a string or an integer and a text field is text: anything else is one error
    naming the file, row and field (it used to become "1.5", "True", or fall back to the url)."""
    cqa_rows[1][field] = value
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in cqa_rows), encoding="utf-8")
    with pytest.raises(DataError) as err:
        list(load("conflictingqa", path))
    assert (err.value.path, err.value.row, err.value.field) == (str(path), 2, field)
