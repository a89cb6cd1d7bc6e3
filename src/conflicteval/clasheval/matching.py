"""Whether two answers are the same, as ``compute_metrics.ipynb`` of the ClashEval repository
decides it (``create_eval_df``), per domain:

* ``records``: :func:`same_time` (the notebook's ``compare_times``);
* ``names``: :func:`same_name` (``compare_names``);
* every other domain: the two texts are equal (no normalisation at all).

The functions follow the notebook's logic step by step; they are rewritten, not copied.
"""

from __future__ import annotations

import re


def _seconds_and_minutes(text: str) -> tuple[float, float]:
    """``convert_time``: ``[[H:]M:]S`` as (seconds, minutes); more than two colons: (0, 1).

    Raises:
        ValueError: A part that is no number.
    """
    parts = text.split(":")
    if len(parts) > 3:
        return 0.0, 1.0
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + float(part)
    return seconds, seconds / 60


def same_time(a: str, b: str) -> bool:
    """``compare_times``: the digits of one (trailing zeros dropped) inside the other's, or the
    two read as times within 0.1 of each other as seconds or minutes (any pairing)."""
    digits_a = "".join(ch for ch in a if ch.isdigit()).rstrip("0")
    digits_b = "".join(ch for ch in b if ch.isdigit()).rstrip("0")
    if digits_a in digits_b or digits_b in digits_a:
        return True
    try:
        times_a = _seconds_and_minutes(a)
        times_b = _seconds_and_minutes(b)
    except ValueError:
        return False
    return any(abs(x - y) <= 0.1 for x in times_a for y in times_b)


def normalize_name(name: str) -> str:
    """``normalize_name``: lower case, letters a-z only in each word, words joined by spaces."""
    return " ".join(re.sub(r"[^a-z]", "", part.lower()) for part in name.split())


def same_name(a: str, b: str) -> bool:
    """``compare_names``: a one-word name inside the other normalized name; otherwise the
    normalized names are equal."""
    na, nb = normalize_name(a), normalize_name(b)
    pa, pb = na.split(), nb.split()
    if len(pa) == 1:
        return pa[0] in nb
    if len(pb) == 1:
        return pb[0] in na
    return na == nb


def same_answer(domain: str, a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are the same answer in ``domain`` (see the module docstring)."""
    if domain == "records":
        return same_time(a, b)
    if domain == "names":
        return same_name(a, b)
    return a == b
