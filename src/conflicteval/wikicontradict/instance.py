"""The WikiContradict instance: one question over two contradictory passages."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

ContradictionType = Literal["explicit", "implicit"]
"""Contradiction type IV of the paper's taxonomy."""

_SPACES = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def join_passages(first: str, second: str, same_passage: bool) -> str:
    """Join two passages into one context, as the templates show them.

    The context is ``first + "\\n" + second``. When the instance is annotated
    as "Same" passage *and* the two texts are equal up to whitespace, the
    context is ``first`` alone (one copy, as the release's ``merged_context``).
    A "Same" instance whose passages really differ is shown with both.

    Args:
        first: The passage shown first.
        second: The passage shown second.
        same_passage: The instance's "Same"/"Different" annotation.

    Returns:
        The context text, raw passage text kept.
    """
    if same_passage and _squash(first) == _squash(second):
        return first
    return f"{first}\n{second}"


class WikiContradictInstance(BaseModel):
    """One WikiContradict instance.

    Text fields keep the raw text of the source file, including surrounding
    spaces; normalisation happens only where matching needs it.

    Attributes:
        id: Instance id (the CSV's ``question_ID``; ``<record>-q<n>`` for the
            nested JSON and Label Studio formats).
        question: The question.
        passage_1: Passage 1 (stand-alone text).
        passage_2: Passage 2 (stand-alone text).
        answer_1: The gold answer according to passage 1.
        answer_2: The gold answer according to passage 2.
        contradiction_type: ``"explicit"`` or ``"implicit"``.
        same_passage: True when annotated as "Same" (both sides in one passage).
        title: Wikipedia article title.
        url: Wikipedia article URL.
        taxonomy: The taxonomy choices (list of paths), when the source has them.
        tag: The Wikipedia tag (Inconsistent/Self-contradictory/Contradict-other).
        revised_passage_1: User-supplied conflict-free revision of passage 1
            (templates 5.3 and 5.4).
        revised_passage_2: User-supplied conflict-free revision of passage 2.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    question: str
    passage_1: str
    passage_2: str
    answer_1: str
    answer_2: str
    contradiction_type: ContradictionType
    same_passage: bool
    title: str = ""
    url: str = ""
    taxonomy: list[list[str]] | None = None
    tag: str | None = None
    revised_passage_1: str | None = None
    revised_passage_2: str | None = None

    @property
    def context(self) -> str:
        """Both passages as one context (passage 1 first); see :func:`join_passages`."""
        return join_passages(self.passage_1, self.passage_2, self.same_passage)

    @property
    def context_swapped(self) -> str:
        """Both passages as one context, passage 2 first (template 5.1)."""
        return join_passages(self.passage_2, self.passage_1, self.same_passage)

    @property
    def has_revised_passages(self) -> bool:
        """True when both revised passages are present and non-empty."""
        return bool(
            self.revised_passage_1
            and self.revised_passage_1.strip()
            and self.revised_passage_2
            and self.revised_passage_2.strip()
        )

    @property
    def answers(self) -> list[str]:
        """Both gold answers, passage 1's first."""
        return [self.answer_1, self.answer_2]
