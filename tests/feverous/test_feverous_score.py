"""The FEVEROUS scorer: the reference test vector and one test per rule."""

from __future__ import annotations

import copy
import unicodedata
from typing import Any

import numpy as np
import pytest

from conflicteval.feverous import (
    EvidenceSet,
    ScoreInputError,
    score,
    truncate_predictions,
)
from conflicteval.feverous.feverous_score import score_intervals
from conflicteval.stats import resample_counts


def _inst(label: str, evidence: Any, predicted_label: str, predicted: list[Any]) -> dict:
    return {
        "label": label,
        "evidence": evidence,
        "predicted_label": predicted_label,
        "predicted_evidence": predicted,
    }


def _sentences(page: str, n: int, start: int = 0) -> list[str]:
    return [f"{page}_sentence_{i}" for i in range(start, start + n)]


def _cells(page: str, n: int) -> list[str]:
    return [f"{page}_cell_0_{i}_1" for i in range(n)]


THREE_CLAIMS = [
    # (a) label correct, the gold set fully predicted.
    _inst(
        "SUPPORTS", [["A_sentence_0", "A_cell_0_1_1"]], "SUPPORTS", ["A_sentence_0", "A_cell_0_1_1"]
    ),
    # (b) wrong label; one gold element among three predictions.
    _inst(
        "REFUTES",
        [["B_sentence_0", "B_sentence_1"]],
        "SUPPORTS",
        ["B_sentence_0", "B_sentence_5", "B_cell_0_2_2"],
    ),
    # (c) NOT ENOUGH INFO, label correct, no predictions (and no gold evidence).
    _inst("NOT ENOUGH INFO", [], "NOT ENOUGH INFO", []),
]


def test_reference_three_claim_vector() -> None:
    result = score(THREE_CLAIMS)
    assert [round(x, 4) for x in result.as_tuple()] == [0.3333, 0.6667, 0.7778, 0.6667, 0.7179]
    assert result.n == 3
    rows = result.per_claim
    assert [r.strict for r in rows] == [True, False, False]
    assert [r.label_correct for r in rows] == [True, False, True]
    assert [round(r.precision, 4) for r in rows] == [1.0, 0.3333, 1.0]
    assert [r.recall for r in rows] == [1.0, 0.0, 1.0]
    assert [r.matched_set for r in rows] == [0, None, None]
    assert result.summary() == {
        "strict": result.strict,
        "label_accuracy": result.label_accuracy,
        "precision": result.precision,
        "recall": result.recall,
        "f1": result.f1,
        "n": 3,
        "strict_ci": result.strict_ci,
        "label_accuracy_ci": result.label_accuracy_ci,
        "precision_ci": result.precision_ci,
        "recall_ci": result.recall_ci,
        "f1_ci": result.f1_ci,
    }


def test_sentence_budget_is_five_and_separate_from_cells() -> None:
    gold_sentence = "P_sentence_5"
    predicted = [*_sentences("P", 5), *_cells("P", 25), gold_sentence]
    row = score([_inst("SUPPORTS", [[gold_sentence]], "SUPPORTS", predicted)]).per_claim[0]
    assert row.strict is False and row.recall == 0.0
    assert (row.n_predicted, row.n_truncated) == (30, 1)
    # Within budget it counts, even after 25 cells.
    predicted = [*_sentences("P", 4), *_cells("P", 25), gold_sentence]
    assert score([_inst("SUPPORTS", [[gold_sentence]], "SUPPORTS", predicted)]).strict == 1.0


def test_cell_budget_is_25_shared_by_cells_headers_captions_and_items() -> None:
    table_like = [
        *_cells("P", 22),
        "P_header_cell_0_0_0",
        "P_table_caption_0",
        "P_item_0_0",
    ]
    gold = "P_cell_5_5_5"
    row = score([_inst("SUPPORTS", [[gold]], "SUPPORTS", [*table_like, gold])]).per_claim[0]
    assert row.recall == 0.0 and row.n_truncated == 1
    # Sections and titles spend the sentence budget, not the cell budget.
    others = ["P_section_0", "P_title", "P_sentence_0", "P_sentence_1"]
    row = score(
        [
            _inst(
                "SUPPORTS",
                [[gold, "P_sentence_9"]],
                "SUPPORTS",
                [*others, *table_like[:24], gold, "P_sentence_9"],
            )
        ]
    ).per_claim[0]
    assert row.recall == 1.0 and row.n_truncated == 0


def test_custom_and_unlimited_budgets() -> None:
    predicted = _sentences("P", 8)
    gold = [["P_sentence_7"]]
    assert score([_inst("SUPPORTS", gold, "SUPPORTS", predicted)]).strict == 0.0
    assert score([_inst("SUPPORTS", gold, "SUPPORTS", predicted)], max_sentences=8).strict == 1.0
    assert score([_inst("SUPPORTS", gold, "SUPPORTS", predicted)], max_sentences=None).strict == 1.0
    kept = truncate_predictions([("P", "cell", "0_0_0")] * 3, max_cells=2)
    assert kept == [("P", "cell", "0_0_0")] * 2


def test_duplicates_count_against_budget_and_precision() -> None:
    # Five copies of one sentence use the whole budget: the second gold sentence is cut.
    predicted = ["P_sentence_0"] * 5 + ["P_sentence_1"]
    row = score(
        [_inst("SUPPORTS", [["P_sentence_0", "P_sentence_1"]], "SUPPORTS", predicted)]
    ).per_claim[0]
    assert (row.recall, row.strict, row.precision, row.n_predicted) == (0.0, False, 1.0, 5)
    # Duplicates stay in the precision denominator.
    row = score(
        [
            _inst(
                "SUPPORTS",
                [["P_sentence_0"]],
                "SUPPORTS",
                ["P_sentence_0", "P_sentence_0", "P_sentence_3"],
            )
        ]
    ).per_claim[0]
    assert row.precision == pytest.approx(2 / 3)


def test_not_enough_info_gets_no_exemption() -> None:
    # FEVER would score a correct NEI label without evidence; FEVEROUS does not.
    nei = _inst("NOT ENOUGH INFO", [["P_sentence_0"]], "NOT ENOUGH INFO", [])
    result = score([nei])
    assert result.label_accuracy == 1.0
    assert result.strict == 0.0
    nei_with_evidence = _inst(
        "NOT ENOUGH INFO", [["P_sentence_0"]], "NOT ENOUGH INFO", ["P_sentence_0"]
    )
    assert score([nei_with_evidence]).strict == 1.0


def test_empty_prediction_has_precision_one_and_recall_zero() -> None:
    row = score([_inst("SUPPORTS", [["P_sentence_0"]], "REFUTES", [])]).per_claim[0]
    assert (row.precision, row.recall, row.n_predicted) == (1.0, 0.0, 0)


def test_empty_gold_evidence_gives_recall_one_and_strict_zero() -> None:
    row = score([_inst("SUPPORTS", [], "SUPPORTS", ["P_sentence_0"])]).per_claim[0]
    assert (row.label_correct, row.strict, row.recall, row.precision) == (True, False, 1.0, 0.0)


def test_an_empty_gold_set_is_trivially_covered() -> None:
    # As in the official code: all() over an empty set is true.
    row = score([_inst("SUPPORTS", [[]], "SUPPORTS", [])]).per_claim[0]
    assert (row.strict, row.recall, row.matched_set) == (True, 1.0, 0)


def test_labels_compare_case_insensitively() -> None:
    result = score(
        [
            _inst("SUPPORTS", [["P_sentence_0"]], "supports", ["P_sentence_0"]),
            _inst("not enough info", [["P_sentence_0"]], "Not Enough Info", ["P_sentence_0"]),
            _inst("REFUTES", [["P_sentence_0"]], "refute", ["P_sentence_0"]),
        ]
    )
    assert [r.label_correct for r in result.per_claim] == [True, True, False]
    assert result.strict == pytest.approx(2 / 3)


def test_ids_match_exactly_unicode_and_case_sensitive() -> None:
    nfc = "Café_sentence_0"
    nfd = unicodedata.normalize("NFD", nfc)
    assert nfc != nfd
    assert score([_inst("SUPPORTS", [[nfc]], "SUPPORTS", [nfd])]).recall == 0.0
    assert score([_inst("SUPPORTS", [[nfc]], "SUPPORTS", ["café_sentence_0"])]).recall == 0.0
    assert score([_inst("SUPPORTS", [[nfc]], "SUPPORTS", [nfc])]).recall == 1.0


def test_any_one_gold_set_suffices_and_recall_ignores_the_label() -> None:
    gold = [["P_sentence_0", "P_sentence_1"], ["Q_cell_0_1_1"]]
    row = score([_inst("SUPPORTS", gold, "REFUTES", ["Q_cell_0_1_1"])]).per_claim[0]
    assert (row.recall, row.strict, row.matched_set) == (1.0, False, 1)
    # Precision counts an element found in any gold set.
    row = score([_inst("SUPPORTS", gold, "SUPPORTS", ["P_sentence_1", "Q_cell_0_1_1"])]).per_claim[
        0
    ]
    assert row.precision == 1.0


def test_triples_strings_and_set_objects_are_interchangeable() -> None:
    as_strings = _inst(
        "SUPPORTS", [["P_sentence_0", "P_cell_0_1_2"]], "SUPPORTS", ["P_cell_0_1_2", "P_sentence_0"]
    )
    as_triples = _inst(
        "SUPPORTS",
        [[["P", "sentence", "0"], ("P", "cell", "0_1_2")]],
        "SUPPORTS",
        [["P", "cell", "0_1_2"], "P_sentence_0"],
    )
    as_release = _inst(
        "SUPPORTS",
        [{"content": ["P_sentence_0", "P_cell_0_1_2"], "context": {"P_sentence_0": ["P_title"]}}],
        "SUPPORTS",
        [["P", "cell", "0_1_2"], ["P", "sentence", "0"]],
    )
    as_model = _inst(
        "SUPPORTS",
        [EvidenceSet(content=["P_sentence_0", "P_cell_0_1_2"])],
        "SUPPORTS",
        ["P_cell_0_1_2", "P_sentence_0"],
    )
    for instance in (as_strings, as_triples, as_release, as_model):
        assert score([instance]).as_tuple() == (1.0, 1.0, 1.0, 1.0, 1.0)


def test_input_is_never_mutated() -> None:
    instances = [
        *copy.deepcopy(THREE_CLAIMS),
        _inst("SUPPORTS", [["P_sentence_9"]], "SUPPORTS", _sentences("P", 10)),
    ]
    before = copy.deepcopy(instances)
    score(instances)
    score(instances)
    assert instances == before


def test_division_by_zero_returns_zero() -> None:
    empty = score([])
    # The official code raises ZeroDivisionError for strict and accuracy; its
    # precision of an empty input is 1.0 and recall 0.0.
    assert empty.as_tuple() == (0.0, 0.0, 1.0, 0.0, 0.0)
    assert empty.n == 0
    # Precision and recall both 0: F1 is 0.0 instead of ZeroDivisionError.
    both_zero = score([_inst("SUPPORTS", [["P_sentence_0"]], "SUPPORTS", ["P_sentence_1"])])
    assert (both_zero.precision, both_zero.recall, both_zero.f1) == (0.0, 0.0, 0.0)


def test_per_claim_rows_carry_ids_and_accept_generators() -> None:
    instances = ({**inst, "id": 100 + i} for i, inst in enumerate(THREE_CLAIMS))
    result = score(instances)
    assert [r.id for r in result.per_claim] == [100, 101, 102]
    assert [r.index for r in result.per_claim] == [0, 1, 2]


@pytest.mark.parametrize(
    ("instance", "field"),
    [
        ({"evidence": [], "predicted_label": "S", "predicted_evidence": []}, "label"),
        ({"label": "S", "evidence": [], "predicted_evidence": []}, "predicted_label"),
        ({"label": "S", "predicted_label": "S", "predicted_evidence": []}, "evidence"),
        ({"label": "S", "evidence": [], "predicted_label": "S"}, "predicted_evidence"),
        (
            {
                "label": "S",
                "evidence": ["P_sentence_0"],
                "predicted_label": "S",
                "predicted_evidence": [],
            },
            "evidence[0]",
        ),
        (
            {
                "label": "S",
                "evidence": [[]],
                "predicted_label": "S",
                "predicted_evidence": ["P_bogus_1"],
            },
            "predicted_evidence[0]",
        ),
        (
            {
                "label": "S",
                "evidence": [[["P", "sentence"]]],
                "predicted_label": "S",
                "predicted_evidence": [],
            },
            "evidence[0][0]",
        ),
        (
            {
                "label": "S",
                "evidence": [{"context": {}}],
                "predicted_label": "S",
                "predicted_evidence": [],
            },
            "evidence[0].content",
        ),
        ({"label": 1, "evidence": [], "predicted_label": "S", "predicted_evidence": []}, "label"),
    ],
)
def test_malformed_instances_name_the_instance_and_field(instance: dict, field: str) -> None:
    good = _inst("SUPPORTS", [], "SUPPORTS", [])
    with pytest.raises(ScoreInputError) as info:
        score([good, instance])
    assert (info.value.index, info.value.field) == (1, field)
    assert f"instance 1, field {field!r}" in str(info.value)


# -- intervals beside the official figures ---------------------------------


def test_official_figures_unchanged_and_intervals_beside_them() -> None:
    result = score(THREE_CLAIMS)
    assert [round(x, 4) for x in result.as_tuple()] == [0.3333, 0.6667, 0.7778, 0.6667, 0.7179]
    for name in ("strict", "label_accuracy", "precision", "recall", "f1"):
        low, high = getattr(result, f"{name}_ci")
        assert 0.0 <= low <= high <= 1.0
    # strict per claim is 1, 0, 0: the resampled share of three claims
    counts = np.concatenate(list(resample_counts(3, 1000, 0)))
    strict = counts @ np.array([1.0, 0.0, 0.0]) / 3
    assert result.strict_ci == pytest.approx(list(np.quantile(strict, [0.025, 0.975])))
    p = counts @ np.array([r.precision for r in result.per_claim]) / 3
    r = counts @ np.array([r.recall for r in result.per_claim]) / 3
    f1 = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1.0), 0.0)
    assert result.f1_ci == pytest.approx(list(np.quantile(f1, [0.025, 0.975])))
    assert score_intervals(result.per_claim) == {
        k: getattr(result, k)
        for k in ("strict_ci", "label_accuracy_ci", "precision_ci", "recall_ci", "f1_ci")
    }


def test_empty_input_keeps_the_official_values_and_has_no_interval() -> None:
    result = score([])
    assert result.as_tuple() == (0.0, 0.0, 1.0, 0.0, 0.0)
    assert result.strict_ci is None and result.f1_ci is None
