"""What a labelling reply says (:class:`Judgement`), and the small readings of its text.

A JSON object's field looked up without case; whether a piece of a reply is copied word for word
from the document it labels (an instruction planted in the document and echoed is never the
model's own answer); and :func:`read_whole_object`, the quick reading of the common reply that is
one JSON object and nothing else. Pure functions of their arguments; the general parser is
:func:`conflicteval.conflictscore.parse.parse_judgement`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from conflicteval.conflictscore.label_words import normalize_label, object_label
from conflicteval.jsonparse import MAX_EXAMINED, decode_pairs
from conflicteval.types import Relation

__all__ = [
    "Judgement",
    "copied",
    "copied_from",
    "get_field",
    "normal_source",
    "normal_text",
    "read_whole_object",
    "text_field",
    "whole_object",
]

_NO_MARKS = str.maketrans("", "", "*_`")


def get_field(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` that ``obj`` holds, keys compared without case."""
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in keys:
        if key in lowered:
            return lowered[key]
    return None


def text_field(obj: dict[str, Any], *keys: str) -> str | None:
    """:func:`get_field` when its value is a string, else None."""
    value = get_field(obj, keys)
    return value if isinstance(value, str) else None


def normal_text(text: str) -> str:
    """``text`` without markdown marks, its white space folded to single spaces, lower case."""
    # str.split() and the regular expression ``\s`` agree on what white space is
    return " ".join(text.translate(_NO_MARKS).split()).lower()


@lru_cache(maxsize=64)
def normal_source(source: str) -> str:
    """:func:`normal_text` of a document, remembered for the last 64 documents.

    A document is compared with every reply about it (one per claim): folded once, not once per
    reply.
    """
    return normal_text(source)


def copied(fragment: str, source: str | None) -> bool:
    """Whether ``fragment`` (a JSON object, an answer line) is copied from ``source``."""
    if not source:
        return False
    piece = normal_text(fragment)
    return len(piece) >= 8 and piece in normal_source(source)


def copied_from(text: str, sources: Sequence[str]) -> bool:
    """Whether ``text`` (a whole reply) is copied word for word from one of ``sources``."""
    return any(copied(text, src) for src in sources)


class Judgement(BaseModel):
    """What one labelling reply says about one (claim, document) pair.

    Attributes:
        label: The label, or None when the reply names no single label.
        snippet: The ``document_snippet`` field, when present.
        reasoning: The ``reasoning`` field, when present.
        problem: Why ``label`` is None (None when a label was found).
    """

    label: Relation | None = None
    snippet: str | None = None
    reasoning: str | None = None
    problem: str | None = None


def whole_object(
    text: str, document: str | None
) -> tuple[dict[str, Any], Relation] | Judgement | None:
    """The reading behind :func:`read_whole_object`: the object and its label, a judgement
    naming why its label keys disagree, or None (the general steps read the reply)."""
    body = text.strip()
    if len(text) > MAX_EXAMINED or body[:1] != "{" or body[-1:] != "}":
        return None
    try:
        obj = decode_pairs(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    if document and "{" in document:  # else no line of the object can be copied from it
        start = len(text) - len(text.lstrip())
        pos, line = 0, body
        for line in text.splitlines(keepends=True):  # the line the object starts on
            if pos + len(line) > start:
                break
            pos += len(line)
        copied_line = copied(line, document)
        if copied_line and normalize_label(line) is None:
            return None  # the general steps blank a copied line: not the model's
        if copied_line if line.strip() == body else copied(body, document):
            return None
    label, disagreement = object_label(obj)
    if disagreement:
        return Judgement(problem=disagreement)
    if label is None:
        return None
    return obj, label


def read_whole_object(text: str, document: str | None) -> Judgement | None:
    """The first step of ``parse_judgement`` at once, for a reply that is one JSON object only.

    The same judgement the general steps give such a reply, without their scans of quotes and
    prose (there is no prose): the object's label keys must agree, and it must be the model's
    own (neither the object nor its first line copied from the document). None hands every
    other reply, and an object naming no label, to the general steps.
    """
    read = whole_object(text, document)
    if not isinstance(read, tuple):
        return read
    obj, label = read
    fields = {str(k).lower(): v for k, v in obj.items()}  # what text_field reads, made once
    snippet = next(
        (fields[k] for k in ("document_snippet", "snippet", "evidence") if k in fields), None
    )
    reasoning = next(
        (fields[k] for k in ("reasoning", "justification", "rationale") if k in fields), None
    )
    return Judgement(
        label=label,
        snippet=snippet if isinstance(snippet, str) else None,
        reasoning=reasoning if isinstance(reasoning, str) else None,
    )
