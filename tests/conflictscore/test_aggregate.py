"""aggregate / aggregate_batch on hand-worked tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conflicteval.conflictscore import aggregate, aggregate_batch, encode_table
from conflicteval.types import PairLabel

S, C, IRR = "SUPPORTS", "CONTRADICTS", "IRRELEVANT"

# The Figure 2 situation: 6 claims, 4 documents, 4 claims conflicted.
# Ratios |D-|/(|D+|+|D-|) by hand: 1, 1, 3/4, 1/2, 1/2, 1/2 -> sum 4.25, mean 0.7083.
FIGURE2 = [
    [C, C, IRR, IRR],  # contradicted only: ratio 1, not conflicted
    [C, IRR, C, IRR],  # contradicted only: ratio 1, not conflicted
    [S, C, C, C],  # conflicted, 3/4
    [S, C, IRR, IRR],  # conflicted, 1/2
    [S, C, IRR, IRR],  # conflicted, 1/2
    [S, S, C, C],  # conflicted, 2/4
]


def test_figure2_cs_c_067_and_cs_r_071() -> None:
    agg = aggregate(FIGURE2)
    assert agg.n_claims == 6 and agg.n_documents == 4
    assert agg.n_conflicted == 4
    assert agg.cs_c == pytest.approx(4 / 6)
    assert round(agg.cs_c, 2) == 0.67
    assert agg.cs_r == pytest.approx(4.25 / 6)
    assert round(agg.cs_r, 2) == 0.71
    assert agg.conflicted == [False, False, True, True, True, True]
    assert agg.conflicted_claims == [2, 3, 4, 5]
    assert agg.supporting == [[], [], [0], [0], [0], [0, 1]]
    assert agg.contradicting == [[0, 1], [0, 2], [1, 2, 3], [1], [1], [2, 3]]
    assert agg.ratios == pytest.approx([1.0, 1.0, 0.75, 0.5, 0.5, 0.5])
    assert agg.n_evidenced == 6 and agg.n_no_evidence == 0 and agg.n_failed_pairs == 0


def test_all_irrelevant_cs_c_zero_cs_r_undefined() -> None:
    agg = aggregate([[IRR, IRR, IRR], [IRR, IRR, IRR]])
    assert agg.cs_c == 0.0
    assert agg.cs_r is None  # no claim has evidence: 0/0 is not made into a number
    assert agg.cs_r_all == 0.0
    assert agg.n_no_evidence == 2 and agg.n_evidenced == 0
    assert agg.ratios == [None, None]


def test_no_evidence_claims_left_out_of_cs_r_but_counted() -> None:
    agg = aggregate([[S, C], [IRR, IRR], [C, IRR]])
    assert agg.cs_c == pytest.approx(1 / 3)  # every claim counts in CS-C
    assert agg.cs_r == pytest.approx((0.5 + 1.0) / 2)  # the IRRELEVANT-only claim is left out
    assert agg.cs_r_all == pytest.approx((0.5 + 0.0 + 1.0) / 3)
    assert agg.n_no_evidence == 1


@pytest.mark.parametrize("table", [[], np.zeros((0, 3), dtype=np.int8)])
def test_zero_claims_is_undefined_not_nan(table: object) -> None:
    agg = aggregate(table)
    assert agg.n_claims == 0
    assert agg.cs_c is None and agg.cs_r is None and agg.cs_r_all is None
    dumped = agg.model_dump_json()
    assert "NaN" not in dumped


def test_failed_pairs_are_excluded_and_counted_never_irrelevant() -> None:
    table = [[S, None], [None, None], [C, S]]
    agg = aggregate(table)
    assert agg.n_failed_pairs == 3 and agg.n_pairs == 6
    assert agg.failed == [[1], [0, 1], []]
    assert agg.n_unlabelled == 1  # claim 1: every pair failed
    assert agg.n_scored == 2
    assert agg.cs_c == pytest.approx(1 / 2)
    assert agg.cs_r == pytest.approx((0.0 + 0.5) / 2)
    # Read as IRRELEVANT, claim 1 would be a scored no-evidence claim and CS-C 1/3.
    assert agg.n_no_evidence == 0


def test_only_failed_pairs_gives_undefined_scores() -> None:
    agg = aggregate([[None, None]])
    assert agg.n_unlabelled == 1
    assert agg.cs_c is None and agg.cs_r is None


def test_claims_without_documents() -> None:
    agg = aggregate([[], []])
    assert agg.n_claims == 2 and agg.n_documents == 0
    assert agg.cs_c == 0.0 and agg.cs_r is None and agg.n_no_evidence == 2


def test_input_forms_agree() -> None:
    strings = [[S, C, None], [IRR, "supports", "Contradicted"]]
    rows = [
        [
            PairLabel(claim_index=i, doc_index=j, label=v if v in (S, C, IRR) else None)
            for j, v in enumerate(row)
        ]
        for i, row in enumerate([[S, C, None], [IRR, S, C]])
    ]
    codes = np.array([[1, 2, -1], [0, 1, 2]])
    text = np.array([[S, C, None], [IRR, S, C]], dtype=object)
    results = [aggregate(x) for x in (strings, rows, codes, text)]
    assert all(r == results[0] for r in results)
    assert results[0].cs_c == 1.0 and results[0].n_failed_pairs == 1
    assert encode_table(strings).tolist() == codes.tolist()


def test_bad_tables_are_rejected() -> None:
    with pytest.raises(ValueError, match="ragged"):
        aggregate([[S, C], [S]])
    with pytest.raises(ValueError, match="not a label"):
        aggregate([["MAYBE"]])
    with pytest.raises(ValueError, match="codes"):
        aggregate(np.array([[3]]))


def test_batch_matches_single_response_aggregation() -> None:
    rng = np.random.default_rng(7)
    tables = [
        rng.integers(-1, 3, size=(rng.integers(0, 6), rng.integers(0, 5))) for _ in range(300)
    ]
    tables += [[], [[IRR, IRR]], [[None]]]
    batch = aggregate_batch(tables)
    assert len(batch) == len(tables)
    for i, table in enumerate(tables):
        single = aggregate(table)
        got = batch.result(i)
        for name in ("cs_c", "cs_r", "cs_r_all"):
            want = getattr(single, name)
            assert (got[name] is None) == (want is None), (i, name)
            if want is not None:
                assert got[name] == pytest.approx(want)
        assert got["n_conflicted"] == single.n_conflicted
        assert got["n_unlabelled"] == single.n_unlabelled
        assert got["n_failed_pairs"] == single.n_failed_pairs
    summary = batch.summary()
    assert summary["cs_c_undefined"] == int((~batch.cs_c_defined).sum()) >= 2
    assert summary["cs_r_undefined"] >= 3
    defined = [batch.result(i)["cs_c"] for i in range(len(tables))]
    mean = sum(v for v in defined if v is not None) / sum(v is not None for v in defined)
    assert summary["mean_cs_c"] == pytest.approx(mean)
    assert summary["mean_cs_c"] is not None and not math.isnan(summary["mean_cs_c"])


def test_batch_of_a_million_labels_agrees_with_one_table_at_a_time() -> None:
    # What the batch form computes, checked against the per-table path; its speed is no unit
    # test's business (a CPU-time ratio failed once on an idle CI machine).
    rng = np.random.default_rng(0)
    tables = [rng.integers(-1, 3, size=(10, 10), dtype=np.int8) for _ in range(10_000)]
    batch = aggregate_batch(tables)
    assert int(batch.n_claims.sum()) * 10 == 1_000_000
    for i in range(0, len(tables), 97):
        one = aggregate(tables[i])
        assert batch.result(i)["cs_c"] == pytest.approx(one.cs_c, nan_ok=True)
        assert batch.result(i)["cs_r"] == pytest.approx(one.cs_r, nan_ok=True)
