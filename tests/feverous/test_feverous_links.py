"""Wiki-link stripping when the visible text itself holds brackets (IPA links of the dump)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from conflicteval.feverous import FeverousClaim, WikiDB, items_from_claims, load_feverous_s
from conflicteval.feverous.claims import EvidenceSet
from conflicteval.feverous.wikipage import strip_wiki_links
from conflicteval.testing.wikidb import write_wiki_db

IPA_LINK = "[[Russian language|[ˈzapədʲnʲɪk]]]"  # balanced: three closing brackets
# The form the FEVEROUS-S dev file really writes: the link's own "]]" also closes
# the anchor's "[" (record 21530).
REAL_IPA = "Západnik, IPA: [[Russian|[ˈzapədʲnʲɪk]]) were a group"
IPA_SAMPLE = "feverous/feverous_s_dev_ipa_links.json"


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
        ("open [[A|[y] never", "open [[A|[y] never"),
        # The two-bracket form of the real data: "]]" closes the anchor's "[" and the link.
        (REAL_IPA, "Západnik, IPA: [ˈzapədʲnʲɪk]) were a group"),
        ("x [[A|[y]] z", "x [y] z"),
        ("[[Hebrew|[ivˈʁit]] or [[Hebrew|[ʕivˈɾit]])", "[ivˈʁit] or [ʕivˈɾit])"),
        ("[[A|see [[B|[c]] d]] e", "see [c] d e"),
        # A longer run closes the single brackets first, then the link.
        ("[[A|[y]]]] z", "[y]] z"),
    ],
)
def test_links_with_brackets_in_their_visible_text(text: str, expected: str) -> None:
    assert strip_wiki_links(text) == expected


def test_stripping_is_linear() -> None:
    text = ("[[" + "a|[b]" + "]]") * 20000 + "[[" * 20000
    start = time.perf_counter()
    out = strip_wiki_links(text)
    assert out.startswith("[b][b]") and out.endswith("[[[[")
    # Long runs of closing brackets are measured once, not once per bracket.
    deep = "[[a|" + "[x" * 50000
    assert strip_wiki_links(deep + "]" * 50001) == "[x" * 50000 + "]" * 50000
    assert strip_wiki_links(deep + "]" * 50003) == "[x" * 50000 + "]" * 50001
    assert strip_wiki_links("[[" * 30000 + "]" * 60000) == ""
    # quadratic work on these 100,000-character inputs would take hours; linear work
    # takes well under a second alone, so the bound holds however loaded the machine is
    assert time.perf_counter() - start < 60.0


def test_real_feverous_s_records_lose_every_link(shared_data: Path) -> None:
    """The six dev records whose IPA links use the two-bracket form."""
    path = shared_data / IPA_SAMPLE
    raw = {str(r["id"]): r for r in json.loads(path.read_text(encoding="utf-8"))}
    items = load_feverous_s(path)
    assert sorted(item.id for item in items) == sorted(raw)
    two_bracket = 0
    for item in items:
        source = raw[item.id]["evidence"] + raw[item.id]["claim"]
        two_bracket += len(re.findall(r"\[\[[^\[\]|]+\|\[[^\]]*\]\](?!\])", source))
        for text in [item.claim] + [piece.render() for piece in item.evidence]:
            assert "[[" not in text and "]]" not in text and "|" not in text, (item.id, text)
    assert two_bracket >= 6  # the real file does use the two-bracket form
    by_id = {item.id: item for item in items}
    westernizer = by_id["21530"].evidence[2].text
    assert westernizer.startswith("Západnik, IPA: [ˈzapədʲnʲɪk]) were a group")
    hebrew = " ".join(p.text for p in by_id["3190"].evidence)
    assert "[ivˈʁit] or [ʕivˈɾit])" in hebrew


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
    db_path = write_wiki_db(tmp_path / "wiki.db", [IPA_PAGE])
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
