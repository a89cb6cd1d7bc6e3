"""The answering prompts of ClashEval, as package data (``prompts/clasheval_prompts.json``).

Verbatim (values unchanged, stray quote of the ``news`` prompt included) from
``data/prompts/prompts.py`` of github.com/kevinwu23/StanfordClashEval at commit
56e7e0834b8cff17bb53eccd21f04ae916d78254 (CC BY 4.0): ``RAG_RESPONSE`` (the answer with
context) and ``NORAG_RESPONSE`` (the prior, without context), each a system prompt per domain
and a ``user`` template.

How the prompts were sent is not in the repository; the one call it records
(``generate_questions.ipynb``) sends the domain's prompt as the system message and the filled
``user`` template as the user message, at temperature 0 with seed 0, and so does this library.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from conflicteval.fingerprint import text_version
from conflicteval.prompt_files import prompt_text

FILE = "clasheval_prompts.json"


@cache
def _prompts() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(prompt_text(FILE))
    return data


def prior_messages(domain: str, question: str) -> list[dict[str, str]]:
    """The messages asking for the model's prior (``NORAG_RESPONSE``)."""
    p = _prompts()["NORAG_RESPONSE"]
    return [
        {"role": "system", "content": p[domain]},
        {"role": "user", "content": p["user"].format(question=question)},
    ]


def context_messages(domain: str, question: str, context: str) -> list[dict[str, str]]:
    """The messages asking with a (possibly modified) context (``RAG_RESPONSE``)."""
    p = _prompts()["RAG_RESPONSE"]
    return [
        {"role": "system", "content": p[domain]},
        {"role": "user", "content": p["user"].format(question=question, context=context)},
    ]


def prompt_version() -> str:
    """A short hash of the prompt file (part of cache keys and run identities)."""
    return text_version(prompt_text(FILE))
