"""Score FEVEROUS predictions with the official rules, then verify claims with a labeler.

Run it from the project root:

    python examples/feverous_score.py                       # built-in three claims
    python examples/feverous_score.py ../shared/data/feverous/feverous_train_first10.jsonl

Needs nothing (offline, no key, no extra) and writes nothing: it prints its results.
With a claim file, it scores two made-up systems against the file's gold
evidence: an "oracle" that predicts each claim's label and first evidence set,
and a "sentences only" system that keeps only the sentences of that set.
Everything runs offline.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conflicteval.feverous import (
    EvidencePiece,
    VerifyItem,
    load_claims,
    parse_element_id,
    score,
    verify_sync,
)
from conflicteval.stats import format_ci
from conflicteval.types import Document, PairLabel, Relation

THREE_CLAIMS: list[dict[str, Any]] = [
    {  # label right, the gold set fully predicted: scores
        "label": "SUPPORTS",
        "evidence": [["Korean Air_sentence_0", "Korean Air_cell_1_19_0"]],
        "predicted_label": "supports",
        "predicted_evidence": ["Korean Air_cell_1_19_0", "Korean Air_sentence_0"],
    },
    {  # label wrong, one gold element among three predictions
        "label": "REFUTES",
        "evidence": [["Oyedaea_cell_0_7_0", "Oyedaea_cell_0_7_1"]],
        "predicted_label": "SUPPORTS",
        "predicted_evidence": ["Oyedaea_cell_0_7_0", "Oyedaea_sentence_0", "Oyedaea_cell_0_1_1"],
    },
    {  # NOT ENOUGH INFO without gold evidence never scores strictly
        "label": "NOT ENOUGH INFO",
        "evidence": [],
        "predicted_label": "NOT ENOUGH INFO",
        "predicted_evidence": [],
    },
]


def print_score(name: str, instances: list[dict[str, Any]]) -> None:
    """Print the five official numbers for ``instances``, each with its 95% interval."""
    result = score(instances)
    names = ("strict", "label_accuracy", "precision", "recall", "f1")
    numbers = ", ".join(
        f"{name} {getattr(result, name):.4f} {format_ci(getattr(result, name + '_ci'))}"
        for name in names
    )
    print(f"{name} ({result.n} claims): {numbers}")


def from_file(path: str) -> None:
    """Score an oracle and a sentences-only system against a claim file's gold evidence."""
    claims = load_claims(path)
    oracle: list[dict[str, Any]] = []
    sentences_only: list[dict[str, Any]] = []
    for claim in claims:
        if claim.label is None:
            sys.exit(f"{path}: the claims need gold labels to be scored")
        gold = [s.content for s in claim.evidence]
        first = gold[0] if gold else []
        base = {"id": claim.id, "label": claim.label, "evidence": gold}
        oracle.append({**base, "predicted_label": claim.label, "predicted_evidence": first})
        sentences = [e for e in first if parse_element_id(e).type == "sentence"]
        sentences_only.append(
            {**base, "predicted_label": claim.label, "predicted_evidence": sentences}
        )
    print_score("oracle", oracle)
    print_score("sentences only", sentences_only)


@dataclass
class YearResult:
    """What a labeler returns: ``pairs[claim][document]`` and the number of model calls."""

    pairs: list[list[PairLabel]]
    calls: int = 0


class YearLabeler:
    """A toy offline labeler: a year in the claim missing from the evidence contradicts it.

    Any ConflictScore labeler (``LexicalLabeler``, ``LLMLabeler``) fits in its place.
    """

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> YearResult:
        return YearResult(
            pairs=[
                [
                    PairLabel(claim_index=i, doc_index=j, label=self.decide(claim, doc.text))
                    for j, doc in enumerate(documents)
                ]
                for i, claim in enumerate(claims)
            ]
        )

    @staticmethod
    def decide(claim: str, text: str) -> Relation:
        years = [w for w in claim.replace(".", " ").split() if len(w) == 4 and w.isdigit()]
        if any(year not in text for year in years):
            return "CONTRADICTS"
        return "SUPPORTS" if years else "IRRELEVANT"


def verify_demo() -> None:
    """Label two claims against their evidence and report the verdict metrics."""
    items = [
        VerifyItem(
            id="1",
            claim="Bill Persky was born in 1931.",
            label="SUPPORTS",
            evidence=[EvidencePiece(id="a", title="Bill Persky", text="Born September 9, 1931.")],
        ),
        VerifyItem(
            id="2",
            claim="Bill Persky was born in 1941.",
            label="REFUTES",
            evidence=[EvidencePiece(id="b", title="Bill Persky", text="Born September 9, 1931.")],
        ),
    ]
    result = verify_sync(items, YearLabeler())
    m = result.metrics
    print(
        f"verify: label accuracy {m.label_accuracy:.2f} {format_ci(m.label_accuracy_ci, 2)}, "
        f"macro-F1 {m.macro_f1:.2f} {format_ci(m.macro_f1_ci, 2)}, "
        f"failed pairs {result.counts['failed_pairs']}"
    )


if __name__ == "__main__":
    print("needs: nothing (offline)", file=sys.stderr)
    print("output: none (prints its results)", file=sys.stderr)
    print_score("three claims", THREE_CLAIMS)
    if len(sys.argv) > 1:
        from_file(sys.argv[1])
    verify_demo()
