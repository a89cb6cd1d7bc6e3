"""FaithEval's scoring and prompt, as its README publishes them.

Provenance: ``README.md`` of github.com/SalesforceAIResearch/FaithEval at commit
104dbb0fb34ebe4792ee21088ad1b067f5214533 (Apache-2.0), "Quick Start". The prompt
(``prompts/faitheval_prompt.txt``, the f-string body there, byte for byte), the task-specific
sentences and the valid phrases (``prompts/faitheval_readme.json``) are copied verbatim;
:func:`normalize_answer` is that README's. A prediction is correct when any valid phrase occurs
(plain substring) in the normalized prediction: ``strict`` uses one phrase per task, the
non-strict list several.

The README's rule credits a phrase even where the prediction negates it ("There is no
conflict: ..." holds ``conflict``). It stays the headline, as the protocol and the published
numbers use it; :func:`negated_credit` says when a prediction is credited *only* through
negated phrases, and the report counts and lists those beside the headline.

The README gives phrases for ``unanswerable`` and ``inconsistent`` only. For ``counterfactual``
(multiple choice) this library's rule (:func:`counterfactual_verdict`; strict and non-strict
are the same there): a prediction is **correct** when it names the answer key's option — its
label (``B``, ``(B)``, ``option B``, ``answer: B``) or its text — asserted, and names no other
option; it is **wrong** when it names another option (listing every option, ``B. trout, not
shark``) or names the key's option only negated or hedged (``not shark``, ``maybe shark``); a
prediction that names no option is **unreadable** (counted and shown, scored 0, never a
guess). Option texts are matched at word boundaries after :func:`normalize_answer`; a text met
only inside a longer option's text (``heat`` in ``heat and light``) is that longer option. The
README gives no task-specific sentence for counterfactual either: none is added, and the
options follow the question, one per line as ``A. text`` (this library's layout).
"""

from __future__ import annotations

import json
import re
import string
from functools import cache
from typing import Any, Literal

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


Verdict = Literal["correct", "wrong", "unreadable"]

_NEGATIONS = frozenset(
    "not no never nothing none neither nor without isnt arent wasnt werent doesnt dont "
    "cannot cant instead rather".split()
)
_HEDGES = frozenset(
    "maybe perhaps probably possibly likely might could unsure unclear either guess".split()
)
_WINDOW = 3
"""Words before a phrase or option that can negate or hedge it (normalized text)."""


def _word_hits(text: str, needle: str) -> list[tuple[int, int]]:
    """``(start, end)`` word indexes of every occurrence of ``needle``'s words in ``text``'s."""
    words, target = text.split(), needle.split()
    n = len(target)
    if not n:
        return []
    return [(i, i + n) for i in range(len(words) - n + 1) if words[i : i + n] == target]


def _label_named(prediction: str, label: str) -> bool:
    """Whether the raw prediction names option ``label`` as a label (``B``, ``(B)``, ``B.``
    at the start of a line, ``option B``, ``answer: B``, ``answer is B``)."""
    lab = re.escape(label)
    if prediction.strip().strip("*_`.:;!()[] ") == label:
        return True
    patterns = (
        rf"(?m)^[\s*_`>#-]*[(\[]?{lab}[)\].:](?:\s|$)",
        rf"[(\[]{lab}[)\]]",
        rf"(?i:\b(?:option|choice|answer|answer\s+is|answer\s*:))\s*[(\[]?{lab}\b(?![-'’])",
    )
    return any(re.search(p, prediction) for p in patterns)


def counterfactual_verdict(item: FaithItem, prediction: str) -> Verdict:
    """This library's counterfactual rule (see the module docs): correct, wrong or unreadable.

    Raises:
        ValueError: An item whose answer key names no option.
    """
    if item.answer_key is None or item.answer_text is None:
        raise ValueError(f"item {item.id}: the answer key names no option")
    pred = normalize_answer(prediction)
    words = pred.split()
    texts = {label: normalize_answer(text) for label, text in item.choices}
    spans = {label: _word_hits(pred, t) for label, t in texts.items()}

    def inside_longer(label: str, span: tuple[int, int]) -> bool:
        return any(
            o != label and len(texts[o]) > len(texts[label]) and a <= span[0] and span[1] <= b
            for o, hits in spans.items()
            for a, b in hits
        )

    named: dict[str, list[tuple[int, int]]] = {}
    for label, hits in spans.items():
        own = [h for h in hits if not inside_longer(label, h)]
        if own:
            named[label] = own
    by_label = {label for label, _ in item.choices if _label_named(prediction, label)}
    if (set(named) | by_label) - {item.answer_key}:
        return "wrong"  # another option is named (also when the key is named too)
    if item.answer_key in by_label:
        return "correct"
    key_hits = named.get(item.answer_key)
    if not key_hits:
        return "unreadable"
    asserted = [
        (a, b)
        for a, b in key_hits
        if not (_NEGATIONS | _HEDGES).intersection(words[max(0, a - _WINDOW) : a])
    ]
    return "correct" if asserted else "wrong"


def is_correct(item: FaithItem, prediction: str, *, strict: bool) -> bool:
    """Whether a prediction is correct: the README's rule for ``unanswerable`` and
    ``inconsistent``, :func:`counterfactual_verdict` for ``counterfactual`` (see the module
    docs).

    Raises:
        ValueError: A counterfactual item whose answer key names no option.
    """
    if item.task == "counterfactual":
        return counterfactual_verdict(item, prediction) == "correct"
    pred = normalize_answer(prediction)
    return any(phrase in pred for phrase in valid_phrases(item.task, strict=strict))


def negated_credit(task: str, prediction: str, *, strict: bool) -> bool:
    """Whether the README's rule credits ``prediction`` only through negated phrases.

    Every valid phrase found in the normalized prediction is negated: a negation word among
    the three words before it ("There is no conflict", "not unknown"), or the phrase is
    itself a negation word that negates another valid phrase right after it (the ``not`` of
    "not unknown", a non-strict phrase). False when the rule does not credit the prediction,
    or credits it through at least one phrase that stands plainly.
    """
    pred = normalize_answer(prediction)
    words = pred.split()
    hits = [(a, b) for p in valid_phrases(task, strict=strict) for a, b in _word_hits(pred, p)]
    credited = any(p in pred for p in valid_phrases(task, strict=strict))
    if not credited:
        return False
    if not hits:
        return False  # credited inside a word only (a substring): not a negation
    for a, b in hits:
        negated = bool(_NEGATIONS.intersection(words[max(0, a - _WINDOW) : a]))
        negator = words[a] in _NEGATIONS and any(c == b for c, _ in hits)
        if not (negated or negator):
            return False
    return True


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
