"""Conflict-detection metrics against a hand-worked set, and the detection run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from conflicteval.conflictbench import (
    BenchDocument,
    BenchItem,
    DetectionOutcome,
    detect,
    detection_metrics,
    outcomes_from_checkpoint,
    predict_conflict,
    table2,
)
from conflicteval.errors import ModelError
from conflicteval.types import Document, PairLabel

S, C, I = "SUPPORTS", "CONTRADICTS", "IRRELEVANT"  # noqa: E741


def _o(
    i: int, source: str, gold_conflict: bool, gold: list, labels: list | None
) -> DetectionOutcome:
    return DetectionOutcome(
        id=f"x{i}", source=source, gold_conflict=gold_conflict, gold=gold, labels=labels
    )


HAND = [
    _o(1, "contraqa", True, [S, C], [S, C]),  # TP
    _o(2, "contraqa", True, [S, C], [S, I]),  # FN
    _o(3, "contraqa", False, [S, I, I], [S, I, I]),  # TN
    _o(4, "contraqa", False, [S, I, I], [S, C, I]),  # FP
    _o(5, "contraqa", True, [S, C], [S, None]),  # undetermined -> failed item
    _o(6, "ambigdocs", True, [S, C, C], [C, S, C]),  # TP (for the wrong reasons)
    _o(7, "ambigdocs", False, [S, I, I], [I, None, I]),  # TN: one failure cannot add S and C
    _o(8, "ambigdocs", True, [S, C], None),  # the whole item failed
]


def test_predict_conflict_rules() -> None:
    assert predict_conflict([S, C]) is True
    assert predict_conflict([S, C, None]) is True  # failures cannot undo a conflict
    assert predict_conflict([S, I]) is False
    assert predict_conflict([S, None]) is None  # the failed pair might be CONTRADICTS
    assert predict_conflict([I, None]) is False  # one failure cannot supply both
    assert predict_conflict([None, None]) is None
    assert predict_conflict(None) is None


def test_metrics_match_hand_computation() -> None:
    m = detection_metrics(HAND)
    assert list(m) == ["contraqa", "ambigdocs", "overall"]  # Table 2 row order

    a = m["contraqa"]
    assert (a.tp, a.fp, a.fn, a.tn, a.failed_items, a.n_items) == (1, 1, 1, 1, 1, 5)
    assert a.precision == pytest.approx(0.5) and a.recall == pytest.approx(0.5)
    assert a.f1 == pytest.approx(0.5) and a.accuracy == pytest.approx(0.5)
    assert a.acc_conf == pytest.approx(0.5) and a.acc_noconf == pytest.approx(0.5)
    assert (a.n_pairs, a.failed_pairs) == (12, 1)
    assert a.relation_total == {S: 5, C: 2, I: 4}
    assert a.relation_accuracy[S] == pytest.approx(1.0)
    assert a.relation_accuracy[C] == pytest.approx(0.5)
    assert a.relation_accuracy[I] == pytest.approx(0.75)
    assert a.relation_accuracy["all"] == pytest.approx(9 / 11)

    b = m["ambigdocs"]
    assert (b.tp, b.fp, b.fn, b.tn, b.failed_items) == (1, 0, 0, 1, 1)
    assert (b.precision, b.recall, b.f1, b.accuracy) == (1.0, 1.0, 1.0, 1.0)
    assert (b.acc_conf, b.acc_noconf) == (1.0, 1.0)
    assert (b.n_pairs, b.failed_pairs) == (8, 3)
    assert b.relation_accuracy[S] == 0.0
    assert b.relation_accuracy[C] == pytest.approx(0.5)
    assert b.relation_accuracy[I] == 1.0
    assert b.relation_accuracy["all"] == pytest.approx(2 / 5)

    o = m["overall"]
    assert (o.tp, o.fp, o.fn, o.tn, o.failed_items, o.n_items) == (2, 1, 1, 2, 2, 8)
    for value in (o.precision, o.recall, o.f1, o.accuracy, o.acc_conf, o.acc_noconf):
        assert value == pytest.approx(2 / 3)
    assert (o.n_pairs, o.failed_pairs) == (20, 4)
    assert o.relation_accuracy[S] == pytest.approx(5 / 7)
    assert o.relation_accuracy[C] == pytest.approx(2 / 4)
    assert o.relation_accuracy[I] == pytest.approx(4 / 5)
    assert o.relation_accuracy["all"] == pytest.approx(11 / 16)


def test_undefined_ratios_are_none_and_table_layout() -> None:
    only_negative = [_o(1, "macnoise-nq", False, [S, I], [S, I])]
    m = detection_metrics(only_negative)["macnoise-nq"]
    assert m.precision is None and m.recall is None and m.f1 is None
    assert m.accuracy == 1.0 and m.acc_noconf == 1.0 and m.acc_conf is None
    text = table2(detection_metrics(HAND), paper=True)
    lines = text.splitlines()
    assert lines[0].startswith("| Category | Prec | Rec | F1 | Acc | Acc_conf | Acc_noConf")
    assert all(line.count("|") == lines[0].count("|") for line in lines)  # well-formed table
    assert "| ContraQA | 0.5000 | 0.5000 | 0.5000 | 0.5000 | 0.5000 | 0.5000 |" in text
    assert "| ContraQA (paper, GPT-4.1) | 0.9971 | 0.8208 |" in text
    assert lines[-2].startswith("| Overall | 0.6667")
    assert "| 8 | 2 | 20 | 4 |" in lines[-2]


# ------------------------------------------------------------------ running detection


class KeywordLabeler:
    """A test labeler: SUPPORTS if the doc says "yes", CONTRADICTS if "no", fails on "??"."""

    name = "keyword"

    def __init__(self) -> None:
        self.calls = 0

    async def label(self, claims: Sequence[str], documents: Sequence[Document]):
        from conflicteval.conflictscore.labelers import LabelResult

        self.calls += 1
        if any("CRASH" in d.text for d in documents):
            raise ModelError("server gave up")
        row = []
        for j, d in enumerate(documents):
            if "??" in d.text:
                row.append(PairLabel(claim_index=0, doc_index=j, error="unparsable"))
            else:
                lab = S if "yes" in d.text else C if "no" in d.text else I
                row.append(PairLabel(claim_index=0, doc_index=j, label=lab))
        return LabelResult(pairs=[row], calls=len(documents))


def _item(i: int, texts: list[str], gold: list[str]) -> BenchItem:
    docs = [
        BenchDocument(id=str(j), text=t, gold=g)
        for j, (t, g) in enumerate(zip(texts, gold, strict=True))
    ]
    return BenchItem(
        id=f"ambigdocs:{i}",
        source="ambigdocs",
        question="q?",
        claim="c",
        documents=docs,
        conflict=S in gold and C in gold,
    )


def test_detect_runs_with_checkpoint_and_counts_failures(tmp_path: Path) -> None:
    items = [
        _item(1, ["yes", "no"], [S, C]),
        _item(2, ["yes", "??"], [S, C]),
        _item(3, ["yes", "CRASH"], [S, I]),
        _item(4, ["yes", "other"], [S, I]),
    ]
    ckpt = tmp_path / "detect.jsonl"
    labeler = KeywordLabeler()
    run = detect(items, labeler, checkpoint=ckpt)
    o = run.metrics["overall"]
    assert (o.tp, o.fp, o.fn, o.tn, o.failed_items) == (1, 0, 0, 1, 2)
    assert o.failed_pairs == 1 + 2
    assert run.batch.counts["model_error"] == 1
    assert "2 failed or undetermined" in run.summary()
    assert labeler.calls == 4
    again = detect(items, labeler, checkpoint=ckpt)
    assert labeler.calls == 4  # resumed: no new labelling
    assert again.metrics == run.metrics
    outcomes = outcomes_from_checkpoint(ckpt, items)
    assert detection_metrics(outcomes)["overall"] == o
    with pytest.raises(ValueError, match="failed"):
        outcomes_from_checkpoint(ckpt)


class AllFailLabeler:
    """Every pair of an item fails (a model error, or no parsable label) until ``heal``."""

    name = "all-fail"

    def __init__(self, error: str) -> None:
        self.error = error
        self.healed = False
        self.calls = 0

    async def label(self, claims: Sequence[str], documents: Sequence[Document]):
        from conflicteval.conflictscore.labelers import LabelResult

        self.calls += 1
        if self.healed:
            row = [
                PairLabel(claim_index=0, doc_index=j, label=S if "yes" in d.text else C)
                for j, d in enumerate(documents)
            ]
        else:
            row = [
                PairLabel(claim_index=0, doc_index=j, error=self.error, raw="garbled")
                for j in range(len(documents))
            ]
        return LabelResult(pairs=[row], calls=len(documents))


def test_item_whose_every_pair_failed_is_a_failed_record_and_retried(tmp_path: Path) -> None:
    items = [_item(1, ["yes", "no"], [S, C]), _item(2, ["yes"], [S])]  # item 2: one document
    ckpt = tmp_path / "detect.jsonl"
    labeler = AllFailLabeler("model error: server gave up after 6 attempts")
    run = detect(items, labeler, checkpoint=ckpt)
    assert run.batch.counts["model_error"] == 2 and run.batch.counts["ok"] == 0
    o = run.metrics["overall"]
    # the one-document item is a failed item too, never a true negative
    assert (o.tp, o.fp, o.fn, o.tn, o.failed_items) == (0, 0, 0, 0, 2)
    assert (o.n_pairs, o.failed_pairs) == (3, 3)
    labeler.healed = True
    kept = detect(items, labeler, checkpoint=ckpt)  # plain resume keeps the failures
    assert labeler.calls == 2 and kept.metrics["overall"].failed_items == 2
    retried = detect(items, labeler, checkpoint=ckpt, retry_failed=True)
    assert labeler.calls == 4
    r = retried.metrics["overall"]
    assert (r.tp, r.tn, r.failed_items, r.failed_pairs) == (1, 1, 0, 0)


def test_item_whose_every_pair_is_unparsable_is_a_parse_error(tmp_path: Path) -> None:
    run = detect([_item(1, ["yes", "no"], [S, C])], AllFailLabeler("no label in reply"))
    assert run.batch.counts["parse_error"] == 1
    record = run.batch.records[0]
    assert record.raw == "garbled" and "every pair failed" in (record.error or "")
    assert run.metrics["overall"].failed_items == 1


def test_detect_with_lexical_labeler_on_real_macnoise(shared_data: Path) -> None:
    from conflicteval.conflictbench import build_conflictbench
    from conflicteval.conflictscore import LexicalLabeler

    path = shared_data / "macnoise" / "GPT_trainx_chatgptpert_samples.json"
    built = build_conflictbench([("macnoise", path, {"level": "25", "variant": "nq"})], seed=0)
    run = detect(built.items, LexicalLabeler())
    overall = run.metrics["overall"]
    assert overall.n_items == len(built.items) == 5
    assert overall.scored_items + overall.failed_items == 5
    assert run.batch.counts["ok"] == 5
    assert sum(overall.relation_total.values()) + overall.failed_pairs == overall.n_pairs


def test_predict_response_conflict_and_metrics_from_predictions() -> None:
    from conflicteval.conflictbench.metrics import (
        metrics_from_predictions,
        predict_response_conflict,
    )

    S, C, IRR = "SUPPORTS", "CONTRADICTS", "IRRELEVANT"
    assert predict_response_conflict([[S, IRR], [S, C]]) is True  # CS-C > 0
    assert predict_response_conflict([[S, IRR], [IRR, IRR]]) is False
    assert predict_response_conflict([[S, None], [IRR, IRR]]) is None  # None could be C
    assert predict_response_conflict([[S, None], [S, C]]) is True  # a conflict stands
    assert predict_response_conflict([[S, S, None, IRR]]) is None
    assert predict_response_conflict([[IRR, None]]) is False  # one failure cannot add S and C
    assert predict_response_conflict([]) is None
    m = metrics_from_predictions([(True, True), (False, True), (None, False), (False, False)])
    assert (m.n_items, m.tp, m.fn, m.tn, m.fp, m.failed_items) == (4, 1, 1, 1, 0, 1)
    assert m.accuracy == pytest.approx(2 / 3) and m.recall == pytest.approx(0.5)
    assert m.precision == 1.0 and m.acc_noconf == 1.0
