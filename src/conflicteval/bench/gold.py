"""Gold claim–document relations for the labeler bench.

A gold set is a list of :class:`GoldItem`: one claim, its documents, and the gold
relation (SUPPORTS / CONTRADICTS / IRRELEVANT) of each document to the claim. One item
is one unit of the run (one labeler request, one checkpoint line) and one unit of the
bootstrap (its pairs are resampled together).

* ``feverous`` — FEVEROUS claims (human labels) against their gold evidence, resolved to
  text through the Wikipedia database (one document holding every gold evidence element,
  as ``feverous verify --mode concat`` shows it). SUPPORTS → SUPPORTS, REFUTES →
  CONTRADICTS, NOT ENOUGH INFO → IRRELEVANT.
* ``feverous-s`` — the FEVEROUS-S file (ProgramFC layout, evidence already text);
  SUPPORTS / REFUTES only, mapped as above.
* ``ramdocs`` — RAMDocs single-answer questions: the claim :data:`RAMDOCS_TEMPLATE`
  states the gold answer, each retrieved document is one pair: ``correct`` → SUPPORTS,
  ``misinfo`` → CONTRADICTS, ``noise`` → IRRELEVANT. Questions with several gold answers
  are left out (a document about another entity of the same name is "correct" for
  *its* answer, which is neither support for nor a contradiction of ours), as are
  questions that name no single entity; both are counted in :attr:`GoldSet.left_out`.
* ``conflictbench`` — ConflictBench items as the library builds them (MacNoise,
  ContraQA, AmbigDocs; ``conflictbench build``), each document with the gold relation
  the builder gave it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any

from conflicteval.errors import ConflictEvalError, UsageError
from conflicteval.types import Document, Relation

__all__ = [
    "FEVEROUS_TO_RELATION",
    "GOLD_SETS",
    "RAMDOCS_TEMPLATE",
    "RAMDOCS_TO_RELATION",
    "GoldItem",
    "GoldSet",
    "gold_from_conflictbench",
    "gold_from_feverous",
    "gold_from_ramdocs",
    "load_gold",
    "ramdocs_claim",
]

from conflicteval.bench.names import GOLD_SETS

"""Names of the gold sets (``--gold``)."""

FEVEROUS_TO_RELATION: dict[str, Relation] = {
    "SUPPORTS": "SUPPORTS",
    "REFUTES": "CONTRADICTS",
    "NOT ENOUGH INFO": "IRRELEVANT",
}
"""FEVEROUS verdict → gold relation of the claim to its evidence."""

RAMDOCS_TO_RELATION: dict[str, Relation] = {
    "correct": "SUPPORTS",
    "misinfo": "CONTRADICTS",
    "noise": "IRRELEVANT",
}
"""RAMDocs document type → gold relation of the document to the gold-answer claim."""

RAMDOCS_TEMPLATE = 'For {entity}, the answer to the question "{question}" is {answer}.'
"""The one claim wording of a RAMDocs question (no model call). The entity is the
question's single ``disambig_entity``, so that a document about another entity of the
same name reads as irrelevant, as RAMDocs labels it (``noise``)."""


@dataclass(frozen=True)
class GoldItem:
    """One claim with its documents and their gold relations.

    Attributes:
        id: Unique id within the gold set.
        claim: The claim the labeler checks.
        documents: The documents, in order.
        gold: Gold relation of each document.
        source: Sub-source (e.g. a ConflictBench source), "" when there is one.
    """

    id: str
    claim: str
    documents: tuple[Document, ...]
    gold: tuple[Relation, ...]
    source: str = ""


@dataclass
class GoldSet:
    """A named gold set, where it was read from, and what was left out.

    Attributes:
        name: One of :data:`GOLD_SETS`.
        items: The items.
        path: The file read (or a description of the release).
        left_out: Reason → how many source records were left out.
    """

    name: str
    items: list[GoldItem]
    path: str = ""
    left_out: dict[str, int] = field(default_factory=dict)

    def label_counts(self) -> dict[str, int]:
        """Gold pairs per relation (SUPPORTS, CONTRADICTS, IRRELEVANT)."""
        counts: dict[str, int] = {"SUPPORTS": 0, "CONTRADICTS": 0, "IRRELEVANT": 0}
        for item in self.items:
            for rel in item.gold:
                counts[rel] += 1
        return counts

    @property
    def n_pairs(self) -> int:
        """Gold claim–document pairs."""
        return sum(len(it.gold) for it in self.items)


def ramdocs_claim(question: str, entity: str, answer: str) -> str:
    """The claim :data:`RAMDOCS_TEMPLATE` makes of a question, its entity and gold answer."""
    return RAMDOCS_TEMPLATE.format(
        entity=entity.strip(), question=question.strip(), answer=answer.strip()
    )


def gold_from_ramdocs(items: Sequence[Any]) -> tuple[list[GoldItem], dict[str, int]]:
    """Gold items of RAMDocs questions (:class:`~conflicteval.ramdocs.RamItem`), and the
    questions left out by reason."""
    out: list[GoldItem] = []
    left: dict[str, int] = {}
    for item in items:
        if len(item.gold_answers) != 1:
            left["several gold answers"] = left.get("several gold answers", 0) + 1
            continue
        if len(item.disambig_entity) != 1:
            left["no single entity"] = left.get("no single entity", 0) + 1
            continue
        docs = tuple(
            Document(id=f"{item.id}:{j}", text=d.text) for j, d in enumerate(item.documents)
        )
        out.append(
            GoldItem(
                id=f"ramdocs:{item.id}",
                claim=ramdocs_claim(item.question, item.disambig_entity[0], item.gold_answers[0]),
                documents=docs,
                gold=tuple(RAMDOCS_TO_RELATION[d.type] for d in item.documents),
            )
        )
    return out, left


def gold_from_feverous(items: Sequence[Any]) -> tuple[list[GoldItem], dict[str, int]]:
    """Gold items of FEVEROUS verification items (:class:`~conflicteval.feverous.items.VerifyItem`).

    The evidence is one document, as ``feverous verify --mode concat`` shows it. Claims
    without a gold label or without any resolvable evidence text are left out (counted).
    """
    from conflicteval.feverous.verify import documents_for

    out: list[GoldItem] = []
    left: dict[str, int] = {}
    for item in items:
        if item.label is None:
            left["no gold label"] = left.get("no gold label", 0) + 1
            continue
        docs = documents_for(item, "concat")
        if not docs:
            left["no evidence text"] = left.get("no evidence text", 0) + 1
            continue
        out.append(
            GoldItem(
                id=f"feverous:{item.id}",
                claim=item.claim,
                documents=tuple(docs),
                gold=(FEVEROUS_TO_RELATION[item.label],),
                source=item.challenge or "",
            )
        )
    return out, left


def gold_from_conflictbench(items: Sequence[Any]) -> list[GoldItem]:
    """Gold items of ConflictBench items (:class:`~conflicteval.conflictbench.BenchItem`)."""
    return [
        GoldItem(
            id=it.id,
            claim=it.claim,
            documents=tuple(it.to_documents()),
            gold=tuple(it.gold_relations),
            source=str(it.source),
        )
        for it in items
    ]


def load_gold(
    name: str,
    path: str | PathLike[str] | None = None,
    *,
    db: str | PathLike[str] | None = None,
    limit: int | None = None,
) -> GoldSet:
    """Load a gold set by name, from the dataset registry or from a local file.

    Args:
        name: One of :data:`GOLD_SETS`.
        path: A local file: a FEVEROUS claim file (``.jsonl``), a FEVEROUS-S JSON array,
            a RAMDocs JSON-lines file, or a ConflictBench items file written by
            ``conflictbench build``. None: the registry's release (``feverous-dev``,
            ``ramdocs``; ConflictBench is built from the registry's AmbigDocs and
            ContraQA releases; FEVEROUS-S has no registry entry and needs a file).
        db: The FEVEROUS Wikipedia database (``feverous_wikiv1.db``) for ``feverous``.
        limit: Only the first N source records.

    Raises:
        UsageError: Unknown name, or a needed file or database not given.
        DataError: A malformed file (file, row and field named).
    """
    if name == "feverous":
        return _feverous(path, db, limit)
    if name == "feverous-s":
        return _feverous_s(path, limit)
    if name == "ramdocs":
        from conflicteval.ramdocs import load_ramdocs

        rows = load_ramdocs(path)[:limit] if limit is not None else load_ramdocs(path)
        items, left = gold_from_ramdocs(rows)
        return GoldSet("ramdocs", items, str(path or "registry: ramdocs"), left)
    if name == "conflictbench":
        return _conflictbench(path, limit)
    raise UsageError(f"unknown gold set {name!r} (known: {', '.join(GOLD_SETS)})")


def _feverous(
    path: str | PathLike[str] | None, db: str | PathLike[str] | None, limit: int | None
) -> GoldSet:
    import itertools

    from conflicteval.feverous.claims import iter_claims
    from conflicteval.feverous.items import items_from_claims
    from conflicteval.feverous.wikidb import WikiDB

    if db is None:
        raise UsageError(
            "--gold feverous resolves the gold evidence through the Wikipedia database: "
            "give --db feverous_wikiv1.db (registry name feverous-wikidb), or use "
            "--gold feverous-s with a FEVEROUS-S file"
        )
    if path is None:
        from conflicteval.data import fetch

        path = fetch("feverous-dev").path
    with WikiDB(db) as wiki:
        claims = iter_claims(path)
        if limit is not None:
            claims = itertools.islice(claims, limit)
        verify_items = items_from_claims(claims, wiki)
    items, left = gold_from_feverous(verify_items)
    return GoldSet("feverous", items, str(path), left)


def _feverous_s(path: str | PathLike[str] | None, limit: int | None) -> GoldSet:
    from conflicteval.feverous.items import load_feverous_s

    if path is None:
        raise UsageError(
            "--gold feverous-s needs --data FILE: the FEVEROUS-S claim file (ProgramFC "
            "layout, a JSON array) is not in the dataset registry"
        )
    verify_items = load_feverous_s(path)
    if limit is not None:
        verify_items = verify_items[:limit]
    items, left = gold_from_feverous(verify_items)
    return GoldSet("feverous-s", items, str(path), left)


def _conflictbench(path: str | PathLike[str] | None, limit: int | None) -> GoldSet:
    from conflicteval.conflictbench import build_conflictbench, read_items

    if path is not None:
        bench_items = read_items(path)
        where = str(path)
    else:
        try:
            built = build_conflictbench([("ambigdocs", None), ("contraqa", None)], seed=0)
        except ConflictEvalError as exc:
            raise ConflictEvalError(
                f"could not build ConflictBench from the registry ({exc}); build it with "
                "'conflicteval conflictbench build' and pass the file with --data"
            ) from exc
        bench_items = built.items
        where = "built from the registry: ambigdocs, contraqa (seed 0, template claims)"
    if limit is not None:
        bench_items = bench_items[:limit]
    return GoldSet("conflictbench", gold_from_conflictbench(bench_items), where)
