"""How a ScoreResult looks to a user: document ids as columns, flat tables, notebook views."""

from __future__ import annotations

import pytest

from conflicteval.conflictscore import ConflictScorer, ScoreBatchResult, format_result

DOCS = [
    {"id": "d1", "text": "The canal opened in 1847. It is 38 kilometres long."},
    {"id": "d2", "text": "The canal opened in 1851. It is 38 kilometres long."},
    {"id": "d3", "text": "Boats pass through 14 locks."},
]
RESPONSE = "The canal opened in 1847. It is 38 kilometres long."


def test_columns_are_headed_by_the_users_document_ids() -> None:
    result = ConflictScorer().score(RESPONSE, DOCS)
    head = format_result(result).splitlines()[0]
    assert head.split()[1:4] == ["d1", "d2", "d3"]
    assert "d0" not in head


def test_long_ids_get_numbered_columns_and_a_legend() -> None:
    docs = [{**d, "id": f"wikipedia-article-{d['id']}"} for d in DOCS]
    text = format_result(ConflictScorer().score(RESPONSE, docs))
    assert text.splitlines()[0].split()[1:4] == ["[1]", "[2]", "[3]"]
    assert "documents: [1] wikipedia-article-d1, [2] wikipedia-article-d2" in text


def test_to_pandas_is_one_flat_row_per_claim_and_document() -> None:
    pytest.importorskip("pandas")
    result = ConflictScorer().score(RESPONSE, DOCS)
    df = result.to_pandas()
    assert len(df) == len(result.claims) * 3
    assert list(df["document_id"][:3]) == ["d1", "d2", "d3"]
    first = df.iloc[1]
    assert first["claim_index"] == 1 and first["label"] == "CONTRADICTS"
    assert first["claim"] == "The canal opened in 1847."
    grid = df.pivot(index="claim_index", columns="document_id", values="label")
    assert list(grid.columns) == ["d1", "d2", "d3"]
    for column in df.columns:  # flat: no nested objects
        assert not any(isinstance(v, (list, dict)) for v in df[column])


def test_score_many_to_pandas_is_flat_with_item_ids(tmp_path: object) -> None:
    pytest.importorskip("pandas")
    items = [
        {"id": "a", "response": RESPONSE, "documents": DOCS},
        {"id": "b", "response": "   ", "documents": DOCS},  # fails: no sentence
    ]
    batch = ConflictScorer().score_many(items)
    assert isinstance(batch, ScoreBatchResult)
    df = batch.to_pandas()
    assert set(df["item_id"]) == {"a", "b"}
    assert (df[df["item_id"] == "a"]["status"] == "ok").all()
    failed = df[df["item_id"] == "b"].iloc[0]
    assert failed["status"] == "parse_error" and "no sentence" in failed["error"]
    per_item = batch.to_pandas(level="item")
    assert list(per_item["item_id"]) == ["a", "b"] and per_item["cs_c"][0] == 0.5


def test_repr_and_html_show_the_grid_and_scores() -> None:
    result = ConflictScorer().score(RESPONSE, DOCS)
    text = repr(result)
    assert text.startswith("<ScoreResult CS-C 0.50, CS-R 0.25") and "d1" in text
    assert "PairLabel(" not in text and len(text) < 2000
    html = result._repr_html_()
    assert "<table>" in html and "<th>d2</th>" in html and "CONTRADICTS" in html
    assert "CS-C</b> 0.50" in html
