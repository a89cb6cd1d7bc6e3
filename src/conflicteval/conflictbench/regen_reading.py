"""Reading regeneration replies (paper §6): choice letters, judge verdicts, the main claim.

Also the two document slots of the prompts (``{context_text}``, ``{conflict_details}``).
All pure.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Literal

from conflicteval.conflictbench.metrics import predict_conflict
from conflicteval.conflictbench.report_benchmark import format_documents
from conflicteval.types import Document, Relation

MainClaimRule = Literal["first_conflicted", "first"]
"""How the free-form main claim is chosen: the first conflicted claim, or the first claim."""

MAIN_CLAIM_RULES: tuple[MainClaimRule, ...] = ("first_conflicted", "first")


def format_context(documents: Sequence[Document]) -> str:
    """``{context_text}``: the documents as ``Document <n>: <title>`` blocks."""
    return format_documents(documents)


def format_conflict_details(
    documents: Sequence[Document], supporting: Sequence[int], contradicting: Sequence[int]
) -> str:
    """``{conflict_details}``: the supporting and contradicting documents of the claim.

    Documents keep the numbers they have in ``{context_text}``.
    """

    def block(title: str, indices: Sequence[int]) -> str:
        parts = [title]
        for i in indices:
            doc = documents[i]
            head = f"Document {i + 1}: {doc.title}" if doc.title else f"Document {i + 1}:"
            parts.append(f"{head}\n{doc.text.strip()}")
        return "\n\n".join(parts)

    return (
        block("SUPPORTING DOCUMENTS:", supporting)
        + "\n\n"
        + block("CONTRADICTING DOCUMENTS:", contradicting)
    )


_CHOICE_PAREN = re.compile(r"\(\s*([AB])\s*\)")
_CHOICE_LINE = re.compile(r"^\s*(?:answer\s*:\s*)?\(?\s*([AB])\s*\)?\s*(?:[–—:.\-]|$)", re.I)


_NEGATED = re.compile(r"\b(?:not|no|never|isn't|rather\s+than|instead\s+of)[\s*_`'\"]*$", re.I)


def parse_choice(text: str) -> Literal["A", "B"] | None:
    """The letter a binary-choice reply chose, or None.

    Its first line ``A – …``/``(B)``; else the one letter written in
    parentheses anywhere. Both letters (``(A) or (B)``, the prompt's example
    echoed) give None, and a letter right after a negation ("not (A)") does
    not count.
    """
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        m = _CHOICE_LINE.match(lines[0])
        if m:
            return "A" if m.group(1).upper() == "A" else "B"
    letters = {
        m2.group(1)
        for m2 in _CHOICE_PAREN.finditer(text)
        if not _NEGATED.search(text[max(0, m2.start() - 30) : m2.start()])
    }
    if len(letters) == 1:
        return "A" if letters.pop() == "A" else "B"
    return None


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*_`\[\]]", "", text)).strip().lower()


def parse_verdict(text: str, key: str, answer: str | None = None) -> bool | None:
    """``True``/``False`` after ``<key>:`` (e.g. ``TRUTHFUL: [True]``); None when absent.

    Not read as a verdict: the prompt's format echoed (``TRUTHFUL: [True/False]``,
    ``[True] or [False]``),
    a negation (``TRUTHFUL: not true``), and, with ``answer`` given, a line
    copied word for word from the judged answer (a planted verdict, echoed).
    Several verdicts that disagree give None.
    """
    found: set[bool] = set()
    # the format echoed, each word possibly marked up: "True/False", "[True] or [False]"
    pattern = (
        key + r"\s*:\s*[\*\[\s]*(true|false)\b"
        r"([\*\]\s]*(?:/|\bor\b)[\*\[\s]*(?:true|false)\b)?"
    )
    # Linear in the reply and the answer: the answer is normalised once, each line of the
    # reply at most once (a reply repeating the key on one long line, or on thousands of
    # lines, costs no more than reading it), and a line's bounds come from one list of the
    # reply's line breaks instead of a search back from every match.
    breaks: list[int] | None = None
    copied: dict[int, bool] = {}
    normal_answer: str | None = None
    for m in re.finditer(pattern, text, re.IGNORECASE):
        if m.group(2):
            continue  # "True/False": the format, not a verdict
        if answer:
            if breaks is None:
                breaks = [b.start() for b in re.finditer("\n", text)]
                normal_answer = _normal(answer)
            k = bisect.bisect_left(breaks, m.start())
            if k not in copied:
                start = breaks[k - 1] + 1 if k else 0
                end = breaks[k] if k < len(breaks) else len(text)
                line = _normal(text[start:end])
                copied[k] = bool(line) and line in (normal_answer or "")
            if copied[k]:
                continue
        found.add(m.group(1).lower() == "true")
    return found.pop() if len(found) == 1 else None


def _main_claim(
    row: Sequence[Relation | None],
) -> tuple[list[int], list[int], int, bool | None, str | None]:
    """The main claim's labels → (supporting, contradicting, failed pairs, conflicted, problem).

    ``conflicted`` follows the detection rule (:func:`predict_conflict`): True
    when some document SUPPORTS and another CONTRADICTS; None (undetermined,
    with ``problem`` set) when failed pairs could have changed a "not
    conflicted" outcome. A failed pair is never read as IRRELEVANT.
    """
    sup = [j for j, lab in enumerate(row) if lab == "SUPPORTS"]
    con = [j for j, lab in enumerate(row) if lab == "CONTRADICTS"]
    failed = sum(lab is None for lab in row)
    conflicted = predict_conflict(list(row))
    problem = None
    if conflicted is None:
        problem = f"main claim undetermined: {failed} of {len(row)} pairs failed"
    return sup, con, failed, conflicted, problem


def select_main_claim(
    rows: Sequence[Sequence[Relation | None]], rule: MainClaimRule = "first_conflicted"
) -> tuple[int | None, bool | None, str | None]:
    """Choose the free-form main claim from the labels of every claim (one row per claim).

    Args:
        rows: Labels of each claim against each document, claims in decomposition order.
        rule: ``"first_conflicted"``: the first claim that is conflicted (Table 13's
            "main claim that had conflicts"); ``"first"``: the first claim.

    Returns:
        ``(claim index, conflicted, problem)``. With ``"first_conflicted"``: the
        first conflicted claim; else, when failed pairs could have made a claim
        conflicted, the first such claim with ``conflicted`` None (undetermined,
        ``problem`` set); else ``(None, False, None)``. A claim found conflicted
        is chosen even when an earlier claim is undetermined.
    """
    if rule not in MAIN_CLAIM_RULES:
        raise ValueError(f"unknown main-claim rule {rule!r}; expected one of {MAIN_CLAIM_RULES}")
    if not rows:
        return None, None, "no claims"
    candidates = rows[:1] if rule == "first" else rows
    undetermined: int | None = None
    for i, row in enumerate(candidates):
        verdict = predict_conflict(list(row))
        if verdict:
            return i, True, None
        if verdict is None and undetermined is None:
            undetermined = i
    if undetermined is not None:
        row = rows[undetermined]
        failed = sum(lab is None for lab in row)
        return undetermined, None, f"main claim undetermined: {failed} of {len(row)} pairs failed"
    return (0, False, None) if rule == "first" else (None, False, None)
