"""What a labelling reply quotes, hedges or negates: the parser's reasons to refuse a label.

:func:`quoted_spans` finds quoted material in one linear pass (double quotes with
JSON escapes, “curly”, ‘curly single’, 'single' quotes that are not apostrophes,
«guillemets», ‹single guillemets› and „low-high“ quotes). :func:`label_context_problem`
says why a label word found in a reply's own text is not a plain answer: it is
negated ("It is not the case that ... SUPPORTS", "fails to SUPPORT"), hedged
("SUPPORTS if we ignore the date, otherwise ..."), asked ("SUPPORTS? No."), or
reported from the document ("The document says — answer: SUPPORTS").

These are the project's own rules (the ConflictScore paper, "ConflictScore:
Identifying and Measuring How Language Models Handle Conflicting Evidence", asks
for a JSON answer in its Table 7 prompt and says nothing about prose replies): a
reply that is not plainly one label is a parse failure, never a guess.
"""

from __future__ import annotations

import re

__all__ = ["label_context_problem", "quoted_spans", "sentence_span"]

_OPENERS = re.compile("[\"“‘'«‹„]")
_CLOSER = {"“": "”", "‘": "’", "'": "'", "«": "»", "‹": "›", "„": "“”"}


def _escaped(text: str, j: int, start: int) -> bool:
    k = j - 1
    while k >= start and text[k] == "\\":
        k -= 1
    return (j - 1 - k) % 2 == 1


def _double_end(text: str, start: int, line_end: int) -> int:
    """Index of the quote closing a double-quoted string opened before ``start`` (-1: none)."""
    j = text.find('"', start, line_end)
    while j != -1:
        if not _escaped(text, j, start):
            return j
        j = text.find('"', j + 1, line_end)
    return -1


def _apostrophe_like(text: str, i: int) -> bool:
    """Whether the ``'``/``’`` at ``i`` sits inside a word (doesn't, documents')."""
    return i > 0 and text[i - 1].isalnum()


def _single_end(text: str, start: int, line_end: int, closer: str) -> int:
    j = text.find(closer, start, line_end)
    while j != -1:
        after = text[j + 1] if j + 1 < len(text) else " "
        if not after.isalnum():
            return j
        j = text.find(closer, j + 1, line_end)
    return -1


def quoted_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, opener)`` of every quoted span of ``text``, quotes included.

    Linear in ``len(text)``: a quote that is not closed on its line quotes nothing,
    and the search for its closer is not repeated for later openers on that line.
    A ``'`` inside a word (an apostrophe) opens nothing.
    """
    spans: list[tuple[int, int, str]] = []
    cursor = 0
    no_close_before: dict[str, int] = {}  # closer -> line end up to which it is known absent
    line_end = -1
    for m in _OPENERS.finditer(text):
        i = m.start()
        if i < cursor:
            continue
        ch = text[i]
        if i >= line_end:  # found once per line, not once per quote (linear)
            line_end = text.find("\n", i)
            line_end = len(text) if line_end == -1 else line_end
        if ch == '"':
            end = _double_end(text, i + 1, line_end)
            if end == -1:
                cursor = line_end  # an unterminated string runs to the end of its line
                continue
        else:
            if ch in "'‘" and _apostrophe_like(text, i):
                continue
            closers = _CLOSER[ch]
            if no_close_before.get(closers, -1) >= line_end:
                continue
            found = [_single_end(text, i + 1, line_end, c) for c in closers]
            found = [j for j in found if j != -1]
            if not found:
                no_close_before[closers] = line_end
                continue
            end = min(found)
        spans.append((i, end + 1, ch))
        cursor = end + 1
    return spans


_BOUNDARY = re.compile(r"[.!?;\n]")
SENTENCE_REACH = 300
"""Characters of a label word's sentence examined on each side (the rest is too far to count)."""


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``text[start:end]``: from the last boundary before it to the next.

    Boundaries are ``. ! ? ;`` and line ends. The returned end includes the
    boundary character (so a question mark stays visible). A sentence is looked
    at no further than :data:`SENTENCE_REACH` characters on either side, so the
    work per label word is bounded and a whole reply stays linear.
    """
    floor = max(0, start - SENTENCE_REACH)
    left = max(max(text.rfind(c, floor, start) for c in ".!?;\n") + 1, floor)
    m = _BOUNDARY.search(text, end, end + SENTENCE_REACH)
    right = m.end() if m else min(len(text), end + SENTENCE_REACH)
    return left, right


_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|neither|nor|cannot|fails?|failed|failing|lacks?|"
    r"lacking|without|hardly|barely|scarcely|instead|unable|refuses?|wrong|false|far\s+from|"
    r"rather\s+than)\b|n't\b|n’t\b",
    re.IGNORECASE,
)
"""Words that negate a label said after them in the same sentence."""

_HEDGE = re.compile(
    r"\b(?:if|unless|otherwise|except|maybe|perhaps|possibly|probably|likely|unlikely|"
    r"might|could|would|partially|partly|somewhat|mostly|largely|arguably|seemingly|"
    r"seems?|appears?|unclear|uncertain|depends|depending|ambiguous|but|however|although|"
    r"though|whereas|or|either|yet|assuming|provided)\b",
    re.IGNORECASE,
)
"""Words that make a label in the same sentence conditional or uncertain."""

_REPORTED = re.compile(
    r"\b(?:says?|said|states?|stated|reads?|writes?|wrote|written|contains?|instructs?|"
    r"instructions?|tells?|told|asks?|asked|quotes?|quoted|mentions?|demands?|orders?|"
    r"prompt|ignore|injected|embedded)\b",
    re.IGNORECASE,
)
"""Words that say an answer line is reported or demanded, not given ("the document says ...")."""

_NEGATED_AFTER = re.compile(r"^[\s*_`'\"”’»)\]—–,:-]*(?:no|not|nope|never|wrong|false)\b", re.I)


def label_context_problem(
    text: str, start: int, end: int, *, keyed: bool = False, check_after: bool = True
) -> str | None:
    """Why the label at ``text[start:end]`` is not a plain answer, or None when it is.

    ``text`` is the reply with quoted material blanked. ``keyed`` marks an
    ``answer: WORD`` match, where ``start`` is the position of the key: a
    reporting word before the key ("the document says answer: ...") makes it a
    quoted answer. The label is refused when, in its sentence, a negation comes
    before it, a hedge comes before or after it, the sentence is a question,
    or a negation follows it at once ("SUPPORTS — not quite"). With
    ``check_after`` False only what comes before the label is examined (a
    quoted answer value ends at its closing quote).
    """
    left, right = sentence_span(text, start, end)
    before, after = text[left:start], text[end:right] if check_after else ""
    if keyed and _REPORTED.search(before):
        return "an answer line reported from the document, not the model's own"
    if _NEGATION.search(before):
        return "a negated label"
    if _HEDGE.search(before) or _HEDGE.search(after):
        return "a hedged or conditional label"
    if after.rstrip().endswith("?") or _NEGATED_AFTER.match(after):
        return "a label in a question or followed by a negation"
    nxt = text[right : right + 40] if check_after else ""
    if re.match(r"[\s*_`]*(?:no|not|nope|wrong|false)\b", nxt, re.IGNORECASE):
        return "a label followed by a negation"
    return None
