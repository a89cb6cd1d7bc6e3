"""The unified ConflictBench item: one claim, its documents, and gold relations.

Every source loader yields :class:`BenchItem` objects, the builder writes them as
JSON lines, and the detection task reads them back. An item is a *conflict* item
exactly when at least one of its documents SUPPORTS the claim and at least one
CONTRADICTS it (paper §4.1); the model validator enforces this, so a file that
validates is internally consistent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from os import PathLike
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from conflicteval.errors import DataError
from conflicteval.jsonio import iter_json_lines
from conflicteval.readers import UniqueIds
from conflicteval.types import Document, Relation

SourceName = Literal["conflictingqa", "ambigdocs", "contraqa", "macnoise-nq", "macnoise-tqa"]
"""The five ConflictBench sources (Table 1 rows)."""

SOURCES: tuple[SourceName, ...] = (
    "contraqa",
    "macnoise-nq",
    "macnoise-tqa",
    "ambigdocs",
    "conflictingqa",
)
"""Sources in the row order of the paper's Tables 1 and 2."""

SOURCE_LABELS: dict[str, str] = {
    "contraqa": "ContraQA",
    "macnoise-nq": "MacNoise-NQ",
    "macnoise-tqa": "MacNoise-TQA",
    "ambigdocs": "AmbigDocs",
    "conflictingqa": "ConflictingQA",
}
"""Display names used in the tables."""

ItemKind = Literal["source", "conflict", "no-conflict"]
"""``source``: as a loader yields it; ``conflict`` / ``no-conflict``: built by the builder."""


class BenchDocument(BaseModel):
    """One grounding document of an item, with its gold relation to the claim.

    Attributes:
        id: Document id, unique within the item.
        text: The passage text (prefixes such as MacNoise's ``title: … context:`` removed).
        title: Title, when the source has one.
        url: Web address (ConflictingQA).
        gold: Gold relation of this document to the item's claim.
        synthetic: True for machine- or human-written counterfactual text
            (MacNoise perturbations, ContraQA fakes). The builder never draws
            synthetic documents as "other" documents for no-conflict items.
        meta: Source fields kept for provenance (e.g. ConflictingQA ``search_type``).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str
    title: str | None = None
    url: str | None = None
    gold: Relation
    synthetic: bool = False
    meta: dict[str, Any] = Field(default_factory=dict)

    def to_document(self) -> Document:
        """The plain :class:`~conflicteval.types.Document` handed to a labeler or a model."""
        return Document(id=self.id, text=self.text, title=self.title)


class BenchItem(BaseModel):
    """One ConflictBench item (paper §4.1 input plus gold labels).

    Attributes:
        id: Unique id, ``"<source>:<record id>"``; built items add ``":conf"`` or ``":noconf"``.
        source: Which source the item comes from.
        question: The source question.
        claim: The claim to check against the documents.
        claim_method: How the claim was written: ``"template"`` or ``"llm:<model>"``.
        answer: The answer the claim asserts, when the source has one.
        documents: The grounding documents with their gold relations.
        conflict: Gold label: True iff some document SUPPORTS and some CONTRADICTS.
        kind: ``"source"`` for loader output, ``"conflict"``/``"no-conflict"`` once built.
        group: Items sharing a group are "the same query" for the builder (it never
            draws "other" documents from the item's own group).
        meta: Source-specific fields kept for provenance.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    source: SourceName
    question: str = Field(min_length=1)
    claim: str
    claim_method: str = "template"
    answer: str | None = None
    documents: list[BenchDocument]
    conflict: bool
    kind: ItemKind = "source"
    group: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> BenchItem:
        if not self.claim.strip():
            raise ValueError("the claim is empty")
        if not self.documents:
            raise ValueError("an item needs at least one document")
        ids = [d.id for d in self.documents]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate document ids in item {self.id!r}")
        if self.conflict != has_conflict(d.gold for d in self.documents):
            raise ValueError(
                f"item {self.id!r}: conflict={self.conflict} disagrees with the gold relations"
            )
        if self.kind == "no-conflict" and self.conflict:
            raise ValueError(f"item {self.id!r} is marked no-conflict but has a conflict")
        if self.kind == "conflict" and not self.conflict:
            raise ValueError(f"item {self.id!r} is marked conflict but has no conflict")
        if not self.group:
            self.group = self.id
        return self

    @property
    def gold_relations(self) -> list[Relation]:
        """Gold relation of each document, in document order."""
        return [d.gold for d in self.documents]

    def supporting(self) -> list[BenchDocument]:
        """Documents whose gold relation is SUPPORTS."""
        return [d for d in self.documents if d.gold == "SUPPORTS"]

    def to_documents(self) -> list[Document]:
        """The documents as plain :class:`~conflicteval.types.Document` objects."""
        return [d.to_document() for d in self.documents]


def has_conflict(relations: Iterable[Relation | None]) -> bool:
    """True iff the relations hold at least one SUPPORTS and one CONTRADICTS (§4.1).

    ``None`` entries (failed pairs) are ignored.
    """
    seen = set(relations)
    return "SUPPORTS" in seen and "CONTRADICTS" in seen


def write_items(items: Iterable[BenchItem], path: str | PathLike[str]) -> int:
    """Write items as JSON lines (UTF-8); returns how many were written.

    The file is written atomically: when reading ``items`` fails half-way (a
    malformed source record), no partial or empty file is left and an existing
    file keeps its content.
    """
    from conflicteval._atomic import atomic_open

    n = 0
    with atomic_open(path) as fh:
        for item in items:
            fh.write(item.model_dump_json() + "\n")
            n += 1
    return n


def iter_items(path: str | PathLike[str]) -> Iterator[BenchItem]:
    """Stream items from a JSON-lines file written by :func:`write_items`.

    Raises:
        DataError: naming the file, line and field of the first invalid record,
            or both lines of an item id given twice.
    """
    ids = UniqueIds(path, "id", "item id")
    for lineno, data in iter_json_lines(path):
        try:
            item = BenchItem.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or None
            raise DataError(path, lineno, field, err["msg"]) from exc
        _check_blank(path, lineno, item)
        ids.add(item.id, lineno)
        yield item


def _check_blank(path: str | PathLike[str], lineno: int, item: BenchItem) -> None:
    """A blank item id, document id or document text is refused with its field (a blank
    text would be labelled as evidence; a blank id cannot name the item in any output)."""
    if not item.id.strip():
        raise DataError(path, lineno, "id", "empty id")
    for i, doc in enumerate(item.documents):
        if not doc.id.strip():
            raise DataError(path, lineno, f"documents[{i}].id", "empty id")
        if not doc.text.strip():
            raise DataError(path, lineno, f"documents[{i}].text", "empty document text")


def read_items(path: str | PathLike[str]) -> list[BenchItem]:
    """Read every item of a JSON-lines file (see :func:`iter_items`)."""
    return list(iter_items(path))
