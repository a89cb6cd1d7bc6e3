"""The lexical baseline judge and the agreement metrics."""

from __future__ import annotations

import numpy as np
import pytest

from conflicteval.wikicontradict import agreement, cohen_kappa, lexical_judge, worked_examples
from conflicteval.wikicontradict.judge_agreement import confusion_matrix
from conflicteval.wikicontradict.judge_lexical import answer_in_response, normalize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The U.S. Army", "u s army"),
        ("On December 8, 1967", "on 1967-12-08"),
        ("8th of December 1967", "1967-12-08"),
        ("1967-12-8", "1967-12-08"),
        ("in March 2020", "in 2020-03"),
        ("47,195 stores", "47195 stores"),
        ("twenty-six books", "26 books"),
        ("Café Déjà Vu", "cafe deja vu"),
        ("an apple and the pear", "apple and pear"),
        ("3.5 percent", "3.5 percent"),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


@pytest.mark.parametrize(
    ("answer", "response", "found"),
    [
        ("8 December 1967", "She was born on December 8th, 1967.", True),
        ("8 December 1967", "She was born on December 9, 1967.", False),
        ("115 years old", "who is 115 years of age", True),
        ("26 books", "twenty-six novels", True),
        ("Yes", "Yes, it did.", True),
        ("No.", "Yes, it did.", False),
        ("No", "There is no doubt it did not.", True),  # a known blind spot: 'no' as a word
        ("Knockavilla–Donaskeigh Kickhams", "He joined Knockavilla-Donaskeigh Kickhams.", True),
        ("Tipperary", "Galway played the final.", False),
        ("The Beatles", "the beatles released it", True),
    ],
)
def test_answer_in_response(answer: str, response: str, found: bool) -> None:
    assert answer_in_response(answer, response) is found


def test_lexical_agrees_with_all_eight_worked_examples() -> None:
    for ex in worked_examples():
        assert lexical_judge(ex.question, ex.answers, ex.response).label == ex.evaluation, ex.number


@pytest.mark.parametrize(
    ("response", "template", "label"),
    [
        ("Passage 1 says 12 km, while passage 2 says 15 km.", "5", "correct"),
        ("It is 12 km long.", "5", "partially correct"),
        ("It is 12 km and 15 km long.", "4", "incorrect"),
        ("It is 15 km long; the 12 km figure is incorrect.", "5", "partially correct"),
        ("Nobody knows.", "1", "incorrect"),
        ("It is 12 km long.", "2", "correct"),
        ("It is 15 km long.", "2", "incorrect"),
        ("Yes. One passage says 12 km, the other 15 km.", "5.2", "correct"),
        ("No, the context is consistent.", "5.2", "incorrect"),
        ("No, there is no conflicting information.", "5.4", "correct"),
        ("Yes, the passages contradict each other.", "5.4", "incorrect"),
    ],
)
def test_lexical_rules(response: str, template: str, label: str) -> None:
    answers = ["12 km"] if template == "2" else ["12 km", "15 km"]
    j = lexical_judge("How long is the lake?", answers, response, template)
    assert j.label == label, j.explanation


def test_agreement_figures_by_hand() -> None:
    human = ["correct", "correct", "partially correct", "incorrect", "incorrect", "correct"]
    judge = ["correct", "partially correct", "partially correct", "incorrect", "correct", None]
    rep = agreement(human, judge)
    assert (rep.n, rep.failed) == (5, 1)
    assert rep.accuracy == pytest.approx(3 / 5)
    c, pc, ic = (
        rep.per_class["correct"],
        rep.per_class["partially correct"],
        rep.per_class["incorrect"],
    )
    assert (c.precision, c.recall, c.f1, c.support) == (0.5, 0.5, 0.5, 2)
    assert (pc.precision, pc.recall) == (0.5, 1.0) and pc.f1 == pytest.approx(2 / 3)
    assert (ic.precision, ic.recall) == (1.0, 0.5) and ic.f1 == pytest.approx(2 / 3)
    assert rep.macro_f1 == pytest.approx((0.5 + 2 / 3 + 2 / 3) / 3)
    # po = 0.6; pe = (2*2 + 1*2 + 2*1) / 25 = 0.32; kappa = 0.28 / 0.68
    assert rep.kappa == pytest.approx(0.28 / 0.68)
    assert rep.confusion == [[1, 1, 0], [0, 1, 0], [1, 0, 1]]
    md = rep.to_markdown()
    assert "Acc 60.0" in md and "judge failures, not counted: 1" in md


def test_kappa_edges_and_errors() -> None:
    assert cohen_kappa(np.array([[3, 0], [0, 2]])) == 1.0
    assert cohen_kappa(np.zeros((3, 3), dtype=int)) == 0.0
    assert cohen_kappa(np.array([[4, 0], [0, 0]])) == 1.0  # one class, full agreement
    m = confusion_matrix(["correct", "incorrect"], ["incorrect", "correct"])
    assert cohen_kappa(m) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="unknown label 'right'"):
        agreement(["right"], ["correct"])
    with pytest.raises(ValueError, match="1 human labels but 2"):
        agreement(["correct"], ["correct", "correct"])


def test_macro_f1_ignores_classes_absent_from_both() -> None:
    rep = agreement(["correct", "incorrect"], ["correct", "incorrect"])
    assert rep.macro_f1 == 1.0 and rep.per_class["partially correct"].support == 0
