"""The offline LexicalLabeler: its rules, and its figures on the real MacNoise samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflicteval.conflictscore import LabelResult, LexicalLabeler
from conflicteval.conflictscore.macnoise_check import (
    claim_of,
    evaluate_pairs,
    macnoise_pairs,
    strip_prefix,
)
from conflicteval.types import Document

S, C, IRR = "SUPPORTS", "CONTRADICTS", "IRRELEVANT"

CASES = [
    # (claim, document, expected label, word expected in the reasoning)
    (
        "The Halden Canal opened in 1847.",
        "The Halden Canal opened in 1847 after six years.",
        S,
        "no",
    ),
    ("The Halden Canal opened in 1847.", "The Halden Canal only opened in 1851.", C, "number"),
    (
        "The show ran for four seasons.",
        "The show ran for its fourth and final season in 2016.",
        S,
        "no",
    ),
    (
        "The show ran for four seasons.",
        "The show ran for its 1607th and final season.",
        C,
        "number",
    ),
    ("The canal opened in March 1847.", "The canal opened in June 1847.", C, "date"),
    (
        "The Pittsburgh Steelers have the most Super Bowl titles.",
        "The Dallas Cowboys have the most Super Bowl titles.",
        C,
        "name",
    ),
    ("The bridge is open to cyclists.", "The bridge is not open to cyclists.", C, "negation"),
    ("The bridge is open to cyclists.", "Tomatoes grow well in warm weather.", IRR, "threshold"),
    (
        "Sources disagree on when the canal opened: some give 1847, others 1851.",
        "The canal opened in 1851.",
        S,
        "no",
    ),
]


@pytest.mark.parametrize(("claim", "doc", "expected", "why"), CASES)
def test_lexical_rules(claim: str, doc: str, expected: str, why: str) -> None:
    pair = LexicalLabeler().label_pair(claim, doc)
    assert pair.label == expected, pair.reasoning
    assert why in (pair.reasoning or "")
    if expected != IRR:
        assert pair.snippet  # the evidence sentence


def test_lexical_labeler_interface() -> None:
    docs = [Document(id="a", text="The canal opened in 1847."), Document(id="b", text="Cats purr.")]
    result = LexicalLabeler().label_sync(["The canal opened in 1847.", "Dogs bark."], docs)
    assert isinstance(result, LabelResult)
    assert result.calls == 0 and result.usage.total_tokens == 0
    assert result.labels == [[S, IRR], [IRR, IRR]]
    assert [[(p.claim_index, p.doc_index) for p in row] for row in result.pairs] == [
        [(0, 0), (0, 1)],
        [(1, 0), (1, 1)],
    ]


def test_prefix_and_claim_helpers() -> None:
    assert strip_prefix("title: Super Bowl context: The game ...") == "The game ..."
    assert strip_prefix("title: The History Context: The NFL ...") == "The NFL ..."
    assert strip_prefix("No prefix here.") == "No prefix here."
    assert claim_of("which nfl team has the most super bowls", "Pittsburgh Steelers") == (
        "which nfl team has the most super bowls? Pittsburgh Steelers."
    )


# The figures reported in docs/conflictscore.md ("The lexical baseline on MacNoise").
MACNOISE_FIGURES = {
    "GPT_trainx_chatgptpert_samples.json": {S: (20, 20), C: (8, 20)},
    "GPT_trainx_longpre_samples.json": {S: (20, 20), C: (17, 20)},
}
# ... and what the missed CONTRADICTS pairs were labelled instead (also stated there).
MACNOISE_MISSES = {
    "GPT_trainx_chatgptpert_samples.json": {S: 8, IRR: 4},
    "GPT_trainx_longpre_samples.json": {S: 3},
}


@pytest.mark.parametrize("name", sorted(MACNOISE_FIGURES))
def test_lexical_figures_on_real_macnoise_match_the_docs(shared_data: Path, name: str) -> None:
    pairs = macnoise_pairs(shared_data / "macnoise" / name)
    assert all("context:" not in p.document.text[:200].lower() for p in pairs)
    result = evaluate_pairs(LexicalLabeler(), pairs)
    for relation, (correct, total) in MACNOISE_FIGURES[name].items():
        assert (result.correct.get(relation, 0), result.total[relation]) == (correct, total)
    assert result.accuracy(S) == 1.0
    misses = {k: v for k, v in result.confusion[C].items() if k != C}
    assert misses == MACNOISE_MISSES[name]


def test_docs_report_the_same_figures() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "conflictscore.md").read_text("utf-8")
    assert "| chatgptpert (LLM-written) | 20/20 (1.00) | 8/20 (0.40) |" in docs
    assert "| longpre (entity swap) | 20/20 (1.00) | 17/20 (0.85) |" in docs
    flat = " ".join(docs.split())
    assert "The 12 chatgptpert misses are 8 labelled SUPPORTS and 4 IRRELEVANT." in flat
    assert "The 3 longpre misses are all SUPPORTS." in flat
