"""Helpers shared by the source loaders."""

from __future__ import annotations

import re
from collections.abc import Iterable

from conflicteval.fingerprint import text_fingerprint


def normalize_question(text: str) -> str:
    """Lower-case, whitespace-collapsed question text without a final ``?`` (grouping key)."""
    return " ".join(text.lower().split()).rstrip(" ?")


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def normalize_answer(text: str) -> str:
    """SQuAD answer normalisation: lower case, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", _PUNCT.sub("", text.lower())).split())


def short_hash(text: str) -> str:
    """First 12 hex digits of the SHA-1 of ``text`` (stable ids for records without one)."""
    return text_fingerprint(text, 12, algorithm="sha1")  # SHA-1: the ids built files hold


def contains_answer(text: str, answers: Iterable[str]) -> bool:
    """True when ``text`` contains one of ``answers`` as whole words, ignoring case and spacing."""
    hay = " ".join(text.split()).lower()
    for answer in answers:
        needle = " ".join(str(answer).split()).lower()
        if not needle:
            continue
        if re.search(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", hay):
            return True
    return False
