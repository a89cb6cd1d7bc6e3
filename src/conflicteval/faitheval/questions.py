"""FaithEval problems as the methods' :class:`~conflicteval.ramdocs.methods.Question`.

Choices of this library (the RAMDocs paper's FaithEval setup could not be recovered here):

* ``rag``: FaithEval README's prompt with the item's context;
* ``no-rag``: the same prompt with an empty context (``Context: ``), so the answer format and
  the task sentence stay those the README's scoring expects;
* ``madam``: one agent per document of the context. A context holding two or more lines that
  start with ``Document`` followed by a colon or a number is split before each such line;
  any other context is one document.
* every call: the RAMDocs methods' decoding, 128 new tokens (:data:`MAX_NEW_TOKENS`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from conflicteval.faitheval.data import FaithItem
from conflicteval.faitheval.scoring import PROMPT, faitheval_prompt, question_text
from conflicteval.fingerprint import text_version
from conflicteval.ramdocs.methods import MAX_NEW_TOKENS as _RAMDOCS_MAX_NEW_TOKENS
from conflicteval.ramdocs.methods import Question
from conflicteval.ramdocs.prompts import load_prompt

MAX_NEW_TOKENS = _RAMDOCS_MAX_NEW_TOKENS
"""Reply budget of every FaithEval call: 128, the RAMDocs script's ``call_llm``
(``max_new_tokens=128``), not the 256 of FaithEval's README. These runs reproduce the RAMDocs
paper's Table 1 FaithEval column, measured through that one ``call_llm``; the README's budget
is for FaithEval's own leaderboard, which this library does not reproduce. The answers are
short (``unknown``, ``conflict``, an option), so the budget rarely binds."""

_DOC_START = re.compile(r"^(?=Document\s*(?:\d+\s*)?:|Document\s+\d+\b)", re.M)


def split_documents(context: str) -> list[str]:
    """The documents of a context (see the module docs); never empty."""
    starts = [m.start() for m in _DOC_START.finditer(context)]
    if len(starts) < 2:
        return [context]
    bounds = [*starts, len(context)]
    head = context[: starts[0]].strip()
    parts = [context[a:b].strip() for a, b in itertools.pairwise(bounds)]
    if head:
        parts[0] = head + "\n" + parts[0]
    return [p for p in parts if p]


def faitheval_question(item: FaithItem) -> Question:
    """One FaithEval problem as the methods' input (what scoring needs in ``meta``)."""
    version = text_version(load_prompt(PROMPT))
    documents = split_documents(item.context)
    meta: dict[str, object] = {
        "task": item.task,
        "answer_key": item.answer_key,
        "answer_text": item.answer_text,
        "choices": [[label, text] for label, text in item.choices],  # counterfactual scoring
        "documents": documents,
        "prompt_versions": {"rag": version, "no-rag": version},
    }
    return Question(
        id=item.id,
        question=question_text(item),
        documents=tuple(documents),
        rag_prompt=faitheval_prompt(item),
        no_rag_prompt=faitheval_prompt(item, context=""),
        meta=meta,
    )


def faitheval_questions(items: Iterable[FaithItem]) -> list[Question]:
    """Every problem as a :class:`Question`."""
    return [faitheval_question(i) for i in items]
