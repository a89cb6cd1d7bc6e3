"""The label words of a labelling reply: synonyms, label-bearing keys, self-corrections.

The rule every labelling parser applies (the project's own; the ConflictScore paper asks for
one JSON ``answer`` in its Table 7 prompt and says nothing about replies that name two
labels): **every label-bearing key and every label word of the reply, after folding
look-alike letters** (:func:`conflicteval.confusables.fold_confusables`), **must agree**,
or the reply is a parse failure. This module holds the pieces of that rule that are not
about hedges or quotes (those are in :mod:`.hedging`):

* :func:`normalize_label`: one value to a label (folded first, so ``ЅUPPORTS`` is read);
* :func:`object_label`: the label of one JSON object from *all* its label-bearing keys
  (``answer``, ``Answer``, ``label``, ``verdict``, ..., duplicates included);
* :func:`corrected_labels`: the labels a reply gives after correcting itself
  (``Wait, no: CONTRADICTS``), whatever their case.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from conflicteval.confusables import fold_confusables
from conflicteval.types import Relation

__all__ = ["ANSWER_KEYS", "corrected_labels", "normalize_label", "object_label"]

_SYNONYMS: dict[str, Relation] = {
    "SUPPORTS": "SUPPORTS",
    "SUPPORT": "SUPPORTS",
    "SUPPORTED": "SUPPORTS",
    "SUPPORTING": "SUPPORTS",
    "CONTRADICTS": "CONTRADICTS",
    "CONTRADICT": "CONTRADICTS",
    "CONTRADICTED": "CONTRADICTS",
    "CONTRADICTING": "CONTRADICTS",
    "CONTRADICTION": "CONTRADICTS",
    "CONTRADICTORY": "CONTRADICTS",
    "REFUTES": "CONTRADICTS",
    "REFUTE": "CONTRADICTS",
    "REFUTED": "CONTRADICTS",
    "IRRELEVANT": "IRRELEVANT",
    "IRRELEVANCE": "IRRELEVANT",
    "NOT RELEVANT": "IRRELEVANT",
    "UNRELATED": "IRRELEVANT",
    "NEUTRAL": "IRRELEVANT",
}

ANSWER_KEYS = ("answer", "label", "relation", "verdict", "prediction", "final_answer")
"""Keys whose value is the reply's label (compared without case, after folding)."""

_STRIP = " \t\r\n*_`'\"<>[]().,:;!"


def normalize_label(value: object) -> Relation | None:
    """Map one label value to a :data:`~conflicteval.types.Relation`, or None.

    Accepts the three labels in any case, singular or plural ("support",
    "Contradicted", "CONTRADICTION"), wrapped in markdown or quotes, written with
    look-alike letters (a Cyrillic ``Ѕ``), and the synonyms REFUTES (-> CONTRADICTS),
    NOT RELEVANT / UNRELATED / NEUTRAL (-> IRRELEVANT). A template echo such as
    ``<SUPPORTS|CONTRADICTS|IRRELEVANT>`` or any longer phrase gives None.
    """
    if not isinstance(value, str) or "|" in value:
        return None
    if len(value) <= _REMEMBERED:
        return _short_label(value)
    return _label_of(value)


_REMEMBERED = 64
"""Label values up to this length are read once and remembered (a run repeats a handful)."""
_SEPARATORS = re.compile(r"[\s_\-]+")


def _label_of(value: str) -> Relation | None:
    word = _SEPARATORS.sub(" ", fold_confusables(value).strip(_STRIP)).upper()
    return _SYNONYMS.get(word)


_short_label = lru_cache(maxsize=1024)(_label_of)


@lru_cache(maxsize=256)
def _label_key_text(key: str) -> bool:
    return fold_confusables(key).strip().lower() in ANSWER_KEYS


def object_label(obj: Mapping[str, Any]) -> tuple[Relation | None, str | None]:
    """The label of one JSON object, read from every label-bearing key.

    Duplicate keys are seen when ``obj`` is a
    :class:`~conflicteval.jsonparse.PairsDict` (its ``pairs``). Values that are null or
    blank are absent. Returns ``(label, None)`` when every present value names the same
    label, ``(None, None)`` when no value names a label, and ``(None, problem)`` when
    the values disagree or one names a label and another does not.
    """
    pairs = getattr(obj, "pairs", None)
    items = pairs if isinstance(pairs, list) else list(obj.items())
    values = [
        v
        for k, v in items
        if _label_key_text(k if type(k) is str else str(k))
        and not (v is None or (isinstance(v, str) and not v.strip()))
    ]
    if len(values) <= 1:  # the common reply: one answer key (what the general case gives it)
        return (normalize_label(values[0]) if values else None), None
    labels = [normalize_label(v) for v in values]
    named = sorted({lab for lab in labels if lab is not None})
    if not named:
        return None, None
    if len(named) > 1 or None in labels:
        shown = ", ".join(repr(v) if not isinstance(v, str) else v for v in values)
        return None, f"the JSON answer fields disagree: {shown}"
    return named[0], None


_CORRECTED = re.compile(
    r"\b(?:no|nope|wait|correction|actually|sorry|i\s+mean|on\s+second\s+thought|"
    r"scratch\s+that)\b[\s*_`,:;!—–-]*"
    r"(?:(?:it'?s|it\s+is|the\s+(?:answer|label)\s+is|make\s+(?:it|that))\s+)?[*_`\"']*"
    r"(supports?|supported|contradicts?|contradicted|contradiction|irrelevant|refutes?|refuted|"
    r"not\s+relevant)\b",
    re.IGNORECASE,
)


def corrected_labels(plain: str, limit: int = 50) -> set[Relation]:
    """Labels the reply's own prose gives right after a correction (``Wait, no: CONTRADICTS``,
    ``actually, supports``), in any case. ``plain`` is the folded reply with quoted material
    blanked; at most ``limit`` corrections are read."""
    found: set[Relation] = set()
    for n, m in enumerate(_CORRECTED.finditer(plain)):
        if n >= limit:
            break
        label = normalize_label(m.group(1))
        if label is not None:
            found.add(label)
    return found
