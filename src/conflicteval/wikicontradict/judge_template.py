"""The WikiContradictEval judge prompt (supplement App. C) and parsing of its verdict.

The prompt text is shipped verbatim in ``prompts/wikicontradict_judge.txt``:
the instruction, eight worked examples and the testing instance ending at
``comment:``. The judge writes a comment, then ``evaluation: <label>``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from conflicteval.confusables import fold_confusables
from conflicteval.prompt_files import prompt_text

Verdict = Literal["correct", "partially correct", "incorrect"]
"""A relaxed-evaluation label (paper §3.4)."""

VERDICTS: tuple[Verdict, ...] = ("correct", "partially correct", "incorrect")

JUDGE_PROMPT_FILE = "wikicontradict_judge.txt"
JUDGE_PROMPT_VERSION = "wikicontradict-judge/1"
"""Version of the shipped judge prompt (part of the judge model's cache key)."""

_SLOTS = re.compile(r"\{Question\}|\{Answer1\} \| \{Answer2\}|\{LLM response\}")


@lru_cache(maxsize=1)
def judge_prompt_template() -> str:
    """The judge prompt with its slots, ending at ``comment:`` (no trailing newline)."""
    return prompt_text(JUDGE_PROMPT_FILE).rstrip("\n")


def judge_prompt(question: str, answers: list[str] | tuple[str, ...], response: str) -> str:
    """Build the paper's judge prompt for one response.

    Args:
        question: The instance's question.
        answers: The gold answers the template expects (two for templates
            1, 4, 5; one for 2 and 3). They are joined with ``" | "``.
        response: The tested model's response.

    Returns:
        The instruction, ``Examples``, the eight worked examples and the
        testing instance, ending with ``comment:``. Surrounding whitespace of
        the answers and the response is trimmed; the question is kept raw.
    """
    values = {
        "{Question}": question,
        "{Answer1} | {Answer2}": " | ".join(a.strip() for a in answers),
        "{LLM response}": response.strip(),
    }
    return _SLOTS.sub(lambda m: values[m.group(0)], judge_prompt_template())


class WorkedExample(BaseModel):
    """One of the judge prompt's eight worked examples."""

    model_config = ConfigDict(frozen=True)

    number: int
    question: str
    answers: list[str]
    response: str
    comment: str
    evaluation: Verdict


@lru_cache(maxsize=1)
def _examples() -> tuple[WorkedExample, ...]:
    text = judge_prompt_template()
    body = text.split("\nExamples\n", 1)[1].split("\nTesting instance\n", 1)[0]
    out = []
    for block in re.split(r"\n(?=Example \d+\n)", body.strip()):
        lines = block.strip().splitlines()
        number = int(lines[0].split()[1])
        found: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(": ")
            found[name] = value
        label = parse_verdict("evaluation: " + found["evaluation"])
        if label is None:  # pragma: no cover - the shipped file is fixed
            raise ValueError(f"example {number}: unreadable evaluation")
        out.append(
            WorkedExample(
                number=number,
                question=found["question"],
                answers=found["correct_answers"].split(" | "),
                response=found["response"],
                comment=found["comment"],
                evaluation=label,
            )
        )
    return tuple(out)


def worked_examples() -> list[WorkedExample]:
    """The eight worked examples of the judge prompt, read from the shipped text."""
    return list(_examples())


_EVAL_MARK = re.compile(
    r"(?:^[\s>*_#`\-]*(?:(?:final|overall)\s+)?|(?<=[.!?])[\s*_`]+)evaluation[\s*_`]*[:：]",
    re.IGNORECASE,
)
"""An ``evaluation:`` marker: at the start of a line (after markdown, optionally
"final"/"overall"), or after the end of a sentence of the comment on its line."""
_NEW_INSTANCE = re.compile(
    r"^[\s>*_#`]*(example\s+\d+|testing instance|question\s*:|correct_answers\s*:|response\s*:)",
    re.I,
)
_STRIP_CHARS = re.compile(r"[*_`#>\"'“”‘’\[\]()]")
_LABEL_WORDS = r"(partially correct|incorrect|not correct|correct)\b"
_LABEL = re.compile(r"^(?:(?:the |this )?(?:response|answer) is |it is )?" + _LABEL_WORDS)
_ANY_LABEL = re.compile(r"\b" + _LABEL_WORDS)


def _verdict_of(word: str) -> Verdict:
    if word == "partially correct":
        return "partially correct"
    if word in ("incorrect", "not correct"):
        return "incorrect"
    return "correct"


def _label_of(value: str) -> Verdict | None:
    text = _STRIP_CHARS.sub(" ", value).lower()
    text = re.sub(r"[-_‐‑–]", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" .,:;!")
    match = _LABEL.match(text)
    if match is None:
        return None
    label = _verdict_of(match.group(1))
    # A value naming another label too ("correct | partially correct |
    # incorrect", "correct or incorrect") is ambiguous: no guess.
    for other in _ANY_LABEL.finditer(text, match.end()):
        if _verdict_of(other.group(1)) != label:
            return None
    return label


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*_`#>\"“”]", "", text)).strip().lower()


def _evaluation_lines(
    text: str, response: str | None = None
) -> tuple[list[str], list[tuple[int, int, int]]]:
    """Lines of the judge's own answer, and where its ``evaluation:`` markers are.

    Each marker is ``(line index, start, end)`` of the last marker on that
    line. Not the judge's own verdict, so left out:

    * everything from a line that starts a further example, testing instance
      or a template field (``question:``, ``correct_answers:``, ``response:``)
      after an evaluation: an invented example, or the prompt echoed;
    * a markdown block quote (``> evaluation: correct``): quoted material;
    * with ``response`` given, an evaluation line found word for word in the
      judged response: an instruction planted in the response, echoed.
    """
    lines = text.splitlines()
    evals: list[tuple[int, int, int]] = []
    source = _normal(response) if response else ""
    for i, line in enumerate(lines):
        if evals and _NEW_INSTANCE.match(line):
            lines = lines[:i]
            break
        if line.lstrip().startswith(">"):
            continue
        marks = list(_EVAL_MARK.finditer(line))
        if not marks:
            continue
        own = _normal(line[marks[-1].start() :])
        if source and own and own in source:
            continue
        evals.append((i, marks[-1].start(), marks[-1].end()))
    return lines, evals


def parse_verdict(text: str, response: str | None = None) -> Verdict | None:
    """Read the label of the judge's own final ``evaluation:`` line.

    The judge's own lines are those of :func:`_evaluation_lines`: an
    invented further example, an echoed template field, a block quote and
    (with ``response``) a line copied word for word from the judged response
    are not its verdict. Its own evaluation lines must all name the same label:
    a judge that corrects itself (``evaluation: correct`` ... ``evaluation:
    partially correct``) names two and the reply is a parse failure, never a
    guess. An evaluation planted at the end of a response and echoed after the
    verdict is no line of its own when the response is given (as
    :class:`~conflicteval.wikicontradict.Judge` does). The reply is read after
    folding look-alike letters (:func:`~conflicteval.confusables.fold_confusables`).

    Tolerates case, markdown (``**Evaluation:** *Partially correct*``),
    ``partially-correct``, quotes and trailing punctuation, a label on the
    line after a bare ``evaluation:``, and an ``evaluation:`` written at the
    end of the comment's line. Never guesses: a reply without a readable
    final label, or whose final label names two different labels
    (``correct | incorrect``), gives None.

    Args:
        text: The judge's reply.
        response: The judged response, when known (to recognise echoes).

    Returns:
        ``"correct"``, ``"partially correct"``, ``"incorrect"`` or None.
    """
    text = fold_confusables(text)  # a look-alike letter hides no second label
    lines, evals = _evaluation_lines(text, fold_confusables(response) if response else None)
    if not evals:
        return None
    labels = {_label_of(_value_at(lines, line, end)) for line, _, end in evals}
    if len(labels) != 1:
        return None  # two own verdicts that differ (a self-correction), or one unreadable
    return labels.pop()


def _value_at(lines: list[str], last: int, end: int) -> str:
    """The text after the ``evaluation:`` marker ending at ``end`` of line ``last`` (the next
    non-blank line when the marker ends its line)."""
    value = lines[last][end:]
    if not value.strip(" \t*_`"):
        rest = [ln for ln in lines[last + 1 :] if ln.strip()]
        value = rest[0] if rest else ""
    return value


def parse_comment(text: str, response: str | None = None) -> str:
    """The judge's comment: its reply before the final ``evaluation:`` line.

    A leading ``comment:`` is removed. Without an evaluation line the whole
    reply (trimmed) is returned.
    """
    lines, evals = _evaluation_lines(text, response)
    if evals:
        last, start, _ = evals[-1]
        head = [*lines[:last], lines[last][:start].rstrip(" \t*_#>`-")]
    else:
        head = lines
    comment = "\n".join(head).strip()
    return re.sub(r"^[\s*_]*comment[\s*_]*:[\s*_]*", "", comment, flags=re.IGNORECASE).strip()
