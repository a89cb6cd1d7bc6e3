"""Exact match over a multi-answer output (RAMDocs and AmbigDocs, Table 1).

The repository ships no scorer and the paper's exact wording of its exact-match rule could not
be recovered here. This library's rule (also printed in every report's header):

    An output scores 1 when, after ``normalize_answer`` (MADAM-RAG's own) of the output's answer
    segment (:func:`~conflicteval.ramdocs.answers.answer_segment`) and of every answer, **every
    gold answer occurs in it and no wrong answer does**; otherwise 0.

"Occurs" is containment at word boundaries of the normalized texts (``" 1963 "`` in
``" 1963 1956 "``), so ``3`` does not match inside ``1963``. A wrong answer whose normalized
text lies inside a gold answer's (``3559`` inside ``3559 people``) cannot be told apart from
that gold answer and is not checked. An output that says only ``unknown`` has no gold answer in
it and scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from conflicteval.ramdocs.answers import normalize_answer

EM_RULE = (
    "exact match = every gold answer and no wrong answer occurs (at word boundaries, after "
    "MADAM-RAG's normalize_answer) in the text after 'All Correct Answers:' and before "
    "'Explanation'; an output without 'All Correct Answers:' is unreadable and scores 0"
)


def _occurs(needle: str, haystack: str) -> bool:
    return f" {needle} " in f" {haystack} "


def exact_match(segment: str, gold: Sequence[str], wrong: Sequence[str] = ()) -> bool:
    """Whether an answer segment holds every gold answer and no wrong answer.

    Args:
        segment: The output's answer list (or any answer text).
        gold: The gold answers (at least one non-empty after normalization).
        wrong: The wrong answers (misinformation).

    Raises:
        ValueError: No gold answer survives normalization (a score from nothing is refused).
    """
    text = normalize_answer(segment)
    golds = [g for g in (normalize_answer(x) for x in gold) if g]
    if not golds:
        raise ValueError("no gold answer to match (after normalization)")
    if not all(_occurs(g, text) for g in golds):
        return False
    for raw in wrong:
        w = normalize_answer(raw)
        if not w or any(_occurs(w, g) for g in golds):
            continue
        if _occurs(w, text):
            return False
    return True
