"""Reading the claims list of the decomposition prompt (ConflictScore's Table 6)."""

from __future__ import annotations

import re

__all__ = ["claims_list_problem", "parse_claims"]

_CLAIMS_PREFIX = re.compile(r"^\**\s*claims?\s*(?:\d+\s*)?\**\s*[:：]\s*\**\s*", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[-*•·–—+>]|\(?\d{1,3}[.)\]]|\[\d{1,3}\]|\(\d{1,3}\))\s+")
_QUOTES = {('"', '"'), ("“", "”"), ("'", "'"), ("‘", "’")}


def _clean_claim_line(line: str) -> str:
    text = line.strip()
    previous = None
    while text != previous:
        previous = text
        text = _CLAIMS_PREFIX.sub("", text)
        text = _BULLET.sub("", text).strip()
        if text.startswith("**") and text.endswith("**") and len(text) > 4:
            text = text[2:-2].strip()
        if len(text) > 1 and (text[0], text[-1]) in _QUOTES:
            text = text[1:-1].strip()
    return text


def parse_claims(text: str) -> list[str]:
    """Parse the reply to the decomposition prompt (Table 6) into a list of claims.

    One claim per line. Tolerates a "Claims:" prefix (also repeated, on every
    line, numbered "Claim 2:" or bold), bullets and numbering ("-", "*", "1.",
    "(2)", "[3]"), blank lines, quotes around a claim, and a preamble line that
    ends with a colon ("Here are the claims:"). Returns ``[]`` when nothing is
    left; the caller records that as a failure.
    """
    if not isinstance(text, str):
        return []
    claims: list[str] = []
    for line in text.splitlines():
        claim = _clean_claim_line(line)
        if not claim or set(claim) <= set("-*_=#`~ "):
            continue
        if claim.endswith(":") or claim.startswith("```"):
            continue
        if claim.startswith("#"):
            continue
        claims.append(claim)
    return claims


def claims_list_problem(text: str) -> str | None:
    """Why a decomposition reply is not a claims list, or None when it is one.

    The Table 6 prompt asks for the claims one per line, starting with
    "Claims:". A reply counts as a list when it has a "Claims:" (or "Claim 1:")
    line, a bulleted or numbered line, or at least two claim lines; a single
    bare line such as "OK" or "Sure." is an acknowledgement, not a claim, and
    is refused (the project's choice: the paper does not say).
    """
    if not isinstance(text, str) or not text.strip():
        return "empty decomposition reply"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        plain = line.lstrip("*#> ").strip()
        if _CLAIMS_PREFIX.match(plain) or _BULLET.match(plain):
            return None
    if len(parse_claims(text)) >= 2:
        return None
    shown = " ".join(text.split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"the decomposition reply is not a claims list (no 'Claims:' line or list): {shown!r}"
