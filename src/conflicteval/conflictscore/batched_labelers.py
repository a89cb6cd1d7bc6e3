"""The project's batched labelers: all claims per document, or all documents per claim.

One model call labels a whole column (:class:`PerDocumentLLMLabeler`) or row
(:class:`PerClaimLLMLabeler`) of the table; labels are matched by index, and a
missing, duplicated or out-of-range index fails only the pairs concerned. The two
prompts are the project's own, not the paper's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from conflicteval.types import CUT_OFF, RELATIONS, Document, PairLabel, Usage

from . import prompts
from .indexed_labels import parse_indexed_labels
from .label_common import (
    LabelResult,
    _BatchedLLMBase,
    _coerce_docs,
    _gather_calls,
    _numbered,
    _pair,
    document_text,
)
from .parse import Judgement, copied_from


def per_document_prompt(claims: Sequence[str], document: Document) -> str:
    """The project's batched prompt: all claims against one document (pure)."""
    return prompts.fill(
        prompts.load_prompt(prompts.LABEL_CLAIMS_PER_DOCUMENT),
        document=document_text(document),
        claims=_numbered(claims),
        n=str(len(claims)),
    )


def per_claim_prompt(claim: str, documents: Sequence[Document]) -> str:
    """The project's batched prompt: all documents against one claim (pure)."""
    return prompts.fill(
        prompts.load_prompt(prompts.LABEL_DOCUMENTS_PER_CLAIM),
        claim=claim,
        documents=_numbered([document_text(d) for d in documents]),
        n=str(len(documents)),
    )


def _entry_schema(schema: dict[str, Any]) -> None:
    schema.pop("description", None)
    schema["required"] = ["index", "document_snippet", "reasoning", "answer"]


def _batch_schema(schema: dict[str, Any]) -> None:
    schema.pop("description", None)


class _Entry(BaseModel):
    model_config = ConfigDict(json_schema_extra=_entry_schema)

    index: Any = Field(default=None, json_schema_extra={"type": "integer"})
    document_snippet: Any = Field(default=None, json_schema_extra={"type": "string"})
    reasoning: Any = Field(default=None, json_schema_extra={"type": "string"})
    answer: Any = Field(default=None, json_schema_extra={"type": "string", "enum": list(RELATIONS)})


class BatchReply(BaseModel):
    """The JSON object of the batched prompts: ``{"labels": [{"index": 1, ...}, ...]}``.

    Validation is lenient on purpose: index and label problems are checked per
    entry by :func:`~conflicteval.conflictscore.indexed_labels.parse_indexed_labels`, so
    that one bad entry fails only its own pair.
    """

    model_config = ConfigDict(json_schema_extra=_batch_schema)

    labels: list[_Entry]


def _indexed_judgements(
    text: str,
    n: int,
    parsed: Any = None,
    parse_error: str | None = None,
    truncated: bool = False,
    documents: Sequence[str] = (),
) -> dict[int, Judgement]:
    if truncated:  # every pair of a reply cut short fails, its complete entries too
        return {i: Judgement(problem=CUT_OFF) for i in range(n)}
    # A validated reply is read from its parsed form, unless the whole reply is a copy of a
    # document's text: then the raw text is read, where copied entries are skipped.
    use_parsed = isinstance(parsed, BatchReply) and not copied_from(text, documents)
    source = json.dumps(parsed.model_dump(mode="json"), ensure_ascii=False) if use_parsed else text
    result = parse_indexed_labels(source, n, documents)
    if use_parsed:
        # The validated form keeps one ``answer`` per entry (json keeps the last duplicate
        # key, the model drops ``label``/``Answer``): the text must give the same labels.
        raw = parse_indexed_labels(text, n, documents).labels
        for i, judgement in result.labels.items():
            seen = raw.get(i)
            if seen is not None and seen.label != judgement.label:
                why = seen.problem or f"the reply's text says {seen.label}"
                result.labels[i] = Judgement(problem=why)
    if result.error and parse_error:
        for j in result.labels.values():
            j.problem = f"{j.problem}; {parse_error}"
    return result.labels


def per_document_labels_from_reply(
    j: int,
    n_claims: int,
    text: str,
    *,
    parsed: Any = None,
    parse_error: str | None = None,
    truncated: bool = False,
    document: str | None = None,
) -> list[PairLabel]:
    """Read a reply to :func:`per_document_prompt` into column ``j`` (one label per claim).

    Pure. Labels are matched to claims by their index; a missing, duplicated
    or out-of-range index fails only the pairs concerned.

    Args:
        j: Document index.
        n_claims: Claims in the prompt.
        text: The reply text.
        parsed: The reply already validated as a :class:`BatchReply`, if it was.
        parse_error: Why structured validation failed, added to failed pairs' errors.
        truncated: The reply was cut off by the token limit: every pair fails.
        document: The document's text: label entries copied from it are not the model's.
    """
    docs = (document,) if document else ()
    judgements = _indexed_judgements(text, n_claims, parsed, parse_error, truncated, docs)
    return [_pair(i, j, judgements[i], text) for i in range(n_claims)]


def per_claim_labels_from_reply(
    i: int,
    n_documents: int,
    text: str,
    *,
    parsed: Any = None,
    parse_error: str | None = None,
    truncated: bool = False,
    documents: Sequence[str] = (),
) -> list[PairLabel]:
    """Read a reply to :func:`per_claim_prompt` into row ``i`` (one label per document).

    Pure; as :func:`per_document_labels_from_reply`, matched by document index.
    ``documents`` are the documents' texts: label entries copied from them are ignored.
    """
    judgements = _indexed_judgements(text, n_documents, parsed, parse_error, truncated, documents)
    return [_pair(i, j, judgements[j], text) for j in range(n_documents)]


class PerDocumentLLMLabeler(_BatchedLLMBase):
    """All claims against one document in one call (the project's own prompt).

    Calls: one per document. Trade-off: ``claims`` times fewer calls and the
    document is sent once, but the model judges many claims in one reply, so
    a long claim list may get shallower reasoning; a missing, duplicated or
    out-of-range index fails only the pairs concerned.

    Args: as :class:`LLMLabeler`, but the reply budget of a call is
    ``max_tokens_per_item * claims + 64`` (``max_tokens`` is not used).
    """

    name = "llm-per-document"
    prompt_name = prompts.LABEL_CLAIMS_PER_DOCUMENT

    def prompt(self, claims: Sequence[str], document: Document) -> str:
        """The batched prompt for one document."""
        return per_document_prompt(claims, document)

    async def _one(
        self, j: int, claims: Sequence[str], doc: Document
    ) -> tuple[list[PairLabel], int, Usage]:
        n = len(claims)
        return await self._ask(
            self.prompt(claims, doc),
            BatchReply,
            self._budget(n),
            lambda error: [PairLabel(claim_index=i, doc_index=j, error=error) for i in range(n)],
            partial(per_document_labels_from_reply, j, n, document=doc.text),
        )

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """One call per document; labels matched to claims by index."""
        docs = _coerce_docs(documents)
        if not claims:
            return LabelResult(pairs=[])
        columns, calls, usage = await _gather_calls(
            self._one(j, claims, d) for j, d in enumerate(docs)
        )
        pairs: list[list[PairLabel]] = [[] for _ in claims]
        for column in columns:
            for i, pair in enumerate(column):
                pairs[i].append(pair)
        return LabelResult(pairs=pairs, calls=calls, usage=usage)


class PerClaimLLMLabeler(_BatchedLLMBase):
    """All documents against one claim in one call (the project's own prompt).

    Calls: one per claim. Trade-off: ``documents`` times fewer calls, but every
    call carries every document (long prompts), and the paper reports that
    labelling with all documents at once "often reduces accuracy" because
    models merge or overlook contradictory details. A missing, duplicated or
    out-of-range index fails only the pairs concerned.

    Args: as :class:`LLMLabeler`, but the reply budget of a call is
    ``max_tokens_per_item * documents + 64`` (``max_tokens`` is not used).
    """

    name = "llm-per-claim"
    prompt_name = prompts.LABEL_DOCUMENTS_PER_CLAIM

    def prompt(self, claim: str, documents: Sequence[Document]) -> str:
        """The batched prompt for one claim."""
        return per_claim_prompt(claim, documents)

    async def _one(
        self, i: int, claim: str, docs: Sequence[Document]
    ) -> tuple[list[PairLabel], int, Usage]:
        n = len(docs)
        return await self._ask(
            self.prompt(claim, docs),
            BatchReply,
            self._budget(n),
            lambda error: [PairLabel(claim_index=i, doc_index=j, error=error) for j in range(n)],
            partial(per_claim_labels_from_reply, i, n, documents=[d.text for d in docs]),
        )

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """One call per claim; labels matched to documents by index."""
        docs = _coerce_docs(documents)
        if not docs:
            return LabelResult(pairs=[[] for _ in claims])
        pairs, calls, usage = await _gather_calls(
            self._one(i, c, docs) for i, c in enumerate(claims)
        )
        return LabelResult(pairs=pairs, calls=calls, usage=usage)
