"""The published FEVEROUS figures stored as data agree with themselves: each share with its
counts, F1 with precision and recall, and both splits of the paper's Table 3 are there."""

from __future__ import annotations

import pytest

from conflicteval.feverous.published import DEV_BASELINE, PAPER_TABLE3


def test_dev_baseline_shares_match_their_counts_and_f1_its_parts() -> None:
    n = DEV_BASELINE["claims"]
    assert n == 7890
    assert round(DEV_BASELINE["strict_correct"] / n, 4) == DEV_BASELINE["strict"] == 0.1951
    assert round(DEV_BASELINE["label_correct"] / n, 4) == DEV_BASELINE["label_accuracy"] == 0.5868
    p, r = DEV_BASELINE["precision"], DEV_BASELINE["recall"]
    assert (p, r) == (0.1181, 0.2933)
    assert 2 * p * r / (p + r) == pytest.approx(DEV_BASELINE["f1"], abs=1e-4)


def test_paper_table3_has_both_splits_as_printed() -> None:
    assert PAPER_TABLE3 == {
        "dev": {"feverous_score": 0.19, "evidence_recall": 0.29},
        "test": {"feverous_score": 0.18, "evidence_recall": 0.29},
    }
