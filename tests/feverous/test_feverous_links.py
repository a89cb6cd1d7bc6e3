"""Wiki-link stripping when the visible text itself holds brackets (IPA links of the dump)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conflicteval.feverous import FeverousClaim, WikiDB, items_from_claims, load_feverous_s
from conflicteval.feverous.claims import EvidenceSet
from conflicteval.feverous.wikipage import strip_wiki_links

from .conftest import build_wiki_db

IPA_LINK = "[[Russian language|[ˈzapədʲnʲɪk]]]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Zapadnik ({IPA_LINK}) is a term.", "Zapadnik ([ˈzapədʲnʲɪk]) is a term."),
        (f"{IPA_LINK}{IPA_LINK}", "[ˈzapədʲnʲɪk][ˈzapədʲnʲɪk]"),
        ("[[A|x [b] y]] and [[C]]", "x [b] y and C"),
        ("[[A|see [[B|c]] too]]", "see c too"),
        ("[[A|[[B|[c]]]]]", "[c]"),
        ("[[A|b]c]] d", "b]c d"),
        ("a [[B_c|d e]] f [[G]] [[|x]]", "a d e f G x"),
        ("no links [single] here ]] [x]", "no links [single] here ]] [x]"),
        # Never closed: kept as written (an inner closed link is still reduced).
        ("open [[A|b never", "open [[A|b never"),
        ("open [[A|b [[C|d]] e", "open [[A|b d e"),
        ("x [[A|[y]] z", "x [[A|[y]] z"),
    ],
)
def test_links_with_brackets_in_their_visible_text(text: str, expected: str) -> None:
    assert strip_wiki_links(text) == expected


def test_stripping_is_linear() -> None:
    text = ("[[" + "a|[b]" + "]]") * 20000 + "[[" * 20000
    start = time.perf_counter()
    out = strip_wiki_links(text)
    assert out.startswith("[b][b]") and out.endswith("[[[[")
    assert time.perf_counter() - start < 5.0


IPA_PAGE = {
    "title": "Zapadnik",
    "order": ["sentence_0", "table_0"],
    "sentence_0": f"Zapadnik ({IPA_LINK}) was a [[Westernizer|westernizer]].",
    "table_0": {
        "type": "infobox",
        "table": [
            [
                {
                    "id": "header_cell_0_0_0",
                    "value": "[[International Phonetic Alphabet|IPA]]",
                    "is_header": True,
                    "row_span": 1,
                    "column_span": 1,
                },
                {
                    "id": "cell_0_0_1",
                    "value": IPA_LINK,
                    "is_header": False,
                    "row_span": 1,
                    "column_span": 1,
                },
            ]
        ],
    },
}


def test_claims_sentences_and_cells_lose_nested_link_markup(tmp_path: Path) -> None:
    db_path = build_wiki_db(tmp_path / "wiki.db", [IPA_PAGE])
    claim = FeverousClaim(
        id=1,
        claim=f"Zapadnik is pronounced {IPA_LINK}.",
        label="SUPPORTS",
        evidence=[EvidenceSet(content=["Zapadnik_sentence_0", "Zapadnik_cell_0_0_1"])],
    )
    with WikiDB(db_path) as db:
        (item,) = items_from_claims([claim], db)
        (raw,) = items_from_claims([claim], db, strip_links=False)
    assert item.claim == "Zapadnik is pronounced [ˈzapədʲnʲɪk]."
    sentence, cell = item.evidence
    assert sentence.text == "Zapadnik ([ˈzapədʲnʲɪk]) was a westernizer."
    assert cell.text == "[ˈzapədʲnʲɪk]"
    assert cell.context == ["[H] IPA"]
    for piece in item.evidence:
        assert "[[" not in piece.render() and "|" not in piece.render()
    # strip_links=False keeps the dump's markup everywhere.
    assert raw.claim == claim.claim
    assert raw.evidence[1].text == IPA_LINK


def test_feverous_s_claims_and_evidence_lose_nested_link_markup(tmp_path: Path) -> None:
    path = tmp_path / "dev.json"
    record = {
        "id": 3,
        "claim": f"Zapadnik ({IPA_LINK}) is a word.",
        "label": "supports",
        "evidence": f"Zapadnik\tZapadnik ({IPA_LINK}) was a [[Westernizer|westernizer]].",
    }
    path.write_text(json.dumps([record]), encoding="utf-8")
    (item,) = load_feverous_s(path)
    assert item.claim == "Zapadnik ([ˈzapədʲnʲɪk]) is a word."
    assert item.evidence[0].text == "Zapadnik ([ˈzapədʲnʲɪk]) was a westernizer."
    (raw,) = load_feverous_s(path, strip_links=False)
    assert raw.claim == record["claim"]
