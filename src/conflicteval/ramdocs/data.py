"""RAMDocs (Wang, Prasad, Stengel-Eskin, Bansal, "Retrieval-Augmented Generation with
Conflicting Evidence", arXiv 2504.13079, COLM 2025).

Release layout (``RAMDocs_test.jsonl`` in the RAMDocs repository; registry name
``ramdocs``): one JSON object per line::

    {"question": str,
     "documents": [{"text": str, "type": "correct"|"misinfo"|"noise", "answer": str}, ...],
     "disambig_entity": [str, ...], "gold_answers": [str, ...], "wrong_answers": [str, ...]}

The file has no id field: an item's id is its 0-based line index among the file's
non-blank lines (``"0"``, ``"1"``, ...), which is stable for the pinned release.
``disambig_entity`` is a list of entity names in the release; a single string is accepted
and kept as a one-element list.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from conflicteval.errors import DataError
from conflicteval.jsonio import get_list, get_str, iter_json_lines, require_mapping

DocType = Literal["correct", "misinfo", "noise"]
DOC_TYPES: tuple[str, ...] = ("correct", "misinfo", "noise")


@dataclass(frozen=True)
class RamDocument:
    """One retrieved document of a RAMDocs question.

    Attributes:
        text: The document's text.
        type: ``correct`` (supports a gold answer), ``misinfo`` (asserts a wrong answer)
            or ``noise`` (does not answer the question).
        answer: The answer the document gives, as the release states it.
    """

    text: str
    type: DocType
    answer: str


@dataclass(frozen=True)
class RamItem:
    """One RAMDocs question with its documents.

    Attributes:
        id: The 0-based line index in the file, as a string.
        question: The question.
        documents: The retrieved documents, in file order.
        gold_answers: Every valid answer (one per disambiguated entity).
        wrong_answers: The answers the misinformation documents assert.
        disambig_entity: The entity names the gold answers belong to.
    """

    id: str
    question: str
    documents: tuple[RamDocument, ...]
    gold_answers: tuple[str, ...]
    wrong_answers: tuple[str, ...] = ()
    disambig_entity: tuple[str, ...] = field(default_factory=tuple)


def _str_list(path: Path, row: int, record: dict[str, Any], name: str) -> tuple[str, ...]:
    values = get_list(path, row, record, name)
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise DataError(
                path, row, f"{name}[{i}]", f"expected a string, got {type(value).__name__}"
            )
    return tuple(values)


def _document(path: Path, row: int, index: int, raw: Any) -> RamDocument:
    where = f"documents[{index}]"
    if not isinstance(raw, dict):
        raise DataError(path, row, where, f"expected a JSON object, got {type(raw).__name__}")
    text = get_str(path, row, raw, "text", allow_empty=True)
    kind = get_str(path, row, raw, "type")
    answer = get_str(path, row, raw, "answer", allow_empty=True)
    if kind not in DOC_TYPES:
        raise DataError(
            path, row, f"{where}.type", f"expected one of {', '.join(DOC_TYPES)}, got {kind!r}"
        )
    return RamDocument(text=text or "", type=kind, answer=answer or "")  # type: ignore[arg-type]


def _entities(path: Path, row: int, record: dict[str, Any]) -> tuple[str, ...]:
    value = record.get("disambig_entity")
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return _str_list(path, row, record, "disambig_entity")


def load_ramdocs(path: str | PathLike[str] | None = None) -> list[RamItem]:
    """Load RAMDocs questions.

    Args:
        path: A RAMDocs JSON-lines file. None: the official ``RAMDocs_test.jsonl``, fetched
            once into the cache and verified against its pinned sha256 (registry name
            ``ramdocs``).

    Returns:
        The items in file order.

    Raises:
        DataError: A line that is not a JSON object, a missing or mistyped field, an unknown
            document type, an item with no documents or no gold answer, or a file with no
            items. The error names the file, the line and the field.
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch("ramdocs").path
    items = list(iter_ramdocs(path))
    if not items:
        raise DataError(Path(path), None, None, "no RAMDocs items in the file")
    return items


def iter_ramdocs(path: str | PathLike[str]) -> Iterator[RamItem]:
    """The items of a RAMDocs JSON-lines file (as :func:`load_ramdocs`), read one at a time.

    Raises:
        DataError: As :func:`load_ramdocs` (a file with no items gives none).
    """
    p = Path(path)
    n = 0
    for row, raw in iter_json_lines(p):
        record = require_mapping(p, row, raw)
        question = get_str(p, row, record, "question") or ""
        docs = get_list(p, row, record, "documents")
        if not docs:
            raise DataError(p, row, "documents", "empty list: a RAMDocs item needs documents")
        gold = _str_list(p, row, record, "gold_answers")
        if not gold:
            raise DataError(
                p, row, "gold_answers", "empty list: a RAMDocs item needs a gold answer"
            )
        for i, answer in enumerate(gold):
            if not answer.strip():  # it would spend the calls and then be unscorable
                raise DataError(p, row, f"gold_answers[{i}]", "empty answer: nothing to match")
        wrong = _str_list(p, row, record, "wrong_answers") if "wrong_answers" in record else ()
        yield RamItem(
            id=str(n),
            question=question,
            documents=tuple(_document(p, row, i, d) for i, d in enumerate(docs)),
            gold_answers=gold,
            wrong_answers=wrong,
            disambig_entity=_entities(p, row, record),
        )
        n += 1


def document_counts(items: Sequence[RamItem]) -> dict[str, int]:
    """How many documents of each type the items hold (``correct``, ``misinfo``, ``noise``)."""
    counts = dict.fromkeys(DOC_TYPES, 0)
    for item in items:
        for doc in item.documents:
            counts[doc.type] += 1
    return counts
