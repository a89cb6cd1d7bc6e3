"""ConflictQA (Xie, Zhang, Chen, Lou, Su, "Adaptive Chameleon or Stubborn Sloth: Revealing the
Behavior of Large Language Models in Knowledge Conflicts", ICLR 2024, arXiv 2305.13300).

Release layout (``conflictQA/conflictQA-<dataset>-<llm>.json`` in the repository
OSU-NLP-Group/LLM-Knowledge-Conflict; registry names ``conflictqa-<dataset>-<llm>``): JSON
lines despite the ``.json`` name, one object per line::

    {"question": str, "popularity": int, "ground_truth": [str, ...],
     "memory_answer": str, "parametric_memory": str,
     "counter_answer": str, "counter_memory": str,
     "parametric_memory_aligned_evidence": str, "counter_memory_aligned_evidence": str}

``memory_answer`` and ``parametric_memory`` are the answer and evidence the file's LLM gave
from its own memory; ``counter_answer`` and ``counter_memory`` the contradicting answer and
its generated evidence. For StrategyQA, ``ground_truth`` is ``["True"]`` or ``["False"]`` and
the two answers are claims (sentences), not True/False labels.

The file has no id field: an item's id is its 0-based line index among the file's non-blank
lines (``"0"``, ``"1"``, ...), stable for the pinned release.
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

from conflicteval.conflictqa.names import DATASETS, LLMS
from conflicteval.errors import DataError
from conflicteval.jsonio import get_list, get_str, iter_json_lines, require_mapping

__all__ = ["DATASETS", "LLMS", "ConflictItem", "load_conflictqa", "registry_name"]

TEXT_FIELDS: tuple[str, ...] = (
    "memory_answer",
    "parametric_memory",
    "counter_answer",
    "counter_memory",
    "parametric_memory_aligned_evidence",
    "counter_memory_aligned_evidence",
)


@dataclass(frozen=True)
class ConflictItem:
    """One ConflictQA question with one LLM's memory and the counter-memory against it.

    Attributes:
        id: The 0-based line index in the file, as a string.
        question: The question.
        popularity: Monthly Wikipedia page views of the question's subject (None if absent).
        ground_truth: The factual answers (StrategyQA: ``("True",)`` or ``("False",)``).
        memory_answer: The answer the LLM gave from memory (a claim).
        parametric_memory: The LLM's own evidence for ``memory_answer``.
        counter_answer: The answer contradicting ``memory_answer`` (a claim).
        counter_memory: Generated evidence for ``counter_answer``.
        parametric_memory_aligned_evidence: More evidence for ``memory_answer``.
        counter_memory_aligned_evidence: More evidence for ``counter_answer``.
    """

    id: str
    question: str
    popularity: int | None
    ground_truth: tuple[str, ...]
    memory_answer: str
    parametric_memory: str
    counter_answer: str
    counter_memory: str
    parametric_memory_aligned_evidence: str
    counter_memory_aligned_evidence: str


def registry_name(dataset: str, llm: str) -> str:
    """The registry name of one release file: ``conflictqa-<dataset>-<llm>``.

    Raises:
        ValueError: Unknown dataset or LLM.
    """
    if dataset not in DATASETS:
        raise ValueError(f"unknown ConflictQA dataset {dataset!r} (known: {', '.join(DATASETS)})")
    if llm not in LLMS:
        raise ValueError(f"unknown ConflictQA LLM {llm!r} (known: {', '.join(LLMS)})")
    return f"conflictqa-{dataset}-{llm}"


def _popularity(path: Path, row: int, record: dict[str, Any]) -> int | None:
    value = record.get("popularity")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(path, row, "popularity", f"expected an integer, got {type(value).__name__}")
    return value


def _ground_truth(path: Path, row: int, record: dict[str, Any]) -> tuple[str, ...]:
    values = get_list(path, row, record, "ground_truth")
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise DataError(
                path, row, f"ground_truth[{i}]", f"expected a string, got {type(value).__name__}"
            )
    return tuple(values)


def load_conflictqa(
    path: str | PathLike[str] | None = None, *, dataset: str = "strategyqa", llm: str = "chatgpt"
) -> list[ConflictItem]:
    """Load one ConflictQA file.

    Args:
        path: A ConflictQA JSON-lines file. None: the release file of ``dataset`` and ``llm``,
            fetched once into the cache and verified (registry ``conflictqa-<dataset>-<llm>``).
        dataset: ``strategyqa`` or ``popqa`` (only used when ``path`` is None).
        llm: The LLM whose memory the file holds (only used when ``path`` is None).

    Returns:
        The items in file order.

    Raises:
        DataError: A line that is not a JSON object, a missing, empty or mistyped field, or a
            file with no items; the error names the file, the line and the field.
    """
    if path is None:
        from conflicteval.data import fetch

        path = fetch(registry_name(dataset, llm)).path
    p = Path(path)
    items: list[ConflictItem] = []
    for row, raw in iter_json_lines(p):
        record = require_mapping(p, row, raw)
        texts = {name: get_str(p, row, record, name) or "" for name in TEXT_FIELDS}
        items.append(
            ConflictItem(
                id=str(len(items)),
                question=get_str(p, row, record, "question") or "",
                popularity=_popularity(p, row, record),
                ground_truth=_ground_truth(p, row, record),
                **texts,
            )
        )
    if not items:
        raise DataError(p, None, None, "no ConflictQA items in the file")
    return items
