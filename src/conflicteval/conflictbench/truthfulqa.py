"""TruthfulQA questions (CSV release layout) and their retrieved documents (JSONL).

The CSV header is ``Type, Category, Question, Best Answer, Best Incorrect Answer,
Correct Answers, Incorrect Answers, Source``; the answer lists are
``;``-separated. The 2022 release (817 questions, often with a UTF-8
byte-order mark) has no ``Best Incorrect Answer`` column: it loads for the
free-form mode, and only the binary-choice mode refuses it, naming the column.
The binary-choice version (recommended by the TruthfulQA
authors in Jan 2025 and used by the paper) pits ``Best Answer`` against
``Best Incorrect Answer``; which one is (A) is drawn per question with a
seeded generator, so the correct letter is not always the same.

Retrieved documents (the paper used the top 10 Google results; not released)
are supplied as JSON lines, one line per question::

    {"index": 0, "question": "...",
     "documents": [{"id": "...", "title": "...", "text": "..."}, ...]}

``index`` is the question's 0-based row in the CSV; without it the line is
matched by question text. A document may also be a plain string, and
``snippet``/``content`` are accepted for ``text``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from conflicteval.errors import DataError
from conflicteval.jsonio import iter_json_records, require_mapping
from conflicteval.readers import UniqueIds, id_text, iter_csv_rows
from conflicteval.types import Document

COLUMNS = (
    "Type",
    "Category",
    "Question",
    "Best Answer",
    "Best Incorrect Answer",
    "Correct Answers",
    "Incorrect Answers",
    "Source",
)
REQUIRED = (
    "Question",
    "Best Answer",
    "Correct Answers",
    "Incorrect Answers",
)
"""Columns every release has (the 2022 release lacks ``Best Incorrect Answer``)."""

CHOICE_COLUMN = "Best Incorrect Answer"
"""The column only the binary-choice mode needs."""


class TruthfulQAQuestion(BaseModel):
    """One TruthfulQA question.

    Attributes:
        index: 0-based row in the CSV.
        question: The question.
        best_answer / best_incorrect_answer: The binary-choice pair
            (``best_incorrect_answer`` is None for the 2022 release).
        correct_answers / incorrect_answers: Reference answers for the judges.
        type / category / source: The remaining CSV columns.
    """

    index: int
    question: str
    best_answer: str
    best_incorrect_answer: str | None = None
    correct_answers: list[str]
    incorrect_answers: list[str]
    type: str = ""
    category: str = ""
    source: str = ""

    def options(self, seed: int = 0) -> tuple[str, str, Literal["A", "B"]]:
        """``(option_a, option_b, correct_letter)`` for the binary choice (seeded order).

        Raises:
            DataError: The question has no best incorrect answer (2022 release).
        """
        if self.best_incorrect_answer is None:
            raise DataError(None, self.index, CHOICE_COLUMN, _NO_CHOICE)
        if random.Random(f"{seed}:{self.index}").random() < 0.5:
            return self.best_answer, self.best_incorrect_answer, "A"
        return self.best_incorrect_answer, self.best_answer, "B"


_NO_CHOICE = (
    f"the binary-choice mode needs the {CHOICE_COLUMN!r} column, which this TruthfulQA file "
    "lacks (the 2022 release); use the free-form mode, or the current TruthfulQA.csv"
)


def require_binary_choice(
    questions: Sequence[TruthfulQAQuestion], path: str | PathLike[str] | None = None
) -> None:
    """Check that every question can be asked as a binary choice.

    Raises:
        DataError: Naming the ``Best Incorrect Answer`` column (and ``path``)
            when a question lacks it.
    """
    for q in questions:
        if q.best_incorrect_answer is None:
            raise DataError(path, None, CHOICE_COLUMN, _NO_CHOICE)


def split_answers(text: str) -> list[str]:
    """Split a ``;``-separated answer list, dropping empty parts."""
    return [part.strip() for part in text.split(";") if part.strip()]


def load_truthfulqa(path: str | PathLike[str] | None = None) -> list[TruthfulQAQuestion]:
    """Read the TruthfulQA CSV: the current release, or the 2022 one without its choice column.

    ``path`` None fetches the registry's ``truthfulqa`` file once.

    Raises:
        DataError: for a missing column, an empty required field, a row longer
            or shorter than the header, a question given twice (file, line, field), or
            no question at all.
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch("truthfulqa").path
    p = Path(path)
    if not p.is_file():
        raise DataError(p, None, None, "file not found")
    out = []
    seen = UniqueIds(p, "Question", "question")
    has_choice: bool | None = None
    for i, csv_row in enumerate(iter_csv_rows(p, required=REQUIRED)):
        row, line = csv_row.values, csv_row.line
        if has_choice is None:
            has_choice = CHOICE_COLUMN in row
        required = REQUIRED + ((CHOICE_COLUMN,) if has_choice else ())
        for col in required:
            if not row[col].strip():
                raise DataError(p, line, col, "empty value")
        question = row["Question"].strip()
        seen.add(question, line)
        out.append(
            TruthfulQAQuestion(
                index=i,
                question=question,
                best_answer=row["Best Answer"].strip(),
                best_incorrect_answer=row[CHOICE_COLUMN].strip() if has_choice else None,
                correct_answers=split_answers(row["Correct Answers"]),
                incorrect_answers=split_answers(row["Incorrect Answers"]),
                type=(row.get("Type") or "").strip(),
                category=(row.get("Category") or "").strip(),
                source=(row.get("Source") or "").strip(),
            )
        )
    if not out:  # a header and no row: nothing to ask, said where it is
        raise DataError(p, None, None, "no questions (the file has a header and no row)")
    return out


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip("?")


def _document(path: Path, row: int | str, j: int, raw: Any) -> Document:
    if isinstance(raw, str):
        return Document(id=str(j), text=raw)
    if not isinstance(raw, dict):
        raise DataError(path, row, f"documents[{j}]", "expected a string or an object")
    data = dict(raw)
    for alt in ("snippet", "content", "contents"):
        if "text" not in data and alt in data:
            data["text"] = data.pop(alt)
    if not isinstance(data.get("text"), str) or not data["text"].strip():
        raise DataError(path, row, f"documents[{j}].text", "missing or empty")
    return Document(
        id=id_text(path, row, f"documents[{j}].id", data["id"]) if "id" in data else str(j),
        text=data["text"],
        title=data.get("title") if isinstance(data.get("title"), str) else None,
    )


def load_retrieved_documents(
    path: str | PathLike[str], questions: Sequence[TruthfulQAQuestion]
) -> dict[int, list[Document]]:
    """Read retrieved documents (JSONL) and match each line to a question.

    Returns:
        ``{question index: documents}`` (questions without a line are absent).

    Raises:
        DataError: for a line that matches no question, a malformed document,
            or a question given twice.
    """
    p = Path(path)
    by_text = {_norm(q.question): q.index for q in questions}
    valid = {q.index for q in questions}
    out: dict[int, list[Document]] = {}
    seen = UniqueIds(p, "index", "question index")
    for row, raw in iter_json_records(p):
        record = require_mapping(p, row, raw)
        index = record.get("index")
        if index is not None:
            if not isinstance(index, int) or index not in valid:
                raise DataError(p, row, "index", f"no question with index {index!r}")
        else:
            text = record.get("question")
            if not isinstance(text, str) or _norm(text) not in by_text:
                raise DataError(p, row, "question", f"matches no TruthfulQA question: {text!r}")
            index = by_text[_norm(text)]
        docs = record.get("documents")
        if not isinstance(docs, list):
            raise DataError(p, row, "documents", "missing or not a list")
        seen.add(index, row)
        out[index] = [_document(p, row, j, d) for j, d in enumerate(docs)]
    return out
