"""A scripted labeller that applies the paper's Table 7 labelling rules to ConflictBench items.

Table 7 (seed 003) asks, for one claim and one document: look for statements in the
document that address the same attributes the claim asserts; a statement that supports
the claim gives SUPPORTS, an incompatible one CONTRADICTS, neither IRRELEVANT.

This labeller decides each pair deterministically from what the claim text asserts and
what the document states according to the item's text and source metadata (AmbigDocs'
per-document ``answer`` and title, the question a document was retrieved for, the answer
aliases, whether a passage is a perturbation). It never reads a gold label, so a builder
whose gold labels do not follow the rules is caught by comparing the two.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from conflicteval.conflictbench import BenchDocument, BenchItem
from conflicteval.conflictbench.sources._common import normalize_answer
from conflicteval.types import Relation

_CLAIM = re.compile(
    r'^(?:For (?P<subject>.+?), )?[Tt]he answer to "(?P<question>.+)" is (?P<answer>.+)\.$'
)
SUBSTITUTE = "<a substituted answer>"


@dataclass(frozen=True)
class Assertion:
    """What a claim asserts: a value for an attribute (the question) of an entity."""

    subject: str | None  # the entity the claim is restricted to; None: as the question names it
    question: str
    answer: str


@dataclass(frozen=True)
class Statement:
    """What a document states about one attribute."""

    names: frozenset[str] | None  # names of its entity; None: the question's own subject
    question: str
    answers: frozenset[str]  # values it states (normalised); empty: it states none


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(" ?")


def parse_claim(claim: str) -> Assertion:
    """Read a template claim (``[For X, ]the answer to "Q" is A.``)."""
    match = _CLAIM.match(claim.strip())
    if match is None:
        raise ValueError(f"not a template claim: {claim!r}")
    subject = match.group("subject")
    return Assertion(
        subject=_norm(subject) if subject else None,
        question=_norm(match.group("question")),
        answer=normalize_answer(match.group("answer")),
    )


def document_statement(
    item: BenchItem, doc: BenchDocument, owners: Mapping[str, BenchItem]
) -> Statement:
    """What ``doc`` states, from its text and the metadata of the record it came from."""
    owner_id = doc.meta.get("drawn_from")
    owner = owners[owner_id] if owner_id else item
    question = _norm(owner.question)
    if owner.source == "ambigdocs":
        names = frozenset({_norm(doc.title or ""), _norm(owner.meta["ambiguous_entity"])})
        return Statement(names, question, frozenset({normalize_answer(doc.meta["answer"])}))
    aliases = [str(a) for a in owner.meta.get("answers") or []]
    if doc.synthetic:
        # MacNoise perturbations and ContraQA fakes are the sources' counterfactual
        # rewrites of an answer-bearing passage: they state another answer (or deny
        # it, e.g. "the song was not written in 1973"), whatever strings they keep.
        values = frozenset({SUBSTITUTE})
    elif any(_mentions(doc.text, a) for a in aliases):
        values = frozenset(normalize_answer(a) for a in aliases)
    else:
        values = frozenset()
    return Statement(None, question, values)


def _mentions(text: str, answer: str) -> bool:
    """The answer string occurs in the text (case and spacing ignored), as the sources test it."""
    needle = " ".join(answer.lower().split())
    return bool(needle) and needle in " ".join(text.lower().split())


def table7_label(claim: Assertion, statement: Statement) -> Relation:
    """The Table 7 decision for one claim and one document statement."""
    if statement.question != claim.question or not statement.answers:
        return "IRRELEVANT"
    if claim.subject is None:
        same_entity = statement.names is None or any(
            name and name in claim.question for name in statement.names
        )
    else:
        same_entity = statement.names is not None and claim.subject in statement.names
    if not same_entity:
        return "IRRELEVANT"
    return "SUPPORTS" if claim.answer in statement.answers else "CONTRADICTS"


def label_item(item: BenchItem, owners: Mapping[str, BenchItem]) -> list[Relation]:
    """Table 7 labels of every document of ``item`` (owners: source items by id)."""
    claim = parse_claim(item.claim)
    return [table7_label(claim, document_statement(item, d, owners)) for d in item.documents]
