"""Writing the claim of a ConflictBench item from its question and answer.

The paper (App. A) had GPT-4 transform each query into a claim ("prompt GPT-4
to transform it to a claim"), with a prompt it did not publish. The library
ships its own prompt (``prompts/conflictbench_claim.txt``) for
:class:`LLMClaimWriter`, which goes through the model layer (so it is cached),
and a deterministic :class:`TemplateClaimWriter` for offline use.

Template rules (deterministic, no model):

* ConflictingQA: the affirmative search statement the source itself generated
  (``search_engine_input`` of a ``yes_statement`` row), with its ``"`` marks
  removed, cut before the first ``". "`` and capitalised; without one,
  ``The answer to "<question>" is yes.``
* AmbigDocs, ContraQA and MacNoise: ``The answer to "<question>" is <answer>.``
  For AmbigDocs this keeps the question's ambiguous name (App. A builds the
  claim from the question), so that same-name documents with another answer
  contradict it.
* A request that names a ``subject`` (only when a caller sets one; no loader
  does): ``For <subject>, the answer to "<question>" is <answer>.``
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from conflicteval.conflictbench._prompts import load_prompt, render
from conflicteval.errors import ParseFailure
from conflicteval.types import CUT_OFF, Completion, Message

CLAIM_PROMPT = "conflictbench_claim"


@dataclass(frozen=True)
class ClaimRequest:
    """What a claim writer sees about one source record.

    Attributes:
        source: Source name (``"ambigdocs"``, ...).
        question: The question.
        answer: The answer the claim must assert (None for ConflictingQA).
        subject: A specific entity the claim must be about (None for every loader:
            AmbigDocs claims keep the question's ambiguous name).
        hint: A statement the source already provides (ConflictingQA yes-statement).
    """

    source: str
    question: str
    answer: str | None = None
    subject: str | None = None
    hint: str | None = None


class GeneratesText(Protocol):
    """The part of the model layer a claim writer needs."""

    async def generate(self, messages: list[Message], **kwargs: Any) -> Completion:
        """One chat completion."""
        ...


@runtime_checkable
class ClaimWriter(Protocol):
    """Turns a :class:`ClaimRequest` into a one-sentence claim."""

    name: str

    async def write(self, request: ClaimRequest) -> str:
        """Return the claim (raises ModelError when a model call fails for good)."""
        ...


def claim_request(item: Any) -> ClaimRequest:
    """Rebuild the :class:`ClaimRequest` of a loaded :class:`BenchItem`."""
    return ClaimRequest(
        source=item.source.split("-")[0] if item.source.startswith("macnoise") else item.source,
        question=item.question,
        answer=item.answer,
        subject=item.meta.get("claim_subject"),
        hint=item.meta.get("claim_hint"),
    )


def _question_text(question: str) -> str:
    q = question.strip()
    if q and q[0].islower():
        q = q[0].upper() + q[1:]
    if not q.endswith("?"):
        q += "?"
    return q


def _sentence(text: str) -> str:
    s = " ".join(text.split())
    if s and s[0].islower():
        s = s[0].upper() + s[1:]
    if s and s[-1] not in ".!?":
        s += "."
    return s


def statement_from_search_input(text: str) -> str:
    """ConflictingQA fallback: the first variant of a ``yes_statement`` search input.

    ``search_engine_input`` is lower-cased, wraps shared tokens in ``"…"`` and
    joins several variants with ``". "``; this removes the quotes, keeps the
    first variant and capitalises it.
    """
    cleaned = text.replace('"', "").strip()
    first = cleaned.split(". ")[0].strip()
    return _sentence(first)


def template_claim(request: ClaimRequest) -> str:
    """The deterministic claim for a request (see the module docstring)."""
    question = _question_text(request.question)
    if request.source == "conflictingqa":
        if request.hint and request.hint.strip():
            return statement_from_search_input(request.hint)
        return f'The answer to "{question}" is yes.'
    answer = (request.answer or "").strip()
    if not answer:
        return f'The answer to "{question}" is given in the documents.'
    if request.source == "ambigdocs" and request.subject:
        return f'For {request.subject.strip()}, the answer to "{question}" is {_strip_end(answer)}.'
    return f'The answer to "{question}" is {_strip_end(answer)}.'


def _strip_end(text: str) -> str:
    return text.rstrip(" .")


class TemplateClaimWriter:
    """Deterministic offline claim writer (no model)."""

    name = "template"

    async def write(self, request: ClaimRequest) -> str:
        """Return :func:`template_claim` of the request."""
        return template_claim(request)


_PREFIX = re.compile(r"^\s*(?:claim\s*:\s*)", re.IGNORECASE)


def parse_claim_reply(text: str) -> str:
    """The claim in a model reply: first non-empty line, ``Claim:`` and quotes removed."""
    for line in text.splitlines():
        line = _PREFIX.sub("", line).strip().strip('"“”').strip()
        if line:
            return line
    return ""


class LLMClaimWriter:
    """Claim writer that asks a model (through the cached model layer).

    Args:
        model: A model from :func:`conflicteval.get_model`.
        prompt: Prompt text with ``{question}``, ``{answer}`` and ``{subject}`` slots
            (default: the library's ``conflictbench_claim`` prompt).
        max_tokens: Completion limit.
    """

    def __init__(
        self, model: GeneratesText, *, prompt: str | None = None, max_tokens: int = 120
    ) -> None:
        self.model = model
        self.prompt = prompt if prompt is not None else load_prompt(CLAIM_PROMPT)
        self.max_tokens = max_tokens
        self.name = "llm:" + str(getattr(model, "name", None) or "model")

    def identity(self) -> dict[str, Any]:
        """The writer, its model, prompt version and settings (a run's identity)."""
        from conflicteval.fingerprint import text_version
        from conflicteval.runs.identity import describe

        return {
            "writer": "llm",
            "model": describe(self.model),
            "prompt": text_version(self.prompt),
            **self.settings(),
        }

    def settings(self) -> dict[str, Any]:
        """The sampling settings of every claim-writing call (also used by dry runs)."""
        return {"temperature": 0.0, "max_tokens": self.max_tokens}

    def messages(self, request: ClaimRequest) -> list[Message]:
        """The chat messages sent for one request."""
        content = render(
            self.prompt,
            question=_question_text(request.question),
            answer=(request.answer or "").strip() or "(none)",
            subject=(request.subject or "").strip() or "(not specified)",
        )
        return [{"role": "user", "content": content}]

    async def write(self, request: ClaimRequest) -> str:
        """Ask the model.

        Raises:
            ModelError: when the call fails for good.
            ParseFailure: when the reply holds no claim.
        """
        out = await self.model.generate(self.messages(request), **self.settings())
        if out.truncated:
            raise ParseFailure(CUT_OFF, raw=out.text)
        claim = parse_claim_reply(out.text)
        if not claim:
            raise ParseFailure("no claim in the reply", raw=out.text)
        return claim
