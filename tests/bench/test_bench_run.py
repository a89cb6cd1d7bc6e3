"""Running labelers over gold sets: exact figures, failures, resume, executors."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflicteval.bench import GoldItem, GoldSet, run_labeler_bench
from conflicteval.errors import CheckpointMismatch
from conflicteval.types import Document

from .helpers import RAMDOCS_SAMPLE, TableLabeler, sample


def _gold() -> GoldSet:
    """Three questions, eight pairs: gold S S C I | S C | I I."""

    def item(k: int, golds: list[str]) -> GoldItem:
        docs = tuple(Document(id=f"{k}:{j}", text=f"q{k} d{j}") for j in range(len(golds)))
        return GoldItem(id=f"q{k}", claim=f"claim {k}", documents=docs, gold=tuple(golds))

    return GoldSet(
        "scripted",
        [
            item(1, ["SUPPORTS", "SUPPORTS", "CONTRADICTS", "IRRELEVANT"]),
            item(2, ["SUPPORTS", "CONTRADICTS"]),
            item(3, ["IRRELEVANT", "IRRELEVANT"]),
        ],
    )


ANSWERS: dict[str, str | None] = {
    "q1 d0": "SUPPORTS",
    "q1 d1": "CONTRADICTS",  # a gold SUPPORTS read as CONTRADICTS
    "q1 d2": "CONTRADICTS",
    "q1 d3": "IRRELEVANT",
    "q2 d0": "SUPPORTS",
    "q2 d1": None,  # a failed pair: counted, and wrong
    "q3 d0": "IRRELEVANT",
    "q3 d1": "SUPPORTS",  # a gold IRRELEVANT read as SUPPORTS
}


def test_scripted_labeler_gives_the_exact_figures() -> None:
    result = run_labeler_bench(_gold(), TableLabeler(ANSWERS))
    m = result.metrics
    assert m.confusion == [[2, 1, 0, 0], [0, 1, 0, 1], [1, 0, 2, 0]]
    assert (m.n, m.failed) == (8, 1)
    assert m.accuracy == pytest.approx(5 / 8)
    assert m.answered_accuracy == pytest.approx(5 / 7)
    s, c, i = (m.per_class[x] for x in ("SUPPORTS", "CONTRADICTS", "IRRELEVANT"))
    assert (s.precision, s.recall, s.support) == (2 / 3, 2 / 3, 3)
    assert (c.precision, c.recall, c.support) == (1 / 2, 1 / 2, 2)
    assert (i.precision, i.recall, i.support) == (1.0, 2 / 3, 3)
    assert i.f1 == pytest.approx(0.8)
    assert m.macro_f1 == pytest.approx((2 / 3 + 1 / 2 + 0.8) / 3)
    assert m.units == 3  # the bootstrap resamples the three questions
    data = result.to_dict()
    for key in ("accuracy", "macro_f1", "per_class", "confusion", "n", "failed"):
        assert key in data
    assert data["accuracy_ci"][0] <= data["accuracy"] <= data["accuracy_ci"][1]
    assert data["per_class"]["SUPPORTS"]["f1_ci"] is not None
    assert data["confusion"]["CONTRADICTS"] == {
        "SUPPORTS": 0,
        "CONTRADICTS": 1,
        "IRRELEVANT": 0,
        "failed": 1,
    }
    assert result.counts["failed_pairs"] == 1 and result.counts["ok"] == 3
    text = result.summary()
    assert "1 failed pairs (counted as wrong)" in text and "macro-F1 0.6556" in text


def test_model_errors_fail_the_item_and_are_counted_not_dropped() -> None:
    answers = {**ANSWERS, "q2 d0": "raise"}
    result = run_labeler_bench(_gold(), TableLabeler(answers))
    assert result.counts["model_error"] == 1
    assert (result.metrics.n, result.metrics.failed) == (8, 2)
    assert result.records[1].status == "model_error" and result.records[1].labels == [None, None]
    assert result.metrics.accuracy == pytest.approx(4 / 8)


def test_pandas_rows_carry_intervals() -> None:
    pytest.importorskip("pandas", reason="the pandas extra is not installed")
    df = run_labeler_bench(_gold(), TableLabeler(ANSWERS)).to_pandas()
    row = df[(df.figure == "f1") & (df.label == "IRRELEVANT")].iloc[0]
    assert row.value == pytest.approx(0.8) and row.ci_low <= 0.8 <= row.ci_high
    assert set(df.figure) == {
        "accuracy",
        "answered_accuracy",
        "macro_f1",
        "precision",
        "recall",
        "f1",
    }


def test_a_checkpointed_run_resumes_without_calls_and_refuses_another_labeler(
    tmp_path: Path,
) -> None:
    ckpt = tmp_path / "checkpoint.jsonl"
    first = TableLabeler(ANSWERS)
    a = run_labeler_bench(_gold(), first, checkpoint=ckpt)
    assert first.calls == 3
    again = TableLabeler(ANSWERS)
    b = run_labeler_bench(_gold(), again, checkpoint=ckpt)
    assert again.calls == 0 and b.batch is not None and b.batch.resumed == 3
    assert b.metrics == a.metrics
    with pytest.raises(CheckpointMismatch):
        run_labeler_bench(_gold(), TableLabeler({}), checkpoint=ckpt)


def test_an_edited_document_is_labelled_again_on_resume(tmp_path: Path) -> None:
    """A record is tied to the claim and documents it labelled: after one document of q2
    changes, a resumed run labels q2 again and resumes q1 and q3 without a call."""
    ckpt = tmp_path / "checkpoint.jsonl"
    answers = {**ANSWERS, "q2 d1 edited": "CONTRADICTS"}
    run_labeler_bench(_gold(), TableLabeler(answers), checkpoint=ckpt)
    gold = _gold()
    q2 = gold.items[1]
    edited = (q2.documents[0], Document(id="2:1", text="q2 d1 edited"))
    gold.items[1] = GoldItem(id=q2.id, claim=q2.claim, documents=edited, gold=q2.gold)
    labeler = TableLabeler(answers)
    result = run_labeler_bench(gold, labeler, checkpoint=ckpt)
    assert labeler.calls == 1
    assert result.batch is not None and (result.batch.resumed, result.batch.changed) == (2, 1)
    assert (result.metrics.n, result.metrics.failed) == (8, 0)  # the failed pair is gone


def test_lexical_labeler_on_the_ramdocs_sample(shared_data: Path) -> None:
    from conflicteval.conflictscore import LexicalLabeler

    result = run_labeler_bench(
        "ramdocs", LexicalLabeler(), data=sample(shared_data, RAMDOCS_SAMPLE)
    )
    assert result.metrics.n == 119 and result.metrics.failed == 0
    support = {k: v.support for k, v in result.metrics.per_class.items()}
    assert support == {"SUPPORTS": 65, "CONTRADICTS": 21, "IRRELEVANT": 33}
    assert sum(map(sum, result.metrics.confusion)) == 119
    assert result.usage.calls == 0 and result.cost_usd is None
