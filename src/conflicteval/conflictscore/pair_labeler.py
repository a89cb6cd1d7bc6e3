"""The paper's labeler: the Table 7 prompt, one model call per (claim, document) pair."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from functools import partial
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator

from conflicteval.models import Model
from conflicteval.types import CUT_OFF, RELATIONS, Document, PairLabel, Relation, Usage

from . import prompts
from .label_common import (
    LABEL_SETTINGS,
    LabelResult,
    _coerce_docs,
    _gather_calls,
    _LLMBase,
    _pair,
    document_text,
)
from .parse import Judgement, judgement_label, normalize_label, parse_judgement


def pair_prompt(claim: str, document: Document, *, headings: bool = False) -> str:
    """The paper's Table 7 prompt for one (claim, document) pair (pure).

    ``headings=True`` writes the prompt's four heading lines as markdown
    headings (``# Claim to evaluate``); the paper's text has plain lines.
    """
    name = prompts.LABEL_HEADINGS if headings else prompts.LABEL
    return prompts.fill(prompts.load_prompt(name), claim=claim, document=document_text(document))


def _pair_schema(schema: dict[str, Any]) -> None:
    """The schema sent for Table 7: the four string fields, all required, no description."""
    schema.pop("description", None)
    for name in ("claim", "document_snippet", "reasoning"):
        schema["properties"][name] = {"type": "string"}
    schema["required"] = ["claim", "document_snippet", "reasoning", "answer"]


class PairReply(BaseModel):
    """The JSON object of the Table 7 prompt (sent as the response schema).

    The answer is normalised leniently ("supported" -> SUPPORTS); an answer that
    names no label fails validation, so the model layer re-asks once. Missing
    text fields are accepted (None).
    """

    model_config = ConfigDict(json_schema_extra=_pair_schema)

    claim: str | None = None
    document_snippet: str | None = None
    reasoning: str | None = None
    answer: str = Field(json_schema_extra={"enum": list(RELATIONS)})

    @field_validator("answer")
    @classmethod
    def _label(cls, value: str) -> str:
        label = normalize_label(value)
        if label is None:
            raise ValueError(f"answer must be one of {', '.join(RELATIONS)}")
        return label


def pair_label_from_reply(
    i: int,
    j: int,
    text: str,
    *,
    parsed: Any = None,
    parse_error: str | None = None,
    truncated: bool = False,
    document: str | None = None,
) -> PairLabel:
    """Read one reply to the Table 7 prompt into the label of pair (claim ``i``, document ``j``).

    Pure. A reply with no single label gives a failed pair (``label`` None,
    ``error`` and ``raw`` set), never IRRELEVANT.

    Args:
        i: Claim index.
        j: Document index.
        text: The reply text.
        parsed: The reply already validated as a :class:`PairReply` (structured
            output), if it was; else the text is parsed by
            :func:`~conflicteval.conflictscore.parse_judgement`.
        parse_error: Why structured validation failed, added to a failed pair's error.
        truncated: The reply was cut off by the token limit: the pair fails with
            ``reply cut off by max_tokens`` (a label read from half a reply is no label).
        document: The document's text, so that an answer the reply merely copies
            from it is not read as the model's (see ``parse_judgement``).
    """
    if truncated:
        judgement = Judgement(problem=CUT_OFF)
    elif isinstance(parsed, PairReply):
        answer = parsed.answer  # the validator has normalised it already
        label = cast("Relation", answer) if answer in RELATIONS else normalize_label(answer)
        # The validated object holds one ``answer`` (json keeps the last duplicate key and
        # drops ``label``/``Answer``): the reply's text must name that label and no other.
        said, problem = judgement_label(text, document)
        if said != label:
            problem = problem or f"the reply's text says {said}, its JSON {answer}"
            return _pair(i, j, Judgement(problem=problem), text)
        if label is not None:  # the common case, built at once (what _pair would build)
            return PairLabel(
                claim_index=i,
                doc_index=j,
                label=label,
                snippet=parsed.document_snippet,
                reasoning=parsed.reasoning,
            )
        judgement = Judgement(
            label=label,
            snippet=parsed.document_snippet,
            reasoning=parsed.reasoning,
        )
    else:
        judgement = parse_judgement(text, document)
        if judgement.label is None and parse_error:
            judgement.problem = f"{judgement.problem}; {parse_error}"
    return _pair(i, j, judgement, text)


class LLMLabeler(_LLMBase):
    """The paper's labeler: the Table 7 prompt, one model call per (claim, document).

    Args:
        model: A :class:`~conflicteval.models.Model` or a spec such as ``"openai/gpt-4.1"``.
        structured: Send the JSON object of the prompt as ``response_schema``
            (as ``response_format`` where the provider supports it; the
            project's addition). False is the paper's plain mode: the Table 7
            prompt alone asks for the JSON (CLI ``--plain-json``). The reply is
            parsed by :func:`~conflicteval.conflictscore.parse_judgement` either way.
        max_tokens: Reply budget of one call (the JSON carries a snippet and
            a justification).
        temperature: Sampling temperature.
        seed: Sampling seed.
        headings: Write Table 7's four heading lines as markdown headings
            (``# Claim to evaluate``), an option that is not the paper's text;
            default False sends the lines plain, as the paper prints them.

    Calls: claims x documents (plus one per re-asked reply).
    """

    name = "llm"

    def __init__(
        self,
        model: Model | str,
        *,
        structured: bool = True,
        max_tokens: int | None = LABEL_SETTINGS["max_tokens"],
        temperature: float | None = LABEL_SETTINGS["temperature"],
        seed: int | None = LABEL_SETTINGS["seed"],
        headings: bool = False,
    ) -> None:
        super().__init__(
            model, structured=structured, max_tokens=max_tokens, temperature=temperature, seed=seed
        )
        self.headings = headings
        self.prompt_name = prompts.LABEL_HEADINGS if headings else prompts.LABEL

    def prompt(self, claim: str, document: Document) -> str:
        """The Table 7 prompt for one pair."""
        return pair_prompt(claim, document, headings=self.headings)

    def _one(
        self, i: int, j: int, claim: str, doc: Document
    ) -> Awaitable[tuple[PairLabel, int, Usage]]:
        """The call for one pair (the coroutine of :meth:`_ask` itself: no layer of its own)."""
        return self._ask(
            self.prompt(claim, doc),
            PairReply,
            self.max_tokens,
            lambda error: PairLabel(claim_index=i, doc_index=j, error=error),
            partial(pair_label_from_reply, i, j, document=doc.text),
        )

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """Label every pair with one call each (concurrency bounded by the model)."""
        docs = _coerce_docs(documents)
        jobs = [self._one(i, j, c, d) for i, c in enumerate(claims) for j, d in enumerate(docs)]
        flat, calls, usage = await _gather_calls(jobs)
        width = len(docs)
        pairs = [flat[i * width : (i + 1) * width] for i in range(len(claims))]
        return LabelResult(pairs=pairs, calls=calls, usage=usage)
