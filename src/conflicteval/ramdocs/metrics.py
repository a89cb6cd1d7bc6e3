"""Exact match over a multi-answer output (RAMDocs and AmbigDocs, Table 1).

The repository ships no scorer and the paper's exact wording of its exact-match rule could not
be recovered here. This library's rule (also printed in every report's header):

    An output scores 1 when, in its answer segment
    (:func:`~conflicteval.ramdocs.answers.answer_segment`), **every gold answer occurs
    asserted and no wrong answer occurs at all**; otherwise 0. Both sides are compared after
    :func:`~conflicteval.ramdocs.answers.fold_numbers` (``10 000`` and ``10,000`` are one
    number) and ``normalize_answer`` (MADAM-RAG's own).

"Occurs" is containment at word boundaries of the normalized texts (``" 1963 "`` in
``" 1963 1956 "``), so ``3`` does not match inside ``1963``. A gold answer *asserted* is one
not negated or hedged in its clause (clauses end at ``; [ ] ( ) | ,`` and line ends): a
negation or hedge word before it (``[not 3,559 people]``, ``[maybe 1963]``) or a rejection
after it (``3,559 people is misinformation``) makes that occurrence not count. A wrong
answer counts against the output wherever it occurs in the segment, negated or not (the
stricter reading). A wrong answer whose normalized text lies inside a gold answer's
(``3559`` inside ``3559 people``) cannot be told apart from that gold answer and is not
checked. An output that says only ``unknown`` has no gold answer in it and scores 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from conflicteval.ramdocs.answers import fold_numbers, normalize_answer

EM_RULE = (
    "exact match = every gold answer occurs, not negated or hedged in its clause, and no "
    "wrong answer occurs (at word boundaries, after folding digit separators and MADAM-RAG's "
    "normalize_answer) in the text after 'All Correct Answers:' and before 'Explanation'; an "
    "output without 'All Correct Answers:', or with two such lists that differ, is unreadable "
    "and scores 0"
)

_CLAUSE_END = re.compile(r"[;\[\]()|,\n]")
_BOUNDARY = "\u2016"  # survives normalize_answer (not ASCII punctuation): marks a clause end
_NEGATION_BEFORE = frozenset(
    "not no never neither nor isnt wasnt arent werent cannot cant instead without except "
    "excluding unlike rather maybe perhaps possibly probably likely might unsure uncertain "
    "unclear allegedly".split()
)
_REJECTION_AFTER = frozenset(
    "misinformation wrong incorrect false not untrue fabricated disputed inaccurate "
    "erroneous fake debunked outdated".split()
)


def _occurs(needle: str, haystack: str) -> bool:
    return f" {needle} " in f" {haystack} "


def _normal(text: str) -> str:
    return normalize_answer(fold_numbers(text))


def _clauses(segment: str) -> list[list[str]]:
    """The normalized words of each clause of ``segment``."""
    marked = _CLAUSE_END.sub(f" {_BOUNDARY} ", fold_numbers(segment))
    words = normalize_answer(marked).split()
    clauses: list[list[str]] = [[]]
    for word in words:
        if word == _BOUNDARY:
            clauses.append([])
        else:
            clauses[-1].append(word)
    return clauses


def _negated(before: list[str], after: list[str]) -> bool:
    return bool(_NEGATION_BEFORE.intersection(before) or _REJECTION_AFTER.intersection(after))


def _asserted(gold: str, segment: str) -> bool:
    """Whether ``gold`` (normalized) occurs in ``segment`` somewhere it is not negated."""
    needle = gold.split()
    n = len(needle)
    found = False
    for words in _clauses(segment):
        for i in range(len(words) - n + 1):
            if words[i : i + n] == needle:
                if not _negated(words[:i], words[i + n :]):
                    return True
                found = True
    if found:
        return False  # it occurs, but only negated
    # written across a clause end ("Paris, France"): the whole segment is its clause
    words = _normal(segment).split()
    for i in range(len(words) - n + 1):
        if words[i : i + n] == needle and not _negated(words[:i], words[i + n :]):
            return True
    return False


def exact_match(segment: str, gold: Sequence[str], wrong: Sequence[str] = ()) -> bool:
    """Whether an answer segment asserts every gold answer and holds no wrong answer.

    Args:
        segment: The output's answer list (or any answer text).
        gold: The gold answers (at least one non-empty after normalization).
        wrong: The wrong answers (misinformation).

    Raises:
        ValueError: No gold answer survives normalization (a score from nothing is refused).
    """
    text = _normal(segment)
    golds = [g for g in (_normal(x) for x in gold) if g]
    if not golds:
        raise ValueError("no gold answer to match (after normalization)")
    if not all(_asserted(g, segment) for g in golds):
        return False
    for raw in wrong:
        w = _normal(raw)
        if not w or any(_occurs(w, g) for g in golds):
            continue
        if _occurs(w, text):
            return False
    return True
