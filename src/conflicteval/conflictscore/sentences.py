"""Offline, deterministic sentence segmentation for :class:`SentenceDecomposer`.

Rules (no model, no data files):

* A sentence ends at ``.``, ``!``, ``?`` or an ellipsis, optionally followed by
  closing quotes or brackets, when whitespace and then an upper-case letter,
  a digit, or an opening quote/bracket follow.
* No break after a known abbreviation (``Dr.``, ``e.g.``, ``Jan.``, ``approx.``,
  ``No.`` before a number), after a single capital letter (an initial:
  ``J. K. Rowling``), or after a dotted acronym (``U.S.``, ``U.N.``).
* Decimals (``3.14``), version numbers and URLs have no space after the dot
  and never break.
* Blank lines, and lines that start with a bullet or a number, always break;
  the bullet or number itself is removed.

Blind spots: a sentence that really ends with an abbreviation or an initial
("... moved to the U.S. Then ...") is not split; ``etc.`` before a capital
does split; a lower-case sentence start after a full stop is not recognised.
"""

from __future__ import annotations

import re

__all__ = ["split_sentences"]

TITLE_ABBREVIATIONS = frozenset(
    """
    Mr Mrs Ms Dr Prof Sr Jr St Mt Ft Gen Col Lt Sgt Capt Cmdr Gov Sen Rep Pres Supt Inc Ltd
    Co Corp Dept Univ Bros Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Mon Tue Wed Thu
    Fri Sat Sun vs Vs
    """.split()
)
"""Abbreviations that never end a sentence (matched with this capitalisation)."""

LOWER_ABBREVIATIONS = frozenset("vs eg ie cf al approx ca c".split())
"""Lower-case abbreviations that never end a sentence (``e.g.``, ``et al.``, ``approx.``)."""

NUMBER_ABBREVIATIONS = frozenset("no nos vol vols p pp fig figs ch sec op art b d".split())
"""Abbreviations that do not end a sentence when a number follows (``No. 5``, ``b. 1950``)."""

_BOUNDARY = re.compile(
    r"""(?:\.\.\.|…|[.!?]+)           # terminal punctuation
        ["'”’)\]]*                    # closing quotes / brackets
        (?=\s+["'“‘(\[]?[A-Z0-9À-Ý])  # whitespace, then a sentence start
    """,
    re.VERBOSE,
)
_LAST_TOKEN = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
_LIST_LINE = re.compile(r"^\s*(?:[-*•·–—+]|\d{1,3}[.)]|\(\d{1,3}\))\s+")


def _ends_with_abbreviation(text: str, following: str) -> bool:
    """Whether ``text`` (ending with a full stop) ends with an abbreviation or initial.

    ``following`` is the text after the candidate boundary.
    """
    match = _LAST_TOKEN.search(text)
    if not match:
        return False
    token = match.group(1)
    if len(token) == 1 and token.isupper():
        return True  # an initial
    if re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", token):
        return True  # dotted acronym or e.g. / i.e.
    if token in TITLE_ABBREVIATIONS or token in LOWER_ABBREVIATIONS:
        return True
    return token.lower() in NUMBER_ABBREVIATIONS and following.lstrip()[:1].isdigit()


def _split_block(block: str) -> list[str]:
    sentences: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(block):
        end = match.end()
        piece = block[start:end]
        stripped = piece.rstrip("\"'”’)]")
        if (
            stripped.endswith(".")
            and not stripped.endswith("...")
            and _ends_with_abbreviation(stripped, block[end:])
        ):
            continue
        sentences.append(piece.strip())
        start = end
    tail = block[start:].strip()
    if tail:
        sentences.append(tail)
    return [s for s in sentences if s]


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences (see the module docstring for the rules)."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(" ".join(current))
                current = []
            continue
        if _LIST_LINE.match(line):
            if current:
                blocks.append(" ".join(current))
            current = [_LIST_LINE.sub("", line).strip()]
            continue
        current.append(line.strip())
    if current:
        blocks.append(" ".join(current))
    out: list[str] = []
    for block in blocks:
        out.extend(_split_block(re.sub(r"\s+", " ", block)))
    return out
