"""Fixtures for the FEVEROUS tests: real sample paths and a small wiki database."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path

import pytest

from conflicteval.testing.wikidb import write_wiki_db
from conflicteval.types import Document, PairLabel

TRAIN_SAMPLE = "feverous/feverous_train_first10.jsonl"
S_SAMPLE = "feverous/feverous_s_dev_first5.json"

NFC_TITLE = "Zoë Café"
NFD_TITLE = unicodedata.normalize("NFD", NFC_TITLE)
UNDERSCORE_TITLE = "Under_score (band)"


def _cell(cid: str, value: str, header: bool = False, rows: int = 1, cols: int = 1) -> dict:
    return {"id": cid, "value": value, "is_header": header, "row_span": rows, "column_span": cols}


ALPHA = {
    "title": "Alpha Team",
    "order": [
        "sentence_0",
        "section_0",
        "sentence_1",
        "section_1",
        "sentence_2",
        "section_2",
        "table_0",
        "section_3",
        "list_0",
        "section_4",
        "sentence_3",
        "table_1",
    ],
    "sentence_0": " Alpha Team is a [[Football_club|football club]] from [[Springfield]]. ",
    "section_0": {"value": "History", "level": 1},
    "sentence_1": "The club was founded in 1901.",
    "section_1": {"value": "Early years", "level": 2},
    "sentence_2": "It won its first title in 1910.",
    "section_2": {"value": "Records", "level": 2},
    # Season spans two rows, Results two columns: "Wins" sits in grid column 1
    # although it is the first cell of its row, and "12" spans two columns.
    "table_0": {
        "type": "infobox",
        "caption": "Results by season",
        "table": [
            [
                _cell("header_cell_0_0_0", "Season", True, rows=2),
                _cell("header_cell_0_0_1", "Results", True, cols=2),
            ],
            [_cell("header_cell_0_1_0", "Wins", True), _cell("header_cell_0_1_1", "Losses", True)],
            [
                _cell("header_cell_0_2_0", "2019", True),
                _cell("cell_0_2_1", " 10 "),
                _cell("cell_0_2_2", "5"),
            ],
            [_cell("header_cell_0_3_0", "2020", True), _cell("cell_0_3_1", "12", cols=2)],
        ],
    },
    "section_3": {"value": "Honours", "level": 3},
    "list_0": {
        "type": "unordered_list",
        "list": [
            {"id": "item_0_0", "value": " First [[Cup_(football)|cup]] ", "level": 0},
            {"id": "item_0_1", "value": "Second", "level": 0, "type": "ordered_list"},
            {"id": "item_0_2", "value": "Nested", "level": 1},
        ],
    },
    "section_4": {"value": "Legacy", "level": 1},
    "sentence_3": "The club folded in 1950.",
    # A header row in the middle: the column context of d3 stops at H2.
    "table_1": {
        "type": "wikitable",
        "table": [
            [_cell("header_cell_1_0_0", "H1", True)],
            [_cell("cell_1_1_0", "d1")],
            [_cell("header_cell_1_2_0", "H2", True)],
            [_cell("cell_1_3_0", "d3")],
        ],
    },
}

ZOE = {
    "title": NFD_TITLE,
    "order": ["sentence_0", "sentence_1"],
    "sentence_0": unicodedata.normalize("NFD", "Zoë Café is a café in Paris."),
    "sentence_1": "It opened in 1999.",
}

UNDERSCORE = {
    "title": UNDERSCORE_TITLE,
    "order": ["sentence_0"],
    "sentence_0": "Under_score is a band formed in 2001.",
}


@pytest.fixture()
def wiki_db_path(tmp_path: Path) -> Path:
    """A small wiki database: tables with spans, a list, sections, an NFD title, a title with _."""
    return write_wiki_db(tmp_path / "wiki.db", [ALPHA, ZOE, UNDERSCORE])


@pytest.fixture()
def train_sample(shared_data: Path) -> Path:
    """The ten real train records (pre-challenge release, no header)."""
    path = shared_data / TRAIN_SAMPLE
    if not path.is_file():
        pytest.skip(f"{TRAIN_SAMPLE} not in ../shared/data")
    return path


@pytest.fixture()
def s_sample(shared_data: Path) -> Path:
    """The first five FEVEROUS-S dev claims (ProgramFC layout)."""
    path = shared_data / S_SAMPLE
    if not path.is_file():
        pytest.skip(f"{S_SAMPLE} not in ../shared/data")
    return path


class LabelResult:
    """The labeler result shape: ``pairs[claim][document]`` and ``calls``."""

    def __init__(self, pairs: list[list[PairLabel]], calls: int) -> None:
        self.pairs = pairs
        self.calls = calls


class KeywordLabeler:
    """A deterministic rule labeler for tests.

    Per (claim, document): a document containing ``FAIL`` fails (label None);
    a year (4 digits) in the claim that the document contradicts (the
    document has years, none of them the claim's) gives CONTRADICTS; at
    least 60 % of the claim's content words in the document gives SUPPORTS;
    anything else IRRELEVANT.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.seen: list[tuple[list[str], list[Document]]] = []

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        self.seen.append((list(claims), list(documents)))
        pairs = [
            [self._pair(i, j, claim, doc) for j, doc in enumerate(documents)]
            for i, claim in enumerate(claims)
        ]
        self.calls += 1
        return LabelResult(pairs, calls=1)

    @staticmethod
    def _pair(i: int, j: int, claim: str, doc: Document) -> PairLabel:
        if "FAIL" in doc.text:
            return PairLabel(claim_index=i, doc_index=j, error="simulated failure", raw="???")
        claim_years = set(_years(claim))
        doc_years = set(_years(doc.text))
        if claim_years and doc_years and not claim_years & doc_years:
            return PairLabel(claim_index=i, doc_index=j, label="CONTRADICTS")
        words = {w for w in _words(claim) if len(w) > 3}
        found = words & set(_words(doc.text))
        if words and len(found) / len(words) >= 0.6:
            return PairLabel(claim_index=i, doc_index=j, label="SUPPORTS")
        return PairLabel(claim_index=i, doc_index=j, label="IRRELEVANT")


def _words(text: str) -> list[str]:
    return "".join(c.lower() if c.isalnum() else " " for c in text).split()


def _years(text: str) -> list[str]:
    return [w for w in _words(text) if len(w) == 4 and w.isdigit()]


@pytest.fixture()
def keyword_labeler() -> KeywordLabeler:
    """A fresh :class:`KeywordLabeler`."""
    return KeywordLabeler()
