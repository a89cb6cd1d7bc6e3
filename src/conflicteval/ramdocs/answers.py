"""Reading MADAM-RAG replies: the agent's answer, the stop test, the final answer segment.

:func:`normalize_answer`, :func:`agent_answer` and :func:`answers_unchanged` do what
``run_madam_rag.py`` (github.com/HanNight/RAMDocs, commit d44454c9) does, including its
corner cases: an agent reply without ``Answer: `` or ``Explanation`` is sliced with
``str.find``'s -1 as that code slices it, and the stop test is its two-way containment of
normalized answers (an empty answer is contained in every answer).

:func:`answer_segment` is this library's reading of the final output for scoring (the
repository ships no scorer): the text after ``All Correct Answers:`` up to the next
``Explanation``; an output whose several such lists differ is unreadable. The explanation
is left out because it routinely names the answers it rejects (the aggregator's own example
does: "Agent 3 provides an error stating ... 1998").
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from conflicteval.errors import ParseFailure

FINAL_MARKER = "All Correct Answers:"


def normalize_answer(s: str) -> str:
    """Lower-case, drop punctuation, the articles a/an/the and extra whitespace (MADAM's own).

    The order is the repository's: lower, remove punctuation, remove articles, fix whitespace.
    """
    text = s.lower()
    text = "".join(ch for ch in text if ch not in string.punctuation)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def agent_answer(response: str) -> str:
    """The answer part of an agent's reply, sliced exactly as ``multi_agent_debate`` does.

    ``response[response.find("Answer: ") + 8 : response.find("Explanation")].strip()``: with
    no ``Answer: `` the slice starts at 7, with no ``Explanation`` it ends before the last
    character (Python's -1), as in the original.
    """
    start = response.find("Answer: ") + len("Answer: ")
    return response[start : response.find("Explanation")].strip()


def agent_explanation(response: str) -> str:
    """The explanation part of an agent's reply (``multi_agent_debate``'s slice)."""
    return response[response.find("Explanation: ") + len("Explanation: ") :]


def answers_unchanged(previous: Sequence[str], current: Sequence[str]) -> bool:
    """MADAM-RAG's early stop: every agent's normalized answer contains, or is contained in,
    its previous one.

    Raises:
        ValueError: The two rounds have different numbers of agents.
    """
    if len(previous) != len(current):
        raise ValueError("the two rounds have different numbers of agents")
    for prev, cur in zip(previous, current, strict=True):
        p, c = normalize_answer(prev), normalize_answer(cur)
        if not (c in p or p in c):
            return False
    return True


def _segments(output: str) -> list[str]:
    """Every answer list of ``output``: after each ``All Correct Answers:``, up to the next
    ``Explanation`` or the next ``All Correct Answers:``, whichever comes first."""
    parts = output.split(FINAL_MARKER)[1:]
    out = []
    for part in parts:
        end = part.find("Explanation")
        out.append((part if end == -1 else part[:end]).strip())
    return out


def answer_segment(output: str) -> str:
    """The answer list of a final output: after ``All Correct Answers:``, before ``Explanation``.

    An output may repeat the marker (a draft, then a final list). When every answer list it
    writes reads the same (after :func:`normalize_answer` and :func:`fold_numbers`), that list
    is the answer; when they differ, the output names two answers and is unreadable.

    Raises:
        ParseFailure: The output has no ``All Correct Answers:``, or two answer lists that
            differ (an unreadable reply is a failure, never a guess), with the output as
            ``raw``.
    """
    segments = _segments(output)
    if not segments:
        raise ParseFailure(f"no '{FINAL_MARKER}' in the final output", raw=output)
    readings = {normalize_answer(fold_numbers(seg)) for seg in segments}
    if len(readings) > 1:
        raise ParseFailure(
            f"{len(segments)} '{FINAL_MARKER}' lists that differ: not one answer", raw=output
        )
    return segments[-1]


_DIGIT_SEPARATOR = re.compile(r"(?<=\d)[,.'\u00a0\u2009\u202f ](?=\d{3}(?!\d))")


def fold_numbers(text: str) -> str:
    """``text`` with the separators of digit groups removed: ``10 000``, ``10,000``,
    ``10.000``, ``10'000`` and ``10\u202f000`` all read ``10000``.

    A separator is one comma, dot, apostrophe or (narrow, no-break) space between a digit and
    a group of exactly three digits; ``2, 100`` (a comma and a space: a list) is left alone.
    """
    return _DIGIT_SEPARATOR.sub("", text)
