"""Verification with labelers: modes, mapping, failed pairs, metrics, FEVEROUS-S, runner."""

from __future__ import annotations

import asyncio
import json
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conflicteval.errors import DataError, ModelError
from conflicteval.feverous import (
    DEFAULT_MAPPING,
    EvidencePiece,
    FeverousClaim,
    VerifyItem,
    WikiDB,
    combine_relations,
    documents_for,
    items_from_claims,
    label_metrics,
    load_feverous_s,
    parse_element_id,
    verify,
    verify_sync,
)
from conflicteval.feverous.claims import EvidenceSet, Label
from conflicteval.types import Document, PairLabel


def _item(item_id: str, claim: str, label: Label | None, *texts: str, **extra: Any) -> VerifyItem:
    pieces = [EvidencePiece(id=f"{item_id}:{k}", text=t, title="Page") for k, t in enumerate(texts)]
    return VerifyItem(id=item_id, claim=claim, label=label, evidence=pieces, **extra)


ITEMS = [
    _item(
        "1",
        "The club was founded in 1901 in Springfield.",
        "SUPPORTS",
        "The club was founded in 1901.",
        "It is based in Springfield.",
    ),
    _item(
        "2",
        "The club was founded in 1905 in Springfield.",
        "REFUTES",
        "The club was founded in 1901.",
        "It is based in Springfield.",
    ),
    _item(
        "3",
        "The club has a famous mascot called Rex.",
        "NOT ENOUGH INFO",
        "The club was founded in 1901.",
    ),
    _item(
        "4",
        "The club was founded in 1901 in Springfield.",
        "SUPPORTS",
        "The club was founded in 1901 in Springfield.",
        "FAIL this one",
    ),
]


# -- pure parts ----------------------------------------------------------


def test_combine_relations_rule() -> None:
    assert combine_relations(["SUPPORTS", "CONTRADICTS", None]) == "CONTRADICTS"
    assert combine_relations(["SUPPORTS", None]) is None
    assert combine_relations(["IRRELEVANT", "SUPPORTS"]) == "SUPPORTS"
    assert combine_relations(["IRRELEVANT", "IRRELEVANT"]) == "IRRELEVANT"
    assert combine_relations([None]) is None


def test_documents_for_each_mode() -> None:
    item = ITEMS[0]
    (doc,) = documents_for(item, "concat")
    assert doc.text == "Page: The club was founded in 1901.\nPage: It is based in Springfield."
    assert doc.title == "Page"
    docs = documents_for(item, "per_element")
    assert [d.id for d in docs] == ["1:0", "1:1"]
    assert docs[1].text == "Page: It is based in Springfield."
    assert documents_for(VerifyItem(id="x", claim="c"), "concat") == []
    with pytest.raises(ValueError, match="unknown mode"):
        documents_for(item, "both")  # type: ignore[arg-type]


def test_evidence_piece_render_with_context() -> None:
    piece = EvidencePiece(id="a", text="10", title="Alpha", context=["Records", "[H] Wins"])
    assert piece.render() == "Alpha (Records; [H] Wins): 10"
    assert EvidencePiece(id="b", text="t").render() == "t"


def test_label_metrics_two_class_macro_f1_by_hand() -> None:
    gold = ["SUPPORTS", "SUPPORTS", "REFUTES", "REFUTES", "NOT ENOUGH INFO"]
    predicted = ["SUPPORTS", "REFUTES", "REFUTES", None, "SUPPORTS"]
    m = label_metrics(gold, predicted)  # type: ignore[arg-type]
    # SUPPORTS: tp 1, fp 1, fn 1 -> 0.5; REFUTES: tp 1, fp 1, fn 1 -> 0.5.
    assert m.f1["SUPPORTS"] == pytest.approx(0.5)
    assert m.f1["REFUTES"] == pytest.approx(0.5)
    assert m.f1["NOT ENOUGH INFO"] == 0.0
    assert m.macro_f1 == pytest.approx(0.5)
    assert m.macro_f1_3class == pytest.approx(1 / 3)
    assert m.label_accuracy == pytest.approx(2 / 5)
    assert (m.n, m.n_answered) == (5, 4)
    assert m.label_accuracy_answered == pytest.approx(2 / 4)
    assert m.confusion["REFUTES"]["FAILED"] == 1
    assert m.confusion["NOT ENOUGH INFO"]["SUPPORTS"] == 1
    with pytest.raises(ValueError):
        label_metrics(["SUPPORTS"], [])


# -- verify with the test labeler -----------------------------------------


def test_concat_mode_counts_a_failed_pair(keyword_labeler: Any) -> None:
    result = verify_sync(ITEMS, keyword_labeler)
    by_id = {r.id: r for r in result.records}
    assert by_id["1"].predicted_label == "SUPPORTS"
    assert by_id["2"].predicted_label == "REFUTES" and by_id["2"].relation == "CONTRADICTS"
    assert by_id["3"].predicted_label == "NOT ENOUGH INFO"
    # The one concatenated document contains FAIL: the claim is undecided, not NEI.
    assert by_id["4"].status == "undecided"
    assert by_id["4"].predicted_label is None
    assert by_id["4"].failed_pairs == 1
    assert "simulated failure" in by_id["4"].errors[0]
    assert result.counts == {
        "ok": 3,
        "undecided": 1,
        "parse_error": 0,
        "model_error": 0,
        "failed_pairs": 1,
        "pairs": 4,
        "total": 4,
    }
    assert result.metrics.label_accuracy == pytest.approx(3 / 4)
    assert result.metrics.label_accuracy_answered == 1.0
    assert result.metrics.confusion["SUPPORTS"]["FAILED"] == 1
    assert result.feverous is None
    assert keyword_labeler.calls == 4
    assert all(len(docs) == 1 for _, docs in keyword_labeler.seen)


def test_per_element_mode_rule(keyword_labeler: Any) -> None:
    items = [
        *ITEMS,
        # CONTRADICTS decides even when another pair failed.
        _item(
            "5", "The club was founded in 1905.", "REFUTES", "The club was founded in 1901.", "FAIL"
        ),
    ]
    result = verify_sync(items, keyword_labeler, mode="per_element")
    by_id = {r.id: r for r in result.records}
    assert by_id["1"].pair_labels == ["SUPPORTS", "IRRELEVANT"]
    assert by_id["1"].predicted_label == "SUPPORTS"
    # Per element, 1901 contradicts the claim's 1905 while the other piece is irrelevant.
    assert by_id["2"].pair_labels == ["CONTRADICTS", "IRRELEVANT"]
    assert by_id["2"].predicted_label == "REFUTES"
    # SUPPORTS plus a failed pair: the failed pair might have contradicted.
    assert by_id["4"].pair_labels == ["SUPPORTS", None]
    assert by_id["4"].status == "undecided" and by_id["4"].predicted_label is None
    assert by_id["5"].pair_labels == ["CONTRADICTS", None]
    assert by_id["5"].status == "ok" and by_id["5"].predicted_label == "REFUTES"
    assert by_id["5"].failed_pairs == 1
    assert result.counts["failed_pairs"] == 2
    assert result.counts["pairs"] == 9
    assert result.mode == "per_element"
    assert [len(docs) for _, docs in keyword_labeler.seen] == [2, 2, 1, 2, 2]


def test_mapping_is_configurable(keyword_labeler: Any) -> None:
    mapping = {**DEFAULT_MAPPING, "IRRELEVANT": "refutes"}
    result = verify_sync(ITEMS[2:3], keyword_labeler, mapping=mapping)
    assert result.records[0].predicted_label == "REFUTES"
    assert result.mapping["IRRELEVANT"] == "REFUTES"
    with pytest.raises(ValueError, match="no entry for CONTRADICTS"):
        verify_sync(ITEMS, keyword_labeler, mapping={"SUPPORTS": "SUPPORTS"})
    with pytest.raises(ValueError, match="not a FEVEROUS label"):
        verify_sync(ITEMS, keyword_labeler, mapping={**DEFAULT_MAPPING, "SUPPORTS": "yes"})


def test_claim_without_evidence_is_not_sent(keyword_labeler: Any) -> None:
    result = verify_sync([VerifyItem(id="x", claim="c", label="NOT ENOUGH INFO")], keyword_labeler)
    assert result.records[0].predicted_label == "NOT ENOUGH INFO"
    assert result.records[0].pair_labels == []
    assert keyword_labeler.calls == 0


class _Result:
    def __init__(self, pairs: list[list[PairLabel]]) -> None:
        self.pairs = pairs
        self.calls = 1


class _RaisingLabeler:
    """Raises a ModelError for claims mentioning 'boom'; returns a short row for 'short'."""

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> _Result:
        if "boom" in claims[0]:
            raise ModelError("server gave up", status=503)
        if "short" in claims[0]:
            return _Result([[]])
        return _Result(
            [
                [
                    PairLabel(claim_index=0, doc_index=j, label="SUPPORTS")
                    for j in range(len(documents))
                ]
            ]
        )


def test_labeler_errors_are_recorded_not_dropped() -> None:
    items = [
        _item("a", "boom claim", "SUPPORTS", "text"),
        _item("b", "short claim", "SUPPORTS", "text", "more"),
        _item("c", "fine claim", "SUPPORTS", "text"),
    ]
    result = verify_sync(items, _RaisingLabeler(), mode="per_element")
    by_id = {r.id: r for r in result.records}
    assert by_id["a"].status == "model_error" and "server gave up" in by_id["a"].errors[0]
    assert by_id["b"].status == "undecided" and by_id["b"].failed_pairs == 2
    assert "no pair" in by_id["b"].errors[0]
    assert by_id["c"].status == "ok"
    assert result.metrics.n_answered == 1
    assert result.metrics.label_accuracy == pytest.approx(1 / 3)


def test_checkpoint_resume_makes_no_new_calls(keyword_labeler: Any, tmp_path: Path) -> None:
    checkpoint = tmp_path / "run" / "verify.jsonl"
    first = verify_sync(ITEMS, keyword_labeler, checkpoint=checkpoint)
    assert keyword_labeler.calls == 4
    lines = checkpoint.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4
    second = verify_sync(ITEMS, keyword_labeler, checkpoint=checkpoint)
    assert keyword_labeler.calls == 4
    assert [r.model_dump() for r in second.records] == [r.model_dump() for r in first.records]


def test_verify_is_awaitable(keyword_labeler: Any) -> None:
    result = asyncio.run(verify(ITEMS[:2], keyword_labeler, concurrency=1))
    assert [r.predicted_label for r in result.records] == ["SUPPORTS", "REFUTES"]


def test_feverous_score_with_predicted_evidence(keyword_labeler: Any) -> None:
    gold = [["Page_sentence_0", "Page_sentence_1"]]
    items = [
        ITEMS[0].model_copy(
            update={
                "gold_evidence": gold,
                "predicted_evidence": ["Page_sentence_1", "Page_sentence_0"],
            }
        ),
        ITEMS[1].model_copy(
            update={"gold_evidence": gold, "predicted_evidence": ["Page_sentence_0"]}
        ),
        ITEMS[3].model_copy(
            update={
                "gold_evidence": gold,
                "predicted_evidence": ["Page_sentence_0", "Page_sentence_1"],
            }
        ),
    ]
    result = verify_sync(items, keyword_labeler)
    assert result.feverous is not None
    # Claim 1: right label, set covered. Claim 2: right label, set not covered.
    # Claim 4: set covered but undecided (no label), so not strict.
    assert [r.strict for r in result.feverous.per_claim] == [True, False, False]
    assert result.feverous.recall == pytest.approx(2 / 3)
    assert result.summary()["feverous_score"] == pytest.approx(1 / 3)


# -- inputs ------------------------------------------------------------------


def test_feverous_s_layout(s_sample: Path, keyword_labeler: Any) -> None:
    items = load_feverous_s(s_sample)
    assert [i.id for i in items] == ["3385", "7966", "48965", "268", "1183"]
    assert [i.label for i in items] == ["SUPPORTS", "REFUTES", "REFUTES", "SUPPORTS", "REFUTES"]
    assert [len(i.evidence) for i in items] == [5, 1, 1, 4, 1]
    assert items[1].challenge == "Entity Disambiguation"
    assert items[0].evidence[0].title == "Glenn–Thompson Plantation"
    assert "[[" not in items[0].evidence[0].text
    assert "historic plantation house near Pittsview" in items[0].evidence[0].text
    # NFD wiki text is normalised to NFC, like the claims.
    assert "fiancée Gladys" in items[4].evidence[0].text
    assert unicodedata.is_normalized("NFC", items[4].evidence[0].text)
    raw = load_feverous_s(s_sample, strip_links=False, normalize=None)
    assert "[[Patio|patio]]" in raw[0].evidence[1].text
    assert not unicodedata.is_normalized("NFC", raw[4].evidence[0].text)
    result = verify_sync(items, keyword_labeler)
    assert result.counts["total"] == 5 and result.counts["failed_pairs"] == 0
    assert 0.0 <= result.metrics.macro_f1 <= 1.0


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({"claim": "c", "label": "supports", "evidence": "P\tt"}, "id"),
        ({"id": 1, "claim": "c", "label": "maybe", "evidence": "P\tt"}, "label"),
        ({"id": 1, "claim": "c", "label": "supports", "evidence": "no tab here"}, "evidence"),
        ({"id": 1, "claim": 3, "label": "supports", "evidence": "P\tt"}, "claim"),
        ({"id": 1, "claim": "c", "label": "supports", "evidence": ["P\tt"]}, "evidence"),
    ],
)
def test_feverous_s_errors(tmp_path: Path, record: dict, field: str) -> None:
    good = {"id": 0, "claim": "c", "label": "refutes", "evidence": "P\tt"}
    path = tmp_path / "s.json"
    path.write_text(json.dumps([good, record]), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_feverous_s(path)
    assert (info.value.row, info.value.field) == (2, field)
    path.write_text('{"not": "a list"}', encoding="utf-8")
    with pytest.raises(DataError, match="JSON array"):
        load_feverous_s(path)


def test_items_from_claims_resolve_text_and_context(wiki_db_path: Path) -> None:
    claims = [
        FeverousClaim(
            id=7,
            claim="Alpha Team won 10 games in 2019.",
            label="SUPPORTS",
            evidence=[
                EvidenceSet(content=["Alpha Team_cell_0_2_1", "Alpha Team_sentence_0"]),
                EvidenceSet(
                    content=[
                        "Alpha Team_cell_0_2_1",
                        "Zoë Café_sentence_0",
                        "Alpha Team_sentence_42",
                    ]
                ),
            ],
        ),
        FeverousClaim(claim="Unlabeled claim.", index=1),
    ]
    with WikiDB(wiki_db_path) as db:
        union = items_from_claims(claims, db)
        first = items_from_claims(claims, db, evidence="gold_first")
        retrieved = items_from_claims(claims, db, evidence={7: ["Alpha Team_sentence_1"]})
    item = union[0]
    assert item.id == "7"
    assert [p.id for p in item.evidence] == [
        "Alpha Team_cell_0_2_1",
        "Alpha Team_sentence_0",
        "Zoë Café_sentence_0",
    ]
    assert item.missing == ["Alpha Team_sentence_42"]
    cell = item.evidence[0]
    assert cell.render() == "Alpha Team (History; Records; [H] 2019; [H] Wins; [H] Results): 10"
    assert item.evidence[1].text == "Alpha Team is a football club from Springfield."
    assert item.evidence[2].text == "Zoë Café is a café in Paris."  # NFC
    assert item.gold_evidence == [
        ["Alpha Team_cell_0_2_1", "Alpha Team_sentence_0"],
        ["Alpha Team_cell_0_2_1", "Zoë Café_sentence_0", "Alpha Team_sentence_42"],
    ]
    assert item.predicted_evidence is None
    assert union[1].id == "1" and union[1].label is None and union[1].gold_evidence is None
    assert [p.id for p in first[0].evidence] == ["Alpha Team_cell_0_2_1", "Alpha Team_sentence_0"]
    assert [p.id for p in retrieved[0].evidence] == ["Alpha Team_sentence_1"]
    assert retrieved[0].predicted_evidence == ["Alpha Team_sentence_1"]
    assert parse_element_id(retrieved[0].evidence[0].id).type == "sentence"


def test_real_lexical_labeler_through_verify(s_sample: Path) -> None:
    conflictscore = pytest.importorskip("conflicteval.conflictscore")
    labeler = conflictscore.LexicalLabeler()
    items = load_feverous_s(s_sample)
    result = verify_sync(items, labeler, mode="per_element")
    assert result.counts["total"] == 5
    assert result.counts["pairs"] == 12
    assert result.counts["ok"] + result.counts["undecided"] == 5
    assert all(
        r.predicted_label in (None, "SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
        for r in result.records
    )


def test_label_metrics_of_nothing_are_undefined_not_zero() -> None:
    """No gold label (an unlabeled file), or no claim answered: the ratios are None, not 0.0."""
    none = label_metrics([], [])
    assert none.n == 0
    assert none.label_accuracy is None and none.label_accuracy_answered is None
    assert none.macro_f1 is None and none.macro_f1_3class is None
    unanswered = label_metrics(["SUPPORTS", "REFUTES"], [None, None])
    assert unanswered.label_accuracy == 0.0  # two claims, both failed: wrong
    assert unanswered.label_accuracy_answered is None  # none answered: undefined
