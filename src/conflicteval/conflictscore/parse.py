"""Tolerant parsers for the replies of the ConflictScore prompts.

* :func:`parse_claims` reads the "Claims:" list of the decomposition prompt (Table 6).
* :func:`parse_label` / :func:`parse_judgement` read the JSON object of the
  labelling prompt (Table 7).
* :func:`parse_indexed_labels` reads the ``{"labels": [{"index": ...}, ...]}``
  object of the project's batched labelling prompts.

None of them ever guesses a label from ambiguous prose: when a reply does not
name exactly one label they report no label and say why.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from conflicteval.types import Relation

__all__ = [
    "IndexedLabels",
    "Judgement",
    "normalize_label",
    "parse_claims",
    "parse_indexed_labels",
    "parse_judgement",
    "parse_label",
]

# --------------------------------------------------------------------------- labels

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

_ANSWER_KEYS = ("answer", "label", "relation", "verdict", "prediction", "final_answer")
_INDEX_KEYS = ("index", "claim_index", "document_index", "doc_index", "number", "id")
_STRIP = " \t\r\n*_`'\"<>[]().,:;!"


def normalize_label(value: object) -> Relation | None:
    """Map one label value to a :data:`~conflicteval.types.Relation`, or None.

    Accepts the three labels in any case, singular or plural ("support",
    "Contradicted", "CONTRADICTION"), wrapped in markdown or quotes, and the
    synonyms REFUTES (-> CONTRADICTS), NOT RELEVANT / UNRELATED / NEUTRAL
    (-> IRRELEVANT). A template echo such as ``<SUPPORTS|CONTRADICTS|IRRELEVANT>``
    or any longer phrase gives None.
    """
    if not isinstance(value, str) or "|" in value:
        return None
    word = re.sub(r"[\s_\-]+", " ", value.strip(_STRIP)).upper()
    return _SYNONYMS.get(word)


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


def _json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Yield every complete JSON object in ``text``, outermost first, left to right.

    A '{' that starts no complete object (a truncated reply) is skipped, so
    complete objects nested inside a truncated one are still found.
    """
    decoder = json.JSONDecoder()
    idx = text.find("{")
    while idx != -1:
        try:
            value, end = decoder.raw_decode(text, idx)
        except ValueError:
            idx = text.find("{", idx + 1)
            continue
        if isinstance(value, dict):
            yield value
        idx = text.find("{", end)


def _get(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in keys:
        if key in lowered:
            return lowered[key]
    return None


def _text_field(obj: dict[str, Any], *keys: str) -> str | None:
    value = _get(obj, keys)
    return value if isinstance(value, str) else None


_KEYED = re.compile(
    r"""["']?\b(?:final[ _]answer|answer|label|verdict|relation)\b["']?\s*[:=]\s*["'*\s]*"""
    r"""([A-Za-z][A-Za-z _-]*)""",
    re.IGNORECASE,
)
_UPPER_WORD = re.compile(
    r"\b(SUPPORTS|SUPPORTED|SUPPORT|CONTRADICTS|CONTRADICTED|CONTRADICTION|CONTRADICT|IRRELEVANT)\b"
)
_STRING_FIELD = r'"{key}"\s*:\s*"((?:[^"\\]|\\.)*)"'


def _salvage_field(text: str, key: str) -> str | None:
    match = re.search(_STRING_FIELD.format(key=key), text)
    if not match:
        return None
    try:
        value = json.loads(f'"{match.group(1)}"')
    except ValueError:
        return match.group(1)
    return value if isinstance(value, str) else None


def _keyed_label(raw: str) -> Relation | None:
    """The label of a ``answer: WORD`` match: first one or two words only."""
    words = raw.strip().split()
    for n in (2, 1):
        if len(words) >= n:
            label = normalize_label(" ".join(words[:n]))
            if label is not None:
                return label
    return None


def parse_judgement(text: str) -> Judgement:
    """Parse a reply to the Table 7 prompt into a :class:`Judgement`.

    Tried in order, stopping at the first step that finds a label:

    1. Every complete JSON object in the reply (inside code fences or prose);
       its ``answer`` field (or ``label``/``verdict``/``relation``) normalised
       by :func:`normalize_label`. Several objects that agree give that label;
       objects that disagree give None ("ambiguous").
    2. ``answer: WORD`` / ``"answer": "WORD`` patterns, which also catch a
       truncated JSON object whose answer was complete.
    3. Only for a reply without any ``{``: a reply that is just a label word
       ("SUPPORTS", "**contradicts**."), else exactly one distinct upper-case
       label word in prose.

    A lower-case verb in prose ("the document does not support ...") is never
    read as a label.
    """
    if not isinstance(text, str) or not text.strip():
        return Judgement(problem="empty reply")
    found: list[tuple[Relation, dict[str, Any]]] = []
    saw_object = False
    for obj in _json_objects(text):
        saw_object = True
        label = normalize_label(_get(obj, _ANSWER_KEYS))
        if label is not None:
            found.append((label, obj))
    if found:
        labels = sorted({label for label, _ in found})
        if len(labels) > 1:
            return Judgement(problem=f"JSON objects with different answers: {', '.join(labels)}")
        obj = found[0][1]
        return Judgement(
            label=found[0][0],
            snippet=_text_field(obj, "document_snippet", "snippet", "evidence"),
            reasoning=_text_field(obj, "reasoning", "justification", "rationale"),
        )
    snippet = _salvage_field(text, "document_snippet")
    reasoning = _salvage_field(text, "reasoning")
    keyed = {lab for m in _KEYED.finditer(text) if (lab := _keyed_label(m.group(1)))}
    if len(keyed) == 1:
        return Judgement(label=keyed.pop(), snippet=snippet, reasoning=reasoning)
    if len(keyed) > 1:
        return Judgement(problem=f"several answers in reply: {', '.join(sorted(keyed))}")
    if saw_object:
        return Judgement(problem="no label in the JSON answer field", snippet=snippet)
    if "{" in text:
        return Judgement(problem="truncated JSON without an answer", snippet=snippet)
    bare = normalize_label(text)
    if bare is not None:
        return Judgement(label=bare)
    upper = {normalize_label(m.group(1)) for m in _UPPER_WORD.finditer(text)}
    upper.discard(None)
    if len(upper) == 1:
        return Judgement(label=upper.pop(), snippet=snippet, reasoning=reasoning)
    if len(upper) > 1:
        return Judgement(problem="several label words in reply and no answer field")
    return Judgement(problem="no label in reply")


def parse_label(text: str) -> Relation | None:
    """Return the label a Table 7 reply names, or None when it names no single label.

    See :func:`parse_judgement` for what is accepted.
    """
    return parse_judgement(text).label


# --------------------------------------------------------------------------- indexed labels


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


def _entries(text: str) -> list[dict[str, Any]]:
    """The label entries of a batched reply: the longest list of dicts, else loose objects."""
    best: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()
    idx = text.find("[")
    while idx != -1:
        try:
            value, _ = decoder.raw_decode(text, idx)
        except ValueError:
            value = None
        if isinstance(value, list):
            dicts = [v for v in value if isinstance(v, dict)]
            if len(dicts) > len(best):
                best = dicts
        idx = text.find("[", idx + 1)
    if best:
        return best
    # Truncated outer object/array: keep every complete entry that has an index.
    return [obj for obj in _json_objects(text) if _get(obj, _INDEX_KEYS) is not None]


def parse_indexed_labels(text: str, n: int) -> IndexedLabels:
    """Parse a batched labelling reply for ``n`` items numbered 1..n in the prompt.

    Entries are matched by their ``index`` field (1-based), never by position.
    For every index 0..n-1 of the result: a missing entry, two entries with
    different answers, or an entry without a label is a failure of that pair
    only. Entries with an index outside 1..n are reported in ``extra``.
    A truncated reply keeps the complete entries it has.
    """
    result = IndexedLabels()
    entries = _entries(text) if isinstance(text, str) else []
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
        label = normalize_label(_get(entry, _ANSWER_KEYS))
        seen.setdefault(index - 1, []).append(
            Judgement(
                label=label,
                snippet=_text_field(entry, "document_snippet", "snippet", "evidence"),
                reasoning=_text_field(entry, "reasoning", "justification", "rationale"),
                problem=None if label is not None else "no label in entry",
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


# --------------------------------------------------------------------------- claims

_CLAIMS_PREFIX = re.compile(r"^\**\s*claims?\s*(?:\d+\s*)?\**\s*[:：]\s*\**\s*", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•·–—+>]|\(?\d{1,3}[.)\]]|\[\d{1,3}\]|\(\d{1,3}\))\s+")
_QUOTES = {('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’")}


def _clean_claim_line(line: str) -> str:
    text = line.strip()
    previous = None
    while text != previous:
        previous = text
        text = _CLAIMS_PREFIX.sub("", text)
        text = _BULLET.sub("", text).strip()
        if text.startswith("**") and text.endswith("**") and len(text) > 4:
            text = text[2:-2].strip()
        if len(text) > 1 and (text[0], text[-1]) in _QUOTES:
            text = text[1:-1].strip()
    return text


def parse_claims(text: str) -> list[str]:
    """Parse the reply to the decomposition prompt (Table 6) into a list of claims.

    One claim per line. Tolerates a "Claims:" prefix (also repeated, on every
    line, numbered "Claim 2:" or bold), bullets and numbering ("-", "*", "1.",
    "(2)", "[3]"), blank lines, quotes around a claim, and a preamble line that
    ends with a colon ("Here are the claims:"). Returns ``[]`` when nothing is
    left; the caller records that as a failure.
    """
    if not isinstance(text, str):
        return []
    claims: list[str] = []
    for line in text.splitlines():
        claim = _clean_claim_line(line)
        if not claim or set(claim) <= set("-*_=#`~ "):
            continue
        if claim.endswith(":") or claim.startswith("```"):
            continue
        if claim.startswith("#"):
            continue
        claims.append(claim)
    return claims


def claims_list_problem(text: str) -> str | None:
    """Why a decomposition reply is not a claims list, or None when it is one.

    The Table 6 prompt asks for the claims one per line, starting with
    "Claims:". A reply counts as a list when it has a "Claims:" (or "Claim 1:")
    line, a bulleted or numbered line, or at least two claim lines; a single
    bare line such as "OK" or "Sure." is an acknowledgement, not a claim, and
    is refused (the project's choice: the paper does not say).
    """
    if not isinstance(text, str) or not text.strip():
        return "empty decomposition reply"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        plain = line.lstrip("*#> ").strip()
        if _CLAIMS_PREFIX.match(plain) or _BULLET.match(plain):
            return None
    if len(parse_claims(text)) >= 2:
        return None
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"the decomposition reply is not a claims list (no 'Claims:' line or list): {shown!r}"
