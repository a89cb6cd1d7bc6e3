"""``did you mean ...?``: the nearest valid word for a mistyped name, option or choice."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean", "unknown"]


def did_you_mean(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str:
    """``"; did you mean 'x'?"`` naming the closest of ``choices`` to ``word``, or ``""``.

    Closeness is :func:`difflib.get_close_matches` (a ratio of at least ``cutoff``), also
    tried without case, so ``gpt4`` finds ``GPT-4``.
    """
    options = [str(c) for c in choices]
    close = difflib.get_close_matches(word, options, n=1, cutoff=cutoff)
    if not close:
        lowered = {o.lower(): o for o in options}
        found = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
        close = [lowered[found[0]]] if found else []
    return f"; did you mean {close[0]!r}?" if close else ""


def unknown(what: str, word: str, choices: Iterable[str], *, limit: int = 12) -> str:
    """``"unknown WHAT 'word'; did you mean 'x'? (known: a, b, ...)"``, for an error message."""
    options = [str(c) for c in choices]
    shown = ", ".join(options[:limit]) + (", ..." if len(options) > limit else "")
    return f"unknown {what} {word!r}{did_you_mean(word, options)} (known: {shown or 'none'})"
