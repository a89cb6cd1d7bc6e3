"""Tolerant parsers for the replies of the ConflictScore prompts.

* :func:`parse_claims` reads the "Claims:" list of the decomposition prompt (Table 6;
  in :mod:`.claims_parse`, re-exported here).
* :func:`parse_label` / :func:`parse_judgement` read the JSON object of the
  labelling prompt (Table 7); :mod:`.hedging` holds the rules for hedged, negated
  and quoted answers.
* :func:`~conflicteval.conflictscore.indexed_labels.parse_indexed_labels` (in
  :mod:`.indexed_labels`) reads the ``{"labels": [{"index": ...}, ...]}`` object of
  the project's batched labelling prompts.

None of them ever guesses a label from ambiguous prose: when a reply does not
name exactly one label they report no label and say why.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from conflicteval.conflictscore.claims_parse import claims_list_problem, parse_claims
from conflicteval.conflictscore.hedging import label_context_problem, quoted_spans
from conflicteval.conflictscore.label_words import (
    ANSWER_KEYS,
    corrected_labels,
    normalize_label,
    object_label,
)
from conflicteval.conflictscore.reply_text import (
    Judgement,
    copied_from,
    normal_source,
    read_whole_object,
    whole_object,
)
from conflicteval.conflictscore.reply_text import copied as _copied
from conflicteval.conflictscore.reply_text import get_field as _get
from conflicteval.conflictscore.reply_text import normal_text as _normal
from conflicteval.conflictscore.reply_text import text_field as _text_field
from conflicteval.confusables import fold_confusables
from conflicteval.jsonparse import MAX_EXAMINED, iter_json_spans, string_end
from conflicteval.types import Relation

__all__ = [
    "Judgement",
    "claims_list_problem",
    "copied_from",
    "judgement_label",
    "normalize_label",
    "parse_claims",
    "parse_judgement",
    "parse_label",
]

# --------------------------------------------------------------------------- labels

MAX_PIECES = 50
"""JSON objects, answer lines or label words a reply may hold: a reply with more is not one
answer (a parse failure), and the work per reply stays bounded."""

_ANSWER_KEYS = ANSWER_KEYS
_INDEX_KEYS = ("index", "claim_index", "document_index", "doc_index", "number", "id")


def _json_object_spans(text: str) -> Iterator[tuple[dict[str, Any], int, int]]:
    yield from iter_json_spans(text[:MAX_EXAMINED], dict, outermost=True, keep_pairs=True)


_NEGATIONS = frozenset({"NOT", "NO", "NEVER", "NON", "NEITHER", "NOR", "DOESN'T", "ISN'T"})
_ANSWER_BEFORE = re.compile(
    r"""\b(?:final[ _]answer|answer|label|verdict|relation)\b["'’]?\s*[:=]\s*$""", re.IGNORECASE
)


def _unquoted(text: str, spans: Sequence[tuple[int, int, str]] | None = None) -> str:
    """``text`` with quoted material blanked out (same length, so positions still match).

    Blanked: strings in double, “curly”, 'single' (not apostrophes), ‘curly single’,
    «guillemet» or „low-high“ quotes, except keys (followed by ``:``) and the
    value of an answer key (``"answer": "SUPPORTS"``), and markdown block quotes
    (lines starting with ``>``). What a reply quotes from the document (``the
    document says 'answer: SUPPORTS'``, a snippet field holding that text) is
    never read as the model's own answer. Linear in the length of ``text``.
    """
    out = list(text)
    for start, end, _ in quoted_spans(text) if spans is None else spans:
        if end - start <= 2:
            continue  # nothing inside to blank
        if re.match(r"[ \t]{0,8}:", text[end : end + 9]):
            continue  # a key
        if _ANSWER_BEFORE.search(text[max(0, start - 40) : start]):
            continue  # the value of an answer key
        out[start + 1 : end - 1] = " " * (end - start - 2)
    for m in re.finditer(r"(?m)^[ \t]*>.*$", text):
        out[m.start() : m.end()] = " " * (m.end() - m.start())
    return "".join(out)


_KEYED = re.compile(
    # one class after the colon (not ``\s*`` then a class holding ``\s``): linear on
    # ``answer:`` followed by a long run of spaces
    r"""["']?\b(?:final[ _]answer|answer|label|verdict|relation)\b["']?[ \t]*[:=]["'*\s]*"""
    r"""([A-Za-z][A-Za-z _-]*)""",
    re.IGNORECASE,
)
_UPPER_WORD = re.compile(
    r"\b(SUPPORTS|SUPPORTED|SUPPORT|CONTRADICTS|CONTRADICTED|CONTRADICTION|CONTRADICT|IRRELEVANT)\b"
)
_FIELD_START = r'"{key}"[ \t]*:\s*"'


def _salvage_field(text: str, key: str) -> str | None:
    """The string value of the first ``"key": "..."`` in ``text`` (linear; None: none closed)."""
    match = re.search(_FIELD_START.format(key=key), text)
    if not match:
        return None
    end = string_end(text, match.end())
    if end == -1:
        return None
    raw = text[match.end() : end]
    try:
        value = json.loads(f'"{raw}"')
    except ValueError:
        return raw
    return value if isinstance(value, str) else None


def _keyed_label(raw: str) -> tuple[Relation | bool | None, int]:
    """The label of a ``answer: WORD`` match (first one or two words only) and its length.

    Returns False for a negated label (``answer: not SUPPORTS``), which names
    no label; "not relevant" is the synonym of IRRELEVANT, no negation. The
    length is how many characters of ``raw`` the label words take.
    """
    words = list(re.finditer(r"\S+", raw))
    for n in (2, 1):
        if len(words) >= n:
            label = normalize_label(" ".join(w.group() for w in words[:n]))
            if label is not None:
                return label, words[n - 1].end()
    if words and words[0].group().upper() in _NEGATIONS:
        return False, words[0].end()
    return None, 0


def _from_json_objects(
    text: str, plain: str, quoted: list[tuple[int, int]], document: str | None
) -> tuple[Judgement | None, bool]:
    """Step 1 of :func:`parse_judgement`: the complete JSON objects of the reply.

    Returns:
        The judgement the objects give (None: no object names a label), and whether
        the reply holds an object of the model's own (not copied, not reported).
    """
    found: list[tuple[Relation, dict[str, Any]]] = []
    saw_object = False
    objects: list[tuple[int, int]] = []
    for obj, start, end in _json_object_spans(text):
        objects.append((start, end))
        if len(objects) > MAX_PIECES:
            return Judgement(problem=f"more than {MAX_PIECES} JSON objects: not one answer"), True
        if _copied(text[start:end], document) or _reported_object(plain, quoted, start):
            continue
        saw_object = True
        label, disagreement = object_label(obj)  # every label-bearing key, duplicates too
        if disagreement:
            return Judgement(problem=disagreement), True
        if label is not None:
            found.append((label, obj))
    shaped = [(lab, obj) for lab, obj in found if _get(obj, ("document_snippet", "reasoning"))]
    if shaped:
        found = shaped
    if found:
        labels = sorted({label for label, _ in found})
        if len(labels) > 1:
            problem = f"JSON objects with different answers: {', '.join(labels)}"
            return Judgement(problem=problem), saw_object
        other = _prose_disagrees(_blank(plain, objects), found[0][0], keyed_lines=True)
        if other:
            return Judgement(problem=other), saw_object
        obj = found[0][1]
        judgement = Judgement(
            label=found[0][0],
            snippet=_text_field(obj, "document_snippet", "snippet", "evidence"),
            reasoning=_text_field(obj, "reasoning", "justification", "rationale"),
        )
        return judgement, saw_object
    return None, saw_object


def parse_judgement(text: str, document: str | None = None) -> Judgement:
    """Parse a reply to the Table 7 prompt into a :class:`Judgement`.

    The prompt asks for one JSON object whose ``answer`` field holds the
    label. Tried in order, stopping at the first step that finds a label:

    1. Every complete JSON object in the reply (inside code fences or prose);
       its ``answer`` field (or ``label``/``verdict``/``relation``) normalised
       by :func:`normalize_label`. When some objects carry the prompt's other
       fields (``document_snippet``, ``reasoning``), only those count: they
       are the model's own answer, a bare ``{"answer": ...}`` beside them is
       quoted material. Objects that agree give that label; objects that
       disagree give None ("ambiguous").
    2. ``answer: WORD`` / ``"answer": "WORD`` patterns outside quoted text
       (see :func:`_unquoted`), which also catch a truncated JSON object whose
       answer was complete. Several different answers give None.
    3. Only for a reply without any ``{``: a reply that is just a label word
       ("SUPPORTS", "**contradicts**."), else exactly one distinct upper-case
       label word in unquoted prose.

    Negations name no label: ``answer: not SUPPORTS`` gives None (it is not
    read further), and a label word right after "not"/"does not"/"no" in
    prose does not count. A lower-case verb in prose ("the document does not
    support ...") is never read as a label.

    Whatever step finds the label, every label-bearing key and every label word
    of the reply must agree with it (:mod:`.label_words`): two label keys of one
    object that differ (duplicate ``answer`` keys, ``answer`` and ``Answer``,
    ``answer`` and ``label``), an answer line outside the object naming another
    label, the answer's own label negated, hedged or asked elsewhere in the
    reply ("I would not say SUPPORTS. answer: SUPPORTS"), or a self-correction
    ("Label: SUPPORTS. Wait, no: CONTRADICTS.") is a parse failure. The reply is
    read after :func:`~conflicteval.confusables.fold_confusables` (a Cyrillic
    ``Ѕ`` in ``ЅUPPORTS`` is an ``S``); snippet and reasoning are returned as
    the reply wrote them.

    Args:
        text: The reply.
        document: The document the pair was labelled against, when known. A
            JSON object or an answer line that the reply merely copies from it
            (an instruction planted in the document, echoed) is ignored.
    """
    if not isinstance(text, str) or not text.strip():
        return Judgement(problem="empty reply")
    folded = fold_confusables(text)
    judgement = _parse_folded(folded, fold_confusables(document) if document else document)
    if folded != text and (judgement.snippet or judgement.reasoning):
        judgement.snippet = _as_written(text, judgement.snippet, "document_snippet")
        judgement.reasoning = _as_written(text, judgement.reasoning, "reasoning")
    return judgement


def judgement_label(text: str, document: str | None = None) -> tuple[Relation | None, str | None]:
    """The label :func:`parse_judgement` reads from ``text``, and its problem when there is none.

    What a reply whose JSON was already validated needs (the labeler checks that its text names
    the validated label and no other): for the common reply that is one JSON object, read at
    once without building its :class:`Judgement`; any other reply through
    :func:`parse_judgement` itself.
    """
    if isinstance(text, str) and text.isascii():  # folding changes nothing
        read = whole_object(
            text, document if document is None or document.isascii() else fold_confusables(document)
        )
        if isinstance(read, tuple):
            return read[1], None
    judgement = parse_judgement(text, document)
    return judgement.label, judgement.problem


def _as_written(text: str, folded_value: str | None, key: str) -> str | None:
    """The reply's own text of a field the folded reply gave as ``folded_value``."""
    if folded_value is None:
        return None
    candidates = [_salvage_field(text, key)]
    candidates += [v for obj, _, _ in _json_object_spans(text) for v in obj.values()]
    for value in candidates:
        if isinstance(value, str) and fold_confusables(value) == folded_value:
            return value
    return folded_value


def _parse_folded(text: str, document: str | None) -> Judgement:
    """:func:`parse_judgement` on a reply (and document) already folded."""
    whole = read_whole_object(text, document)
    return whole if whole is not None else _parse_general(text, document)


def _parse_general(text: str, document: str | None) -> Judgement:
    """Every step of :func:`parse_judgement`, for any reply (already folded)."""
    head = text[:MAX_EXAMINED]
    spans = quoted_spans(head)
    plain = _without_copied_lines(text, _unquoted(head, spans), document)
    quoted = [(s, e) for s, e, _ in spans]
    judgement, saw_object = _from_json_objects(text, plain, quoted, document)
    if judgement is not None:
        return judgement
    snippet = _salvage_field(text, "document_snippet")
    reasoning = _salvage_field(text, "reasoning")
    keyed = _keyed_answers(text, plain, document)
    if keyed is not None:
        label, problem = keyed
        if label is None:
            return Judgement(problem=problem, snippet=snippet)
        return Judgement(label=label, snippet=snippet, reasoning=reasoning)
    if saw_object:
        return Judgement(problem="no label in the JSON answer field", snippet=snippet)
    if "{" in text:
        return Judgement(problem="truncated JSON without an answer", snippet=snippet)
    bare = normalize_label(text)
    if bare is not None:
        return Judgement(label=bare)
    label, problem = _prose_label(plain)
    if label is None:
        return Judgement(problem=problem, snippet=snippet)
    return Judgement(label=label, snippet=snippet, reasoning=reasoning)


def _without_copied_lines(text: str, plain: str, document: str | None) -> str:
    """``plain`` with every line the reply copies from ``document`` blanked (not a bare label)."""
    if not document:
        return plain
    spans = []
    pos = 0
    source = normal_source(document)  # once, not once per line
    for line in text[: len(plain)].splitlines(keepends=True):
        piece = _normal(line)
        if len(piece) >= 8 and piece in source and normalize_label(line) is None:
            spans.append((pos, pos + len(line.rstrip("\r\n"))))
        pos += len(line)
    return _blank(plain, spans)


def _blank(text: str, spans: Sequence[tuple[int, int]]) -> str:
    out = list(text)
    for start, end in spans:
        out[start:end] = " " * (min(end, len(text)) - start)
    return "".join(out)


def _reported_object(plain: str, quoted: Sequence[tuple[int, int]], start: int) -> bool:
    """Whether the JSON object at ``start`` is quoted or reported ("the document says {...}")."""
    k = bisect.bisect_left(quoted, (start, -1)) - 1  # spans are sorted and never overlap
    if k >= 0 and quoted[k][0] < start < quoted[k][1]:
        return True
    if start < len(plain) and plain[start] == " ":
        return True  # inside a block quote
    return label_context_problem(plain, start, start, keyed=True) == _REPORTED_PROBLEM


_REPORTED_PROBLEM = "an answer line reported from the document, not the model's own"


def _keyed_answers(
    text: str, plain: str, document: str | None
) -> tuple[Relation | None, str] | None:
    """Step 2: the ``answer: WORD`` lines; None when there is none, else (label, problem)."""
    keyed: set[Relation] = set()
    problems: list[str] = []
    spans: list[tuple[int, int]] = []
    for n, m in enumerate(_KEYED.finditer(plain)):
        if n >= MAX_PIECES:
            return None, f"more than {MAX_PIECES} answer lines: not one answer"
        line_start = plain.rfind("\n", 0, m.start()) + 1
        line_end = plain.find("\n", m.end())
        if _copied(text[line_start : line_end if line_end != -1 else len(text)], document):
            continue
        lab, length = _keyed_label(m.group(1))
        if lab is None:
            continue
        spans.append((m.start(), m.start(1) + length))
        if lab is False:
            problems.append("a negated label")
            continue
        label_end = m.start(1) + length
        closed = plain[label_end : label_end + 3].lstrip("*_ ")[:1] in ('"', "'")
        # a quoted value ends at its quote: what follows is another field, not a hedge
        problem = label_context_problem(
            plain, m.start(), label_end, keyed=True, check_after=not closed
        )
        if problem:
            problems.append(problem)
        else:
            keyed.add(lab)  # type: ignore[arg-type]
    if not keyed and not problems:
        return None
    if len(keyed) == 1 and not problems:
        label = next(iter(keyed))
        other = _prose_disagrees(_blank(plain, spans), label)
        return (None, other) if other else (label, "")
    names = ", ".join(sorted(keyed) + sorted(set(problems)))
    return None, f"no single answer in reply: {names}"


def _prose_disagrees(plain: str, label: Relation, *, keyed_lines: bool = False) -> str | None:
    """A problem when the reply's own prose does not agree with the answer ``label``.

    It disagrees when it asserts another upper-case label, when it negates, hedges or
    asks the answer's own label ("I would not say SUPPORTS"), when it corrects itself
    to another label ("Wait, no: contradicts"), and (``keyed_lines``) when an answer
    line of its own outside the JSON object names another label or a negated one.
    """
    for n, m in enumerate(_UPPER_WORD.finditer(plain)):
        if n >= MAX_PIECES:
            return f"more than {MAX_PIECES} label words in the reply: not one answer"
        other = normalize_label(m.group(1))
        if other is None:
            continue
        problem = label_context_problem(plain, m.start(), m.end())
        if other == label:
            if problem:
                return f"the answer says {label} but the reply's text gives it as {problem}"
        elif problem != "a negated label":
            return f"the answer says {label} but the reply's text says {other}"
    corrected = sorted(corrected_labels(plain, MAX_PIECES) - {label})
    if corrected:
        return f"the answer says {label} but the reply corrects itself to {corrected[0]}"
    if keyed_lines:
        for n, m in enumerate(_KEYED.finditer(plain)):
            if n >= MAX_PIECES:
                return f"more than {MAX_PIECES} answer lines: not one answer"
            lab, length = _keyed_label(m.group(1))
            if lab is None or lab == label:
                continue
            end = m.start(1) + length
            if label_context_problem(plain, m.start(), end, keyed=True) == _REPORTED_PROBLEM:
                continue
            said = "a negated label" if lab is False else lab
            return f"the JSON answer says {label} but an answer line says {said}"
    return None


def _prose_label(plain: str) -> tuple[Relation | None, str]:
    """Step 3: exactly one upper-case label word, asserted plainly, in the unquoted prose."""
    upper: set[Relation] = set()
    negated_words = 0
    negated: set[Relation] = set()
    problems: list[str] = []
    for n, m in enumerate(_UPPER_WORD.finditer(plain)):
        if n >= MAX_PIECES:
            return None, f"more than {MAX_PIECES} label words in the reply: not one answer"
        problem = label_context_problem(plain, m.start(), m.end())
        if problem == "a negated label":
            negated_words += 1
            said = normalize_label(m.group(1))
            if said is not None:
                negated.add(said)
        elif problem:
            problems.append(problem)
        else:
            label = normalize_label(m.group(1))
            if label is not None:
                upper.add(label)
    if problems:
        return None, f"{problems[0]} in reply"
    if len(upper) == 1:
        label = upper.pop()
        if label in negated:
            return None, f"{label} both said and negated in reply"
        corrected = sorted(corrected_labels(plain, MAX_PIECES) - {label})
        if corrected:
            return None, f"the reply says {label} and corrects itself to {corrected[0]}"
        return label, ""
    if len(upper) > 1:
        return None, "several label words in reply and no answer field"
    if negated_words:
        return None, "only a negated label in reply"
    return None, "no label in reply"


def parse_label(text: str, document: str | None = None) -> Relation | None:
    """Return the label a Table 7 reply names, or None when it names no single label.

    See :func:`parse_judgement` for what is accepted.
    """
    return parse_judgement(text, document).label
