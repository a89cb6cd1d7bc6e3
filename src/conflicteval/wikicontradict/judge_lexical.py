"""``lexical``: an offline baseline judge for WikiContradict responses.

Not a model and not the paper's judge: a transparent rule set that

1. decides which gold answers the response contains, after normalisation
   (case, accents, punctuation, articles, thousands separators, number words,
   dates written differently, Yes/No), and
2. looks for surface cues that the response presents the answers as
   conflicting or attributed to different sources ("however", "another
   source", "passage 2", "either … or", "contradict"), or prefers one of them
   ("although", "actually", "is incorrect", "more likely").

Rules for templates with two answers (1, 4, 5, 5.1, 5.3): no answer found →
incorrect; one → partially correct; both with a preference cue → partially
correct; both with a conflict/attribution cue → correct; both without either
cue (merely combined) → incorrect. Templates 2 and 3 (one answer): found →
correct, else incorrect. Templates 5.2/5.4 (is there a conflict?): correct when
the response affirms (5.2) or denies (5.4) a conflict.

What it cannot see: meaning. It misses paraphrased answers ("two" vs "a
pair"), cannot tell an answer quoted in order to reject it from one asserted,
ignores whether extra answers are wrong, and its cue lists were written with
the judge prompt's eight worked examples in view — its agreement on those
eight is a sanity check, not an accuracy estimate.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from conflicteval.wikicontradict.judge_template import Verdict

LEXICAL_VERSION = "lexical/1"

_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_DMY = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b"
)
_DATE_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_DATE_ISO = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MONTH_YEAR = re.compile(rf"\b({_MONTH_RE})\.?,?\s+(\d{{4}})\b")

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_NUMBER_WORD = re.compile(
    rf"\b(?:({'|'.join(_TENS)})(?:[\s-]+({'|'.join(_UNITS)}))?|({'|'.join(_UNITS)}))\b"
)
_ARTICLES = {"a", "an", "the"}
_STOPWORDS = _ARTICLES | {
    "of", "in", "on", "at", "to", "for", "by", "with", "and", "or", "is", "was", "are",
    "were", "be", "been", "it", "its", "as", "from", "that", "this", "than",
}  # fmt: skip


def _strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _dates(text: str) -> str:
    def dmy(m: re.Match[str]) -> str:
        return f" {int(m.group(3)):04d}-{_MONTHS[m.group(2)]:02d}-{int(m.group(1)):02d} "

    def mdy(m: re.Match[str]) -> str:
        return f" {int(m.group(3)):04d}-{_MONTHS[m.group(1)]:02d}-{int(m.group(2)):02d} "

    def iso(m: re.Match[str]) -> str:
        return f" {int(m.group(1)):04d}-{int(m.group(2)):02d}-{int(m.group(3)):02d} "

    def my(m: re.Match[str]) -> str:
        return f" {int(m.group(2)):04d}-{_MONTHS[m.group(1)]:02d} "

    text = _DATE_ISO.sub(iso, text)
    text = _DATE_DMY.sub(dmy, text)
    text = _DATE_MDY.sub(mdy, text)
    return _MONTH_YEAR.sub(my, text)


def _number_words(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        if m.group(3):
            return str(_UNITS[m.group(3)])
        return str(_TENS[m.group(1)] + (_UNITS[m.group(2)] if m.group(2) else 0))

    return _NUMBER_WORD.sub(repl, text)


def normalize(text: str) -> str:
    """Normalise text for answer matching.

    Lower-cases, removes accents, writes dates as ``YYYY-MM-DD`` (or
    ``YYYY-MM``), number words as digits (up to 99), drops thousands
    separators, punctuation and the articles a/an/the.
    """
    text = _strip_accents(text).lower()
    text = _dates(text)
    while True:
        new = re.sub(r"(\d),(\d{3})\b", r"\1\2", text)
        if new == text:
            break
        text = new
    text = _number_words(text)
    text = re.sub(r"(?<=\d)\.(?=\d)", "<dot>", text)
    text = re.sub(r"(?<=\d)-(?=\d{2}\b)", "<dash>", text)
    text = re.sub(r"[^\w<>]+", " ", text).replace("_", " ")
    text = text.replace("<dot>", ".").replace("<dash>", "-")
    return " ".join(t for t in text.split() if t not in _ARTICLES)


_NUMERIC = re.compile(r"^\d+(?:[.-]\d+)*$")


def _numbers(tokens: list[str]) -> set[str]:
    out = set()
    for t in tokens:
        if _NUMERIC.match(t):
            out.add((t.lstrip("0") or "0") if t.isdigit() else t)
    return out


def answer_in_response(answer: str, response: str) -> bool:
    """Whether a gold answer is found in a response, after normalisation.

    Yes/No answers need the word itself; answers with numbers or dates need
    every number or date of the answer; other answers need the whole phrase
    or every content word of it.
    """
    a = normalize(answer)
    r = normalize(response)
    a_tokens, r_tokens = a.split(), r.split()
    if not a_tokens:
        return False
    if a in ("yes", "no"):
        return a in r_tokens
    if f" {a} " in f" {r} ":
        return True
    a_numbers = _numbers(a_tokens)
    if a_numbers:
        return a_numbers <= _numbers(r_tokens)
    content = [t for t in a_tokens if t not in _STOPWORDS] or a_tokens
    present = set(r_tokens)
    return all(t in present for t in content)


_CONFLICT = [
    r"\bhowever\b",
    r"\bon the other hand\b",
    r"\bconflict",
    r"\bcontradict",
    r"\binconsisten",
    r"\bdiscrepan",
    r"\bdisagree",
    r"\bwhereas\b",
    r"\bwhile (?:another|other|the other|some|one)\b",
    r"\b(?:one|another|other|some|different|two|the first|the second|the other) "
    r"(?:source|sources|passage|passages|account|accounts|report|reports|statement|statements)\b",
    r"\bpassage (?:1|2|one|two|a|b)\b",
    r"\beither\b.+\bor\b",
    r"\b(?:unclear|ambiguous|uncertain)\b",
    r"\bdepending on\b",
    r"\bvar(?:y|ies)\b",
]
_PREFERENCE = [
    r"\balthough\b",
    r"\bthough\b",
    r"\bdespite\b",
    r"\bactually\b",
    r"\bin fact\b",
    r"\b(?:more|most) (?:likely|accurate|reliable|plausible|credible|recent)\b",
    r"\b(?:is|are|seems|appears|was) (?:to be )?(?:incorrect|wrong|mistaken|inaccurate|outdated)\b",
    r"\b(?:correct|true|actual|right) (?:answer|number|figure|date|one) is\b",
    r"\ba mistake\b",
    r"\ban error\b",
]
_DENY = re.compile(
    r"^\W*no\b|\bno (?:conflict|contradict|inconsisten|discrepan)|\b(?:does|do|did) not "
    r"(?:contain|have|present|include|show)\b|\bnot (?:conflicting|contradictory)\b|"
    r"\bconsistent\b(?! with)"
)
_AFFIRM = re.compile(r"^\W*yes\b")


def _cues(patterns: list[str], text: str) -> list[str]:
    found = []
    for pat in patterns:
        m = re.search(pat, text)
        if m:
            found.append(m.group(0))
    return found


@dataclass
class LexicalJudgement:
    """The lexical baseline's verdict and why."""

    label: Verdict
    matched: list[bool]
    conflict_cues: list[str] = field(default_factory=list)
    preference_cues: list[str] = field(default_factory=list)
    explanation: str = ""


def lexical_judge(
    question: str, answers: list[str], response: str, template: str = "5"
) -> LexicalJudgement:
    """Grade one response with the lexical baseline.

    Args:
        question: The question (unused by the rules; kept for a uniform signature).
        answers: The gold answers the template expects.
        response: The tested model's response.
        template: The template name; selects the rule set (see module docs).

    Returns:
        A LexicalJudgement with the label and the evidence used.
    """
    del question
    text = _strip_accents(response).lower()
    matched = [answer_in_response(a, response) for a in answers]
    conflict = _cues(_CONFLICT, text)
    preference = _cues(_PREFERENCE, text)
    if template in ("5.2", "5.4"):
        denies = bool(_DENY.search(text))
        affirms = bool(_AFFIRM.search(text)) or (bool(conflict) and not denies)
        wanted = affirms if template == "5.2" else (denies and not _AFFIRM.search(text))
        label: Verdict = "correct" if wanted else "incorrect"
        why = "affirms a conflict" if affirms else ("denies a conflict" if denies else "unclear")
        return LexicalJudgement(label, matched, conflict, preference, f"response {why}")
    n = sum(matched)
    if len(answers) == 1:
        label = "correct" if n else "incorrect"
        why = "answer found" if n else "answer not found"
    elif n == 0:
        label, why = "incorrect", "no gold answer found"
    elif n < len(answers):
        label, why = "partially correct", "only some gold answers found"
    elif preference:
        label, why = "partially correct", f"all answers, but a preference cue ({preference[0]!r})"
    elif conflict:
        label, why = "correct", f"all answers, presented as conflicting ({conflict[0]!r})"
    else:
        label, why = "incorrect", "all answers merely combined, no conflict signalled"
    return LexicalJudgement(label, matched, conflict, preference, why)
