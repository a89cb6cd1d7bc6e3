"""FaithEval's scoring and prompt, as its README publishes them.

Provenance: ``README.md`` of github.com/SalesforceAIResearch/FaithEval at commit
104dbb0fb34ebe4792ee21088ad1b067f5214533 (Apache-2.0), "Quick Start". The prompt
(``prompts/faitheval_prompt.txt``, the f-string body there, byte for byte), the task-specific
sentences and the valid phrases (``prompts/faitheval_readme.json``) are copied verbatim;
:func:`normalize_answer` is that README's. A prediction is correct when any valid phrase occurs
(plain substring) in the normalized prediction: ``strict`` uses one phrase per task, the
non-strict list several.

The README gives phrases for ``unanswerable`` and ``inconsistent`` only. For ``counterfactual``
(multiple choice) this library's choice: the prediction is correct when its normalized text is
the answer key's label (``"b"``) or contains the normalized text of the option the answer key
names; strict and non-strict are the same there. The README gives no task-specific sentence
for counterfactual either: none is added, and the options follow the question, one per line as
``A. text`` (this library's layout).
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from typing import Any

from conflicteval.faitheval.data import FaithItem
from conflicteval.prompt_files import prompt_text
from conflicteval.ramdocs.prompts import load_prompt, render_fstring

PROMPT = "faitheval_prompt"


@cache
def readme_data() -> dict[str, Any]:
    """The task-specific sentences and valid phrases (``prompts/faitheval_readme.json``)."""
    data: dict[str, Any] = json.loads(prompt_text("faitheval_readme.json"))
    return data


def valid_phrases(task: str, *, strict: bool) -> list[str]:
    """The README's valid phrases for ``unanswerable`` or ``inconsistent``.

    Raises:
        ValueError: Any other task (the README gives none).
    """
    phrases = readme_data()["valid_phrases"]
    if task not in phrases:
        raise ValueError(f"the FaithEval README gives no valid phrases for {task!r}")
    return list(phrases[task]["strict" if strict else "non_strict"])


def normalize_answer(s: str) -> str:
    """FaithEval README's normalization: underscores to spaces, lower-case, punctuation (and
    ‘ ’ ´ `) to spaces, articles removed, whitespace collapsed."""
    text = s.replace("_", " ").lower()
    exclude = set(string.punctuation + "‘’´`")
    text = "".join(ch if ch not in exclude else " " for ch in text)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split()).strip()


def is_correct(item: FaithItem, prediction: str, *, strict: bool) -> bool:
    """Whether a prediction is correct under the README's rule (see the module docs).

    Raises:
        ValueError: A counterfactual item whose answer key names no option.
    """
    pred = normalize_answer(prediction)
    if item.task != "counterfactual":
        return any(phrase in pred for phrase in valid_phrases(item.task, strict=strict))
    text = item.answer_text
    if item.answer_key is None or text is None:
        raise ValueError(f"item {item.id}: the answer key names no option")
    target = normalize_answer(text)
    return pred == normalize_answer(item.answer_key) or (bool(target) and target in pred)


def question_text(item: FaithItem) -> str:
    """The question as shown to the model (counterfactual: options follow, ``A. text``)."""
    if not item.choices:
        return item.question
    return item.question + "\n" + "\n".join(f"{label}. {text}" for label, text in item.choices)


def faitheval_prompt(item: FaithItem, *, context: str | None = None) -> str:
    """The README's prompt for an item (``context`` replaces the item's, e.g. ``""``)."""
    task_prompt = readme_data()["task_specific_prompt"].get(item.task, "")
    return render_fstring(
        load_prompt(PROMPT),
        {
            "task_specific_prompt": task_prompt,
            "example['context']": item.context if context is None else context,
            "example['question']": question_text(item),
        },
    )
