"""LexicalLabeler: a transparent, offline baseline labeler (not a model).

For each (claim, document) pair:

1. **Relevance.** Content words (lower-cased; stop words and hedging words
   such as "sources", "suggest", "others" removed; a light suffix strip, so
   "opened" matches "open") of the claim's *frame* -- the claim without its names and
   numbers, which are the slots checked in step 3 -- are looked up in the
   document. The pair is IRRELEVANT unless at least ``min_overlap`` of them
   (as a fraction) and at least ``min_shared`` occur in the document. A claim
   that is all names and numbers uses all its content words.
2. **Evidence sentence.** The document sentence sharing the most claim content
   words is the evidence (it becomes the ``snippet``).
3. **Contradiction.** A relevant pair is CONTRADICTS when any of these holds,
   otherwise SUPPORTS:

   * *number*: none of the claim's numbers of one kind (years, or other
     quantities; digits, number words, ordinals: "fourth" counts as 4) is in
     the document, and the evidence sentence has another number of that kind.
     A hedged claim giving two years is supported by a document with either
     (the paper's partial support);
   * *date*: none of the claim's months is in the document and the evidence
     sentence names another month;
   * *name*: a capitalised span of the claim ("Pittsburgh Steelers") is nowhere
     in the document (case-insensitive), and the evidence sentence has a
     capitalised span that is not in the claim;
   * *negation*: exactly one of the claim and the evidence sentence is
     negated ("not", "no", "never", "n't", ...).

The ``reasoning`` of each label says which rule fired. Blind spots are listed
in ``docs/conflictscore.md``: paraphrase and synonyms (no overlap, so
IRRELEVANT), contradiction without a number, date, name or negation
("was a scientist" vs "was a musician"), negation far from the evidence
sentence, and documents that mention the claim's entity only to deny it in
words the rules do not see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conflicteval.types import Document, PairLabel, Relation, Usage

from .labelers import BaseLabeler, LabelResult, document_text
from .sentences import split_sentences

__all__ = ["LexicalLabeler", "content_words"]

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom whose why will with would you your yours yourself yourselves one many much
    may might must shall us s t said says say according however although though yet thus
    """.split()
)
"""Function words, never content."""

REPORTING_WORDS = frozenset(
    """
    source sources document documents report reports reported evidence suggest suggests
    suggested claim claims claimed state states stated indicate indicates indicated give
    gives given others other some disagree disagrees differ differs unclear uncertain
    possibly perhaps likely whereas while either
    """.split()
)
"""Hedging and attribution words ("some sources suggest ..."): not about the topic."""

NEGATIONS = frozenset("not no never none neither nor cannot nobody nothing nowhere".split())

_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_NUMBER_WORDS.update(
    {
        "thirty": 30,
        "forty": 40,
        "fifty": 50,
        "sixty": 60,
        "seventy": 70,
        "eighty": 80,
        "ninety": 90,
        "hundred": 100,
    }
)
_ORDINALS = {
    w: i + 1
    for i, w in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split()
    )
}
MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH_ABBR = {m[:3]: m for m in MONTHS} | {"sept": "september"}

_WORD = re.compile(r"[A-Za-z0-9À-ÖØ-öø-ÿ]+(?:[’'][A-Za-z]+)?")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:st|nd|rd|th)?\b")
_CONNECTORS = frozenset("of the de da del von van and for la le".split())


def _norm(word: str) -> str:
    """Lower-case, drop a possessive, then a light suffix strip (-s, -ing, -ed, -e)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    elif "'" in w:
        w = w.split("'")[0]
    if w.isdigit():
        return w
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


def content_words(text: str) -> set[str]:
    """Lower-cased content words of ``text`` (stop words removed, plural "s" dropped)."""
    out = set()
    for match in _WORD.finditer(text):
        raw = match.group(0).lower()
        if raw in STOPWORDS or raw in REPORTING_WORDS:
            continue
        w = _norm(raw)
        if w and w not in STOPWORDS and (len(w) > 1 or w.isdigit()):
            out.add(w)
    return out


def _is_negated(text: str) -> bool:
    for match in _WORD.finditer(text):
        w = match.group(0).lower().replace("’", "'")
        if w in NEGATIONS or w.endswith("n't"):
            return True
    return False


@dataclass(frozen=True)
class _Num:
    value: float
    kind: str  # "year" or "quantity"


def _numbers(text: str) -> set[_Num]:
    out: set[_Num] = set()
    for match in _NUMBER.finditer(text):
        digits = match.group(1).replace(",", "")
        value = float(digits)
        is_year = (
            re.fullmatch(r"1\d{3}|20\d{2}", digits) is not None
            and not match.group(0)[len(match.group(1)) :]
        )
        out.add(_Num(value, "year" if is_year else "quantity"))
    for match in _WORD.finditer(text):
        w = match.group(0).lower()
        if w in _NUMBER_WORDS:
            out.add(_Num(float(_NUMBER_WORDS[w]), "quantity"))
        elif w in _ORDINALS:
            out.add(_Num(float(_ORDINALS[w]), "quantity"))
    return out


def _months(text: str) -> set[str]:
    out = set()
    for match in _WORD.finditer(text):
        w = match.group(0).lower()
        if w in MONTHS and (w != "may" or match.group(0)[0].isupper()):
            out.add(w)
        elif w in _MONTH_ABBR and match.group(0)[0].isupper():
            out.add(_MONTH_ABBR[w])
    return out


_CLAUSE = re.compile(r"[,.;:!?()\[\]\"“”]|\s[-–—]\s")


def _named_spans(text: str) -> list[str]:
    """Capitalised word sequences (with inner "of", "the", ...) within one clause.

    A span that is only the first word of a clause ("However", "Despite") and
    a lone capitalised stop word are not names.
    """
    spans: list[str] = []
    for clause in _CLAUSE.split(text):
        words = [m.group(0) for m in _WORD.finditer(clause)]
        current: list[str] = []
        pending: list[str] = []
        starts_clause = False
        for k, w in enumerate([*words, ""]):
            if w and w[0].isupper() and not w.isdigit():
                if not current:
                    if w.lower() in STOPWORDS:
                        continue
                    starts_clause = k == 0
                current.extend(pending)
                pending = []
                current.append(w)
                continue
            if current and w and w.lower() in _CONNECTORS and not pending:
                pending = [w]
                continue
            if current and not (starts_clause and len(current) == 1):
                spans.append(" ".join(current))
            current, pending = [], []
    return spans


def _contains(haystack_lower: str, needle: str) -> bool:
    pattern = r"(?<!\w)" + re.escape(needle.lower()) + r"(?!\w)"
    return re.search(pattern, haystack_lower) is not None


class LexicalLabeler(BaseLabeler):
    """The offline baseline labeler (see the module docstring for its rules).

    Args:
        min_overlap: Fraction of the claim's content words that must occur in
            the document for the pair to be relevant.
        min_shared: Least number of shared content words for relevance.

    Makes no model calls (``calls`` is 0, ``usage`` empty).
    """

    name = "lexical"

    def __init__(self, min_overlap: float = 0.5, min_shared: int = 2) -> None:
        self.min_overlap = min_overlap
        self.min_shared = min_shared

    def identity(self) -> dict[str, Any]:
        """The labeler and its thresholds (recorded with a run's checkpoint)."""
        return {
            **super().identity(),
            "min_overlap": self.min_overlap,
            "min_shared": self.min_shared,
        }

    def label_pair(self, claim: str, document: Document | str) -> PairLabel:
        """Label one pair (claim_index/doc_index 0); see :meth:`label` for tables."""
        doc = Document.coerce(document)
        label, snippet, reasoning = self._decide(claim, document_text(doc))
        return PairLabel(
            claim_index=0, doc_index=0, label=label, snippet=snippet, reasoning=reasoning
        )

    def _decide(self, claim: str, text: str) -> tuple[Relation, str | None, str]:
        claim_words = content_words(claim)
        if not claim_words:
            return "IRRELEVANT", None, "claim has no content words"
        claim_spans = _named_spans(claim)
        claim_numbers = _numbers(claim)
        # Relevance is judged on the claim's frame: its words outside names and
        # numbers, which are the slots the contradiction rules then check.
        slot_words = content_words(" ".join(claim_spans)) | {
            w for w in claim_words if w.isdigit() or w in _NUMBER_WORDS or w in _ORDINALS
        }
        frame = (claim_words - slot_words) or claim_words
        doc_words = content_words(text)
        shared = frame & doc_words
        ratio = len(shared) / len(frame)
        need = min(self.min_shared, len(frame))
        overlap = f"{len(shared)}/{len(frame)} claim frame words in document"
        if len(shared) < need or ratio < self.min_overlap:
            return "IRRELEVANT", None, f"{overlap}: below the relevance threshold"
        sentences = split_sentences(text) or [text]
        evidence = max(sentences, key=lambda s: len(claim_words & content_words(s)))
        lower = text.lower()
        reasons: list[str] = []

        doc_numbers = _numbers(text)
        ev_numbers = _numbers(evidence)
        for kind in ("year", "quantity"):
            mine = sorted(n.value for n in claim_numbers if n.kind == kind)
            if not mine or any(n in doc_numbers for n in claim_numbers if n.kind == kind):
                continue  # no number of this kind, or one of them is in the document
            others = sorted({n.value for n in ev_numbers if n.kind == kind} - set(mine))
            if others:
                reasons.append(
                    f"number {', '.join(f'{v:g}' for v in mine)} of the claim is not in the "
                    f"document; the evidence sentence has {', '.join(f'{v:g}' for v in others)}"
                )
                break
        claim_months = _months(claim)
        if claim_months and not claim_months & _months(text):
            other = _months(evidence) - claim_months
            if other:
                reasons.append(
                    f"date: {', '.join(sorted(claim_months))} vs {', '.join(sorted(other))}"
                )
        claim_lower = claim.lower()
        for span in claim_spans:
            if _contains(lower, span):
                continue
            names = [n for n in _named_spans(evidence) if not _contains(claim_lower, n)]
            if names:
                reasons.append(f"name {span!r} is not in the document; evidence names {names[0]!r}")
                break
        if _is_negated(claim) != _is_negated(evidence):
            which = "claim" if _is_negated(claim) else "evidence sentence"
            reasons.append(f"negation: only the {which} is negated")
        if reasons:
            return "CONTRADICTS", evidence, f"{overlap}; " + "; ".join(reasons)
        return "SUPPORTS", evidence, f"{overlap}; no number, date, name or negation mismatch"

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """Label every (claim, document) pair; no model calls."""
        docs = [Document.coerce(d, i) for i, d in enumerate(documents)]
        texts = [document_text(d) for d in docs]
        pairs = []
        for i, claim in enumerate(claims):
            row = []
            for j, text in enumerate(texts):
                label, snippet, reasoning = self._decide(claim, text)
                row.append(
                    PairLabel(
                        claim_index=i,
                        doc_index=j,
                        label=label,
                        snippet=snippet,
                        reasoning=reasoning,
                    )
                )
            pairs.append(row)
        return LabelResult(pairs=pairs, calls=0, usage=Usage())
