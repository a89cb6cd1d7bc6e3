"""Reading replies: the chosen option, an elicited memory, and a StrategyQA claim's polarity.

The repository ships no answer parser and no metric code (``code/`` holds the prompt builders,
the request helper and ``run.py``), so the rules below are this library's, written to refuse
rather than guess:

* :func:`parse_choice`: the reply (an optional leading ``Answer:`` removed) must open with one
  option letter standing alone (``B``, ``B.``, ``B:``, ``(B)``, ``B)``, ``B: False.``), or be
  exactly one option's text (``False``, ``Uncertain.``; case, surrounding quotes and a final
  period ignored). A letter followed by another option's text (``A: False``) or anything else
  is unreadable: a failure, counted, never a guess.
* :func:`parse_elicitation`: the zero-shot reply's first paragraph must say ``True`` or
  ``False`` (one of the two words, not both); the rest of the reply is the model's evidence,
  which must not be empty.
* :func:`claim_polarity`: the release gives StrategyQA's memory answer as a claim (a sentence),
  not as True/False. The claim with more negation words (``not``, ``no``, ``never``,
  ``cannot``, ``n't``, ...) than its counter claim is the ``False`` one; a tie leaves the
  polarity unknown and the item is left out (counted).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from conflicteval.errors import ParseFailure

_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|none|nor|neither|impossible|unlikely|unable)\b|n't\b",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^\s*(?:answer\s*:\s*)?", re.IGNORECASE)
_LETTER = re.compile(r"^\(?([A-F])(?:\)|\.|:|$)\s*(.*)$", re.DOTALL)


def negations(text: str) -> int:
    """How many negation words ``text`` holds (see :func:`claim_polarity`)."""
    return len(_NEGATION.findall(text))


def claim_polarity(memory_answer: str, counter_answer: str) -> str | None:
    """``"True"`` or ``"False"``: the StrategyQA answer ``memory_answer`` asserts, read against
    ``counter_answer``; None when both hold as many negation words (unknown)."""
    m, c = negations(memory_answer), negations(counter_answer)
    if m == c:
        return None
    return "False" if m > c else "True"


def _norm(text: str) -> str:
    return text.strip().strip("\"'`*").strip().rstrip(".").strip().lower()


def parse_choice(reply: str, options: Mapping[str, str]) -> str:
    """The option letter a reply chooses.

    Args:
        reply: The model's reply.
        options: ``{letter: option text}`` of the prompt (``{"A": "True", ...}``).

    Raises:
        ParseFailure: The reply cannot be read as exactly one option.
    """
    text = _LEAD.sub("", reply.strip(), count=1).strip()
    first_line = text.split("\n", 1)[0].strip()
    found = _LETTER.match(first_line)
    if found and found.group(1) in options:
        letter, rest = found.group(1), _norm(found.group(2))
        others = {_norm(t) for k, t in options.items() if k != letter}
        if rest and rest != _norm(options[letter]) and rest in others:
            raise ParseFailure(f"option {letter} with another option's text: {first_line!r}")
        return letter
    matches = [k for k, t in options.items() if _norm(t) == _norm(text)]
    if len(matches) == 1:
        return matches[0]
    raise ParseFailure(f"no single option letter or option text: {reply[:80]!r}")


def parse_elicitation(reply: str) -> tuple[str, str]:
    """A StrategyQA memory reply read as ``(answer, evidence)``: ``"True"``/``"False"`` from
    its first paragraph, the evidence from the rest.

    Raises:
        ParseFailure: The first paragraph says neither or both, or no evidence follows.
    """
    text = reply.strip()
    parts = re.split(r"\n\s*\n", text, maxsplit=1)
    if len(parts) < 2:
        parts = text.split("\n", 1)
    first = parts[0]
    said = {w.capitalize() for w in re.findall(r"\b(true|false)\b", first, re.IGNORECASE)}
    if len(said) != 1:
        raise ParseFailure(f"the first paragraph says neither or both True and False: {first!r}")
    evidence = parts[1].strip() if len(parts) > 1 else ""
    if not evidence:
        raise ParseFailure("no second paragraph (the model's evidence)")
    return said.pop(), evidence
