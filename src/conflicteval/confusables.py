"""Folding look-alike letters to ASCII before a parser compares label words.

A reply can hide a second label behind letters that look Latin but are not
(a Cyrillic ``Ѕ`` in ``ЅUPPORTS``, a Greek ``Ο``, full-width ``ＳＵＰＰＯＲＴＳ``, mathematical
bold ``𝐒``) or behind invisible characters inside a word (``SUP\\u200bPORTS``). A parser
that compares the raw text misses such a word, so a reply naming two labels could pass as
naming one. :func:`fold_confusables` maps those letters to the ASCII letter they look like
(case kept) and removes invisible format characters, so that every label word is seen.

The table is the project's own: the Cyrillic, Greek and Armenian letters that look like a
Latin letter, and every character of the full-width, letter-like, enclosed and mathematical
alphanumeric blocks whose compatibility form (NFKC) is one ASCII letter. Parsers fold only
the text they read labels from; what they report back (snippets, reasoning) is the reply's
own text.
"""

from __future__ import annotations

import unicodedata
from functools import cache

__all__ = ["fold_confusables"]

_LOOK_ALIKES = {
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q",
    "Ԝ": "W", "Ү": "Y", "Ӏ": "I", "Ԁ": "D", "Ԍ": "G", "Ꙇ": "I",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s",
    "і": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    "ο": "o", "ν": "v", "α": "a", "ι": "i", "κ": "k", "ρ": "p", "υ": "u", "χ": "x",
    "ϲ": "c", "ϳ": "j",
    # Armenian
    "Ս": "U", "Տ": "S", "Օ": "O", "ս": "u", "օ": "o", "ո": "n", "հ": "h", "ց": "g",
    # Latin small capitals and others that read as a letter
    "ı": "i", "ȷ": "j", "ℓ": "l",
}  # fmt: skip

_COMPATIBILITY_BLOCKS = (
    (0x2100, 0x214F),  # letter-like symbols
    (0x2460, 0x24FF),  # enclosed alphanumerics
    (0xFF21, 0xFF5A),  # full-width Latin
    (0x1D400, 0x1D7FF),  # mathematical alphanumerics
    (0x1F130, 0x1F189),  # enclosed alphanumeric supplement
)

_INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068"
    "\u2069\u3164\ufeff\uffa0"
)
"""Characters that show nothing: soft hyphen, zero-width and joiner characters, direction
marks and isolates, the Hangul fillers; variation selectors are added in the table."""


@cache
def _table() -> dict[int, str | None]:
    table: dict[int, str | None] = {ord(k): v for k, v in _LOOK_ALIKES.items()}
    for low, high in _COMPATIBILITY_BLOCKS:
        for code in range(low, high + 1):
            form = unicodedata.normalize("NFKC", chr(code))
            if len(form) == 1 and form.isascii() and form.isalpha():
                table[code] = form
    for ch in _INVISIBLE:
        table[ord(ch)] = None
    for code in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)):  # variation selectors
        table[code] = None
    return table


def fold_confusables(text: str) -> str:
    """``text`` with look-alike letters as ASCII and invisible characters removed.

    ASCII text is returned unchanged at once. Anything not in the table (other scripts,
    accents, punctuation) is kept as it is.

    >>> fold_confusables("\\u0405UPPORTS")
    'SUPPORTS'
    """
    if text.isascii():
        return text
    return text.translate(_table())
