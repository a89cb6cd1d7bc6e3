"""Reading the ``{"labels": [{"index": ...}, ...]}`` replies of the batched labelling prompts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from conflicteval.conflictscore.label_words import object_label
from conflicteval.conflictscore.parse import _INDEX_KEYS, Judgement, _json_object_spans
from conflicteval.conflictscore.reply_text import copied as _copied
from conflicteval.conflictscore.reply_text import get_field as _get
from conflicteval.conflictscore.reply_text import text_field as _text_field
from conflicteval.jsonparse import MAX_EXAMINED, iter_json_spans

__all__ = ["IndexedLabels", "parse_indexed_labels"]


class IndexedLabels(BaseModel):
    """The per-index labels of one batched labelling reply.

    Attributes:
        labels: 0-based index -> judgement, for every index 0..n-1. A judgement
            with ``label`` None failed, and its ``problem`` says why (no entry,
            conflicting duplicate entries, no label in the entry).
        extra: Problems with entries that match no expected index (out of
            range, or not a number); they fail no pair.
        error: Set when the reply held no usable entry at all.
    """

    labels: dict[int, Judgement] = Field(default_factory=dict)
    extra: list[str] = Field(default_factory=list)
    error: str | None = None


def _as_index(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(?:#|doc(?:ument)?\s*|claim\s*)?(\d+)\s*", value, re.IGNORECASE)
        if match:
            return int(match.group(1))
    return None


def _entries(text: str, sources: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The label entries of a batched reply: the longest list of dicts, else loose objects.

    A list or object copied word for word from one of ``sources`` (the documents in the
    prompt) is what a document says, not the model's answer, and is skipped.
    """

    def copied(start: int, end: int) -> bool:
        return any(_copied(text[start:end], src) for src in sources)

    best: list[dict[str, Any]] = []
    for value, start, end in iter_json_spans(
        text[:MAX_EXAMINED], list, keep_pairs=True
    ):  # linear, bounded
        if copied(start, end):
            continue
        dicts = [v for v in value if isinstance(v, dict)]
        if len(dicts) > len(best):
            best = dicts
    if best:
        return best
    # Truncated outer object/array: keep every complete entry that has an index.
    return [
        obj
        for obj, start, end in _json_object_spans(text)
        if _get(obj, _INDEX_KEYS) is not None and not copied(start, end)
    ]


def parse_indexed_labels(text: str, n: int, sources: Sequence[str] = ()) -> IndexedLabels:
    """Parse a batched labelling reply for ``n`` items numbered 1..n in the prompt.

    ``sources`` are the documents the prompt showed: label entries copied from one of them
    are not the model's own answer and are ignored (as :func:`parse_judgement` does).

    Entries are matched by their ``index`` field (1-based), never by position.
    For every index 0..n-1 of the result: a missing entry, two entries with
    different answers, or an entry without a label is a failure of that pair
    only. Entries with an index outside 1..n are reported in ``extra``.
    A truncated reply keeps the complete entries it has.
    """
    result = IndexedLabels()
    entries = _entries(text, sources) if isinstance(text, str) else []
    if not entries:
        result.error = "no label entries in reply"
        for i in range(n):
            result.labels[i] = Judgement(problem=result.error)
        return result
    seen: dict[int, list[Judgement]] = {}
    for entry in entries:
        raw_index = _get(entry, _INDEX_KEYS)
        index = _as_index(raw_index)
        if index is None or not 1 <= index <= n:
            result.extra.append(f"entry with index {raw_index!r} outside 1..{n}")
            continue
        # every label-bearing key of the entry must agree (duplicates, Answer/label too)
        label, disagreement = object_label(entry)
        seen.setdefault(index - 1, []).append(
            Judgement(
                label=label,
                snippet=_text_field(entry, "document_snippet", "snippet", "evidence"),
                reasoning=_text_field(entry, "reasoning", "justification", "rationale"),
                problem=None if label is not None else disagreement or "no label in entry",
            )
        )
    for i in range(n):
        got = seen.get(i)
        if not got:
            result.labels[i] = Judgement(problem=f"no entry for index {i + 1}")
            continue
        labels = {j.label for j in got}
        if len(labels) > 1:
            names = sorted(str(lab) for lab in labels)
            result.labels[i] = Judgement(
                problem=f"conflicting entries for index {i + 1}: {', '.join(names)}"
            )
        else:
            result.labels[i] = got[0]
    return result
