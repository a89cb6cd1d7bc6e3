"""The Wikipedia database reader, on a small database in the documented layout."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from pathlib import Path

import pytest

from conflicteval.errors import DataError
from conflicteval.feverous import (
    ElementIdError,
    ElementNotFoundError,
    WikiDB,
    WikiPage,
    strip_wiki_links,
)

NFC_TITLE = "Zoë Café"


def test_page_lookup_normalises_titles_to_nfd(wiki_db_path: Path) -> None:
    with WikiDB(wiki_db_path) as db:
        assert len(db) == 3
        assert "Alpha Team" in db
        assert NFC_TITLE in db  # stored NFD, asked NFC
        assert unicodedata.normalize("NFD", NFC_TITLE) in db
        assert "Missing Page" not in db
        assert db.get_page("Missing Page") is None
        page = db.page(NFC_TITLE)
        assert page.title == unicodedata.normalize("NFD", NFC_TITLE)
        assert sorted(db.titles()) == sorted(
            ["Alpha Team", unicodedata.normalize("NFD", NFC_TITLE), "Under_score (band)"]
        )
        with pytest.raises(ElementNotFoundError, match="Missing Page"):
            db.page("Missing Page")


def test_element_text_by_the_official_rules(wiki_db_path: Path) -> None:
    with WikiDB(wiki_db_path) as db:
        text = db.element_text
        # Sentences are stripped; links kept unless asked.
        assert text("Alpha Team_sentence_0") == (
            "Alpha Team is a [[Football_club|football club]] from [[Springfield]]."
        )
        assert text("Alpha Team_sentence_0", strip_links=True) == (
            "Alpha Team is a football club from Springfield."
        )
        # Cells by id: value stripped; header cells marked.
        assert text("Alpha Team_cell_0_2_1") == "10"
        assert text("Alpha Team_cell_0_3_1") == "12"
        assert text("Alpha Team_header_cell_0_0_0") == "[H] Season"
        assert text("Alpha Team_header_cell_0_1_0") == "[H] Wins"
        # Captions: the table's caption, "" when it has none.
        assert text("Alpha Team_table_caption_0") == "Results by season"
        assert text("Alpha Team_table_caption_1") == ""
        # List items, sections, the title.
        assert text("Alpha Team_item_0_0") == "First [[Cup_(football)|cup]]"
        assert text("Alpha Team_item_0_0", strip_links=True) == "First cup"
        assert text("Alpha Team_item_0_2") == "Nested"
        assert text("Alpha Team_section_1") == "Early years"
        assert text("Alpha Team_title") == "Alpha Team"
        # NFC id for an NFD page; a title containing "_".
        assert text("Zoë Café_sentence_1") == "It opened in 1999."
        assert text("Under_score (band)_sentence_0") == "Under_score is a band formed in 2001."


def test_missing_elements_raise(wiki_db_path: Path) -> None:
    with WikiDB(wiki_db_path) as db:
        for missing in (
            "Alpha Team_sentence_9",
            "Alpha Team_cell_0_9_9",
            "Alpha Team_header_cell_0_2_1",
            "Alpha Team_table_caption_7",
            "Alpha Team_item_5_0",
            "Alpha Team_section_9",
            "Nowhere_sentence_0",
        ):
            with pytest.raises(ElementNotFoundError):
                db.element_text(missing)
        with pytest.raises(ElementIdError):
            db.element_text("Alpha Team_table_0")


def test_context_title_sections_and_headers_with_spans(wiki_db_path: Path) -> None:
    with WikiDB(wiki_db_path) as db:
        ctx = db.element_context
        p = "Alpha Team_"
        assert ctx("Alpha Team_sentence_0") == [p + "title"]
        assert ctx("Alpha Team_sentence_1") == [p + "title", p + "section_0"]
        assert ctx("Alpha Team_sentence_2") == [p + "title", p + "section_0", p + "section_1"]
        # The sibling section_1 is not an ancestor of table_0 (under section_2).
        # "Wins" is in grid column 1 because "Season" spans two rows: a cell
        # is resolved through the expanded grid, not its id's numbers.
        assert ctx("Alpha Team_cell_0_2_1") == [
            p + "title",
            p + "section_0",
            p + "section_2",
            p + "header_cell_0_2_0",
            p + "header_cell_0_1_0",
            p + "header_cell_0_0_1",
        ]
        # Walking left skips the data cell "10" before the row header.
        assert ctx("Alpha Team_cell_0_2_2") == [
            p + "title",
            p + "section_0",
            p + "section_2",
            p + "header_cell_0_2_0",
            p + "header_cell_0_1_1",
            p + "header_cell_0_0_1",
        ]
        # A cell spanning two columns: headers from its top-left position.
        assert ctx("Alpha Team_cell_0_3_1")[-3:] == [
            p + "header_cell_0_3_0",
            p + "header_cell_0_1_0",
            p + "header_cell_0_0_1",
        ]
        # Header cells and captions: title and sections only.
        assert ctx("Alpha Team_header_cell_0_1_0") == [
            p + "title",
            p + "section_0",
            p + "section_2",
        ]
        assert ctx("Alpha Team_table_caption_0") == [p + "title", p + "section_0", p + "section_2"]
        # Items: sections up to the list's own (level 3 under level 2 under level 1).
        assert ctx("Alpha Team_item_0_1") == [
            p + "title",
            p + "section_0",
            p + "section_2",
            p + "section_3",
        ]
        # After a new level-1 section only that one counts.
        assert ctx("Alpha Team_sentence_3") == [p + "title", p + "section_4"]
        # The column context stops at the first non-header after a header.
        assert ctx("Alpha Team_cell_1_3_0") == [
            p + "title",
            p + "section_4",
            p + "header_cell_1_2_0",
        ]
        # A section's context holds its parents only.
        assert ctx("Alpha Team_section_3") == [p + "title", p + "section_0", p + "section_2"]
        assert ctx("Alpha Team_title") == []
        # The page part is kept as given (NFC here).
        assert ctx("Zoë Café_sentence_0") == ["Zoë Café_title"]


def test_resolve_gives_text_and_context_text(wiki_db_path: Path) -> None:
    with WikiDB(wiki_db_path) as db:
        resolved = db.resolve("Alpha Team_cell_0_2_1", strip_links=True)
        assert resolved.text == "10"
        assert resolved.type == "cell"
        assert resolved.context_text == [
            "Alpha Team",
            "History",
            "Records",
            "[H] 2019",
            "[H] Wins",
            "[H] Results",
        ]
        many = db.resolve_many(
            ["Alpha Team_sentence_1", "Alpha Team_sentence_99", "Zoë Café_sentence_0"],
            skip_missing=True,
            context=False,
        )
        assert [r.id for r in many] == ["Alpha Team_sentence_1", "Zoë Café_sentence_0"]
        assert many[1].text == unicodedata.normalize("NFD", "Zoë Café is a café in Paris.")
        assert many[0].context == []
        with pytest.raises(ElementNotFoundError):
            db.resolve_many(["Alpha Team_sentence_99"])


def test_page_element_ids_in_page_order(wiki_db_path: Path) -> None:
    with WikiDB(wiki_db_path) as db:
        ids = db.page("Alpha Team").element_ids()
    assert ids[:3] == ["sentence_0", "section_0", "sentence_1"]
    start = ids.index("header_cell_0_0_0")
    assert ids[start : start + 10] == [
        "header_cell_0_0_0",
        "header_cell_0_0_1",
        "header_cell_0_1_0",
        "header_cell_0_1_1",
        "header_cell_0_2_0",
        "cell_0_2_1",
        "cell_0_2_2",
        "header_cell_0_3_0",
        "cell_0_3_1",
        "table_caption_0",
    ]
    assert "item_0_2" in ids and "table_caption_1" not in ids


def test_database_is_opened_read_only(wiki_db_path: Path) -> None:
    with WikiDB(wiki_db_path) as db:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db._conn.execute("DELETE FROM wiki")


def test_bad_database_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        WikiDB(tmp_path / "absent.db")
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE pages (id, data)")
    conn.close()
    with pytest.raises(DataError, match="wiki"):
        WikiDB(other)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(DataError, match="not an SQLite database"):
        WikiDB(junk)
    broken = tmp_path / "broken.db"
    conn = sqlite3.connect(broken)
    conn.execute("CREATE TABLE wiki (id PRIMARY KEY, data json)")
    conn.execute("INSERT INTO wiki VALUES ('Bad', '{not json')")
    conn.commit()
    conn.close()
    with WikiDB(broken) as db, pytest.raises(DataError, match="Bad"):
        db.page("Bad")


def test_strip_wiki_links() -> None:
    assert strip_wiki_links("a [[B_c|d e]] f [[G]] [[|x]]") == "a d e f G x"
    assert strip_wiki_links("no links [single] here") == "no links [single] here"


def test_wikipage_without_order_uses_key_order() -> None:
    page = WikiPage(
        {
            "title": "T",
            "sentence_0": "one",
            "section_0": {"value": "S", "level": 1},
            "sentence_1": "two",
        }
    )
    assert page.order == ["sentence_0", "section_0", "sentence_1"]
    assert page.context("sentence_1") == ["title", "section_0"]
    assert "sentence_1" in page and "sentence_7" not in page


@pytest.mark.parametrize(
    "table",
    ["wiki(a, b)", "wiki(id TEXT PRIMARY KEY)", "wiki(data TEXT)", "wiki(title TEXT, json TEXT)"],
)
def test_a_wiki_table_without_id_and_data_is_named_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: str
) -> None:
    from conflicteval.cli import main

    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE {table}")
    conn.commit()
    conn.close()
    with pytest.raises(DataError, match="no table 'wiki\\(id, data\\)'") as info:
        WikiDB(path)
    assert info.value.path == str(path) and info.value.field == "wiki"
    evidence = [{"content": ["P_sentence_0"]}]
    claim = {"id": 1, "claim": "c", "label": "SUPPORTS", "evidence": evidence}
    claims = tmp_path / "claims.jsonl"
    claims.write_text(json.dumps(claim) + "\n", encoding="utf-8")
    argv = ["feverous", "verify", "--claims", str(claims), "--db", str(path)]
    code = main([*argv, "--labeler", "lexical", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and f"{path}, field 'wiki'" in errors[0], err
