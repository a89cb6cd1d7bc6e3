"""The inputs of ``conflicteval score``: documents (JSON lines or a JSON array) and batch rows
``{"id", "response", "documents"}``, checked through the reader layer (a bad file is a
:class:`~conflicteval.errors.DataError` naming the file, the row and the field)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from conflicteval.errors import DataError
from conflicteval.jsonio import LazyItems, iter_json_lines, parse_json
from conflicteval.readers import UniqueIds, id_text, read_text, require_field

if TYPE_CHECKING:  # imported where used: the command line starts without pydantic
    from conflicteval.types import Document

__all__ = ["NO_DOCUMENTS", "lazy_items", "read_documents", "read_items"]

NO_DOCUMENTS = (
    "no documents: a response scored against no documents has no ConflictScore "
    "(every claim would count as unconflicted)"
)


def read_documents(path: str) -> list[Document]:
    """Documents from a JSONL file (strings or objects) or a JSON array file.

    Raises:
        DataError: A malformed file or document (file, line or record, field),
            or a document id given twice.
    """
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("["):
        rows = parse_json(text, path)
        if isinstance(rows, list) and not rows:
            raise DataError(path, None, None, NO_DOCUMENTS)
        listed = [_doc(path, i + 1, row, i) for i, row in enumerate(rows)]
        _unique_documents(path, listed, list(range(1, len(listed) + 1)))
        return listed
    lines: list[int] = []
    docs: list[Document] = []
    for lineno, row in iter_json_lines(path):
        docs.append(_doc(path, lineno, row, len(docs)))
        lines.append(lineno)
    if not docs:
        raise DataError(path, None, None, NO_DOCUMENTS)
    _unique_documents(path, docs, lines)
    return docs


def _unique_documents(path: str, docs: list[Document], rows: list[int]) -> None:
    ids = UniqueIds(path, "id", "document id")
    for doc, row in zip(docs, rows, strict=True):
        ids.add(doc.id, row)


def _doc(path: str, row: int, value: Any, index: int) -> Document:
    from conflicteval.types import Document

    if isinstance(value, dict):
        # Types are checked here, not stringified: an id is a string or an integer,
        # the text and title are strings.
        if "id" in value:
            id_text(path, row, "id", value["id"])
        for key in ("text", "contents", "content", "passage", "title"):
            if value.get(key) is not None and not isinstance(value[key], str):
                raise DataError(path, row, key, f"expected text, got {type(value[key]).__name__}")
    try:
        doc = Document.coerce(value, index)
    except (TypeError, ValueError) as exc:
        raise DataError(path, row, "text", f"not a document: {exc}") from exc
    if not doc.text.strip():
        raise DataError(path, row, "text", "empty value")
    return doc


def _item_id(path: str, lineno: int, row: dict[str, Any]) -> str:
    """The id a row gets: its ``id`` (checked), else its line number."""
    return id_text(path, lineno, "id", row["id"]) if "id" in row else str(lineno)


def _item_reader(path: str) -> Callable[[int, Any], dict[str, Any]]:
    """A converter of one pass over ``path``: a row to a checked item (ids unique in the pass)."""

    def first_row(item_id: object) -> int | None:
        # Only on a duplicate: the file is read again rather than every id kept with its row.
        # Every row up to the first one with that id passed ``convert`` in this pass.
        return next(
            (n for n, row in iter_json_lines(path) if _item_id(path, n, row) == item_id), None
        )

    seen = UniqueIds(path, "id", "item id", first_row=first_row)

    def convert(lineno: int, row: Any) -> dict[str, Any]:
        if not isinstance(row, dict):
            raise DataError(path, lineno, None, "each line must be a JSON object")
        response = require_field(path, lineno, row, "response", str)
        docs = require_field(path, lineno, row, "documents", list)
        if not docs:
            raise DataError(path, lineno, "documents", NO_DOCUMENTS)
        item_id = _item_id(path, lineno, row)
        seen.add(item_id, lineno)
        return {
            "id": item_id,
            "response": response,
            "documents": [_doc(path, lineno, d, i) for i, d in enumerate(docs)],
        }

    return convert


# a mean over no response would read as a run that went well
_NO_ITEMS = "no items (an empty file): nothing to score"


def lazy_items(path: str) -> LazyItems[dict[str, Any]]:
    """Batch rows ``{"id", "response", "documents"}`` of a JSONL file, read when iterated.

    Every pass checks every row (the runner's first pass does so before any
    call); the rows are never all in memory (see :class:`~conflicteval.jsonio.LazyItems`).
    """
    return LazyItems(path, lambda: _item_reader(path), empty=_NO_ITEMS)


def read_items(path: str) -> list[dict[str, Any]]:
    """Batch rows ``{"id", "response", "documents"}`` from a JSONL file, checked."""
    return list(lazy_items(path))
