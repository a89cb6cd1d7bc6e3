"""FaithEval (Ming et al., "FaithEval: Can Your Language Model Stay Faithful to Context, Even If
'The Moon is Made of Marshmallows'", ICLR 2025, arXiv 2410.03727): the three tasks' parquet files.

Hugging Face datasets ``Salesforce/FaithEval-{inconsistent,counterfactual,unanswerable}-v1.0``,
split ``test``, one parquet file each (registry names ``faitheval-<task>``). Columns read:

* every task: ``question``, ``context``, and the id in ``qid`` or ``id``;
* ``inconsistent`` and ``unanswerable``: ``answers`` (kept for reference; the README's scoring
  needs only the valid phrases);
* ``counterfactual`` (multiple choice, from ARC-Challenge): ``choices`` (``{"label": [...],
  "text": [...]}``) and ``answerKey`` (the option the counterfactual context supports).

Reading parquet needs pyarrow (``pip install '.[parquet]'``), imported lazily.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import Any, Literal

from conflicteval.errors import DataError, require

Task = Literal["inconsistent", "counterfactual", "unanswerable"]
TASKS: tuple[str, ...] = ("inconsistent", "counterfactual", "unanswerable")


@dataclass(frozen=True)
class FaithItem:
    """One FaithEval problem.

    Attributes:
        id: The problem id (``qid`` or ``id``; the 0-based row index when both are missing).
        task: ``inconsistent``, ``counterfactual`` or ``unanswerable``.
        question: The question.
        context: The context (for ``inconsistent``, several documents in one text).
        answers: The answers the release lists (may be empty).
        choices: Counterfactual options as ``(label, text)`` pairs.
        answer_key: Counterfactual: the label of the option the context supports.
    """

    id: str
    task: str
    question: str
    context: str
    answers: tuple[str, ...] = ()
    choices: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    answer_key: str | None = None

    @property
    def answer_text(self) -> str | None:
        """Counterfactual: the text of the option ``answer_key`` names."""
        for label, text in self.choices:
            if label == self.answer_key:
                return text
        return None


def _text(path: Path, row: int, record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise DataError(path, row, name, "missing or not a non-empty string")
    return value


def _strings(path: Path, row: int, name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise DataError(path, row, name, "expected a list of strings")
    return tuple(value)


def _choices(path: Path, row: int, record: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    raw = record.get("choices")
    if not isinstance(raw, dict):
        raise DataError(path, row, "choices", "missing or not a {label, text} object")
    labels = _strings(path, row, "choices.label", raw.get("label"))
    texts = _strings(path, row, "choices.text", raw.get("text"))
    if not labels or len(labels) != len(texts):
        raise DataError(path, row, "choices", f"{len(labels)} labels for {len(texts)} texts")
    return tuple(zip(labels, texts, strict=True))


def _item(path: Path, row: int, task: str, record: dict[str, Any]) -> FaithItem:
    raw_id = record.get("qid", record.get("id"))
    item_id = str(raw_id) if raw_id is not None and str(raw_id) != "" else str(row - 1)
    question = _text(path, row, record, "question")
    context = _text(path, row, record, "context")
    if task != "counterfactual":
        answers = _strings(path, row, "answers", record.get("answers"))
        return FaithItem(item_id, task, question, context, answers)
    choices = _choices(path, row, record)
    key = record.get("answerKey")
    if not isinstance(key, str) or key not in {label for label, _ in choices}:
        raise DataError(path, row, "answerKey", f"{key!r} is not one of the choices' labels")
    return FaithItem(item_id, task, question, context, (), choices, key)


def load_faitheval(task: str, path: str | PathLike[str] | None = None) -> list[FaithItem]:
    """Load one FaithEval task.

    Args:
        task: ``inconsistent``, ``counterfactual`` or ``unanswerable``.
        path: The task's parquet file. None: the registry's ``faitheval-<task>`` (fetched from
            Hugging Face once into the cache).

    Returns:
        The problems in file order.

    Raises:
        ValueError: Unknown task.
        DataError: An unreadable file, a missing column, a duplicate id or an empty file; the
            message names the file, the row (1-based) and the field.
        MissingDependency: pyarrow is not installed (``pip install '.[parquet]'``).
    """
    if task not in TASKS:
        raise ValueError(f"unknown FaithEval task {task!r} (known: {', '.join(TASKS)})")
    if path is None:
        from conflicteval.data import fetch

        path = fetch(f"faitheval-{task}").path
    p = Path(path)
    pq: Any = require("pyarrow.parquet", "parquet")
    try:
        rows = pq.read_table(p).to_pylist()
    except FileNotFoundError:
        raise
    except Exception as exc:  # pyarrow raises its own error types for a damaged file
        raise DataError(p, None, None, f"not a readable parquet file: {exc}") from exc
    items: list[FaithItem] = []
    seen: dict[str, int] = {}
    for index, record in enumerate(rows):
        row = index + 1
        item = _item(p, row, task, record)
        if item.id in seen:
            raise DataError(
                p, row, "qid", f"duplicate id {item.id!r} (first at row {seen[item.id]})"
            )
        seen[item.id] = row
        items.append(item)
    if not items:
        raise DataError(p, None, None, "no FaithEval rows in the file")
    return items
