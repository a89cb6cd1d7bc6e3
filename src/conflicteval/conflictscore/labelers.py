"""Stage 2 of ConflictScore: label every claim against every document.

Every labeler has ``name`` and ``async label(claims, documents) -> LabelResult``
(plus ``label_sync``). The result is the full claims x documents table of
:class:`~conflicteval.types.PairLabel`; a pair whose label could not be had has
``label`` None, ``error`` and ``raw``: failed pairs are never IRRELEVANT.

LLM labelers and their number of model calls for ``C`` claims and ``D``
documents (a reply that fails the JSON check is re-asked once, which adds a
call):

* :class:`LLMLabeler` -- the paper's Table 7 prompt, one call per pair: ``C x D``.
* :class:`PerDocumentLLMLabeler` -- all claims against one document per call: ``D``.
* :class:`PerClaimLLMLabeler` -- all documents against one claim per call: ``C``.
  The paper (Limitations) notes that showing all documents at once "often
  reduces accuracy": contradictory details get merged or overlooked.

The two batched prompts are the project's own, not the paper's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any, Protocol, cast, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from conflicteval._sync import run_sync
from conflicteval.dryrun import PlannedCall
from conflicteval.errors import ModelError
from conflicteval.models import Model, get_model
from conflicteval.types import CUT_OFF, RELATIONS, Completion, Document, PairLabel, Relation, Usage

from . import prompts
from .aggregate import Aggregate, aggregate
from .indexed_labels import parse_indexed_labels
from .parse import (
    Judgement,
    copied_from,
    normalize_label,
    parse_judgement,
)

__all__ = [
    "BATCH_TOKENS_PER_ITEM",
    "LABEL_SETTINGS",
    "BaseLabeler",
    "LLMLabeler",
    "LabelResult",
    "Labeler",
    "PerClaimLLMLabeler",
    "PerDocumentLLMLabeler",
    "batch_budget",
    "document_text",
    "pair_label_from_reply",
    "pair_prompt",
    "per_claim_labels_from_reply",
    "per_claim_prompt",
    "per_document_labels_from_reply",
    "per_document_prompt",
]

LABEL_SETTINGS: dict[str, Any] = {"temperature": 0.0, "max_tokens": 512, "seed": 5}
"""Default decoding of one Table 7 call (the JSON carries a snippet and a justification)."""

BATCH_TOKENS_PER_ITEM = 384
"""Default reply budget per labelled item of the batched prompts."""


def batch_budget(n: int, per_item: int = BATCH_TOKENS_PER_ITEM) -> int:
    """Reply budget of a batched labelling call over ``n`` items: ``per_item * n + 64``."""
    return per_item * n + 64


class LabelResult(BaseModel):
    """The labels of one response: claims x documents.

    Attributes:
        pairs: ``pairs[i][j]`` is claim ``i`` against document ``j``.
        calls: Model calls made (re-asks and calls that failed included;
            calls served from the cache included, see ``usage.cached_calls``).
        usage: Token usage of those calls.
    """

    pairs: list[list[PairLabel]]
    calls: int = 0
    usage: Usage = Field(default_factory=Usage)

    @property
    def labels(self) -> list[list[Relation | None]]:
        """The table of labels (None for a failed pair)."""
        return [[p.label for p in row] for row in self.pairs]

    @property
    def n_failed(self) -> int:
        """Pairs without a label."""
        return sum(p.label is None for row in self.pairs for p in row)

    def aggregate(self) -> Aggregate:
        """CS-C, CS-R and their parts for this table."""
        return aggregate(self.labels)


@runtime_checkable
class Labeler(Protocol):
    """What ConflictScorer needs from a labeler."""

    name: str

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """Label every claim against every document."""
        ...


def document_text(doc: Document) -> str:
    """The text shown for a document: its title, a blank line, then its text."""
    if doc.title and not doc.text.lstrip().startswith(doc.title):
        return f"{doc.title}\n\n{doc.text}"
    return doc.text


def _coerce_docs(documents: Sequence[Any]) -> list[Document]:
    return [Document.coerce(d, i) for i, d in enumerate(documents)]


def _numbered(items: Sequence[str]) -> str:
    return "\n\n".join(f"[{k}] {text}" for k, text in enumerate(items, start=1))


def pair_prompt(claim: str, document: Document, *, headings: bool = False) -> str:
    """The paper's Table 7 prompt for one (claim, document) pair (pure).

    ``headings=True`` writes the prompt's four heading lines as markdown
    headings (``# Claim to evaluate``); the paper's text has plain lines.
    """
    name = prompts.LABEL_HEADINGS if headings else prompts.LABEL
    return prompts.fill(prompts.load_prompt(name), claim=claim, document=document_text(document))


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


class BaseLabeler:
    """Shared parts: ``label_sync`` and the labeler protocol."""

    name = "labeler"

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """Label every claim against every document."""
        raise NotImplementedError

    def label_sync(self, claims: Sequence[str], documents: Sequence[Any]) -> LabelResult:
        """Synchronous :meth:`label`; also works inside a running event loop."""
        return run_sync(self.label(list(claims), _coerce_docs(documents)))

    def planned_calls(self, claims: Sequence[str], documents: Sequence[Any]) -> list[PlannedCall]:
        """The model calls :meth:`label` would make (empty for offline labelers)."""
        return []

    def identity(self) -> dict[str, Any]:
        """What determines this labeler's labels (recorded with a run's checkpoint)."""
        return {"labeler": self.name, "class": type(self).__qualname__}

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


# --------------------------------------------------------------------------- schemas


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


# --------------------------------------------------------------------------- LLM labelers


def _resolve(model: Model | str) -> Model:
    return get_model(model) if isinstance(model, str) else model


class _LLMBase(BaseLabeler):
    def __init__(
        self,
        model: Model | str,
        *,
        structured: bool = True,
        max_tokens: int | None = LABEL_SETTINGS["max_tokens"],
        temperature: float | None = LABEL_SETTINGS["temperature"],
        seed: int | None = LABEL_SETTINGS["seed"],
    ) -> None:
        self.model = _resolve(model)
        self.structured = structured
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed

    def _settings(self, schema: type[BaseModel], max_tokens: int | None) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "max_tokens": max_tokens,
            "seed": self.seed,
            "response_schema": schema if self.structured else None,
        }

    async def _generate(
        self, prompt: str, settings: dict[str, Any]
    ) -> tuple[Completion | None, str | None, int]:
        """One call: (completion, None, calls) or (None, error, calls)."""
        try:
            out = await self.model.generate(prompt, **settings)
        except ModelError as exc:
            return None, f"model error: {exc}", 1
        return out, None, max(1, out.usage.calls)

    prompt_name = prompts.LABEL

    def identity(self) -> dict[str, Any]:
        """The labeler, its model, prompt version and decoding settings."""
        from conflicteval.identity import describe, text_version

        return {
            **super().identity(),
            "model": describe(self.model),
            "prompt": text_version(prompts.load_prompt(self.prompt_name)),
            "structured": self.structured,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "max_tokens_per_item": getattr(self, "max_tokens_per_item", None),
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model.name!r})"


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


def _pair(i: int, j: int, judgement: Judgement, raw: str | None) -> PairLabel:
    """A PairLabel from a judgement; the raw reply is kept only for a failed pair."""
    if judgement.label is None:
        return PairLabel(
            claim_index=i,
            doc_index=j,
            snippet=judgement.snippet,
            reasoning=judgement.reasoning,
            error=judgement.problem or "no label",
            raw=raw,
        )
    return PairLabel(
        claim_index=i,
        doc_index=j,
        label=judgement.label,
        snippet=judgement.snippet,
        reasoning=judgement.reasoning,
    )


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

    def planned_calls(self, claims: Sequence[str], documents: Sequence[Any]) -> list[PlannedCall]:
        """One call per (claim, document)."""
        docs = _coerce_docs(documents)
        settings = self._settings(PairReply, self.max_tokens)
        return [
            PlannedCall([{"role": "user", "content": self.prompt(c, d)}], settings)
            for c in claims
            for d in docs
        ]

    async def _one(self, i: int, j: int, claim: str, doc: Document) -> tuple[PairLabel, int, Usage]:
        out, error, calls = await self._generate(
            self.prompt(claim, doc), self._settings(PairReply, self.max_tokens)
        )
        if out is None:
            return PairLabel(claim_index=i, doc_index=j, error=error), calls, Usage()
        pair = pair_label_from_reply(
            i,
            j,
            out.text,
            parsed=out.parsed,
            parse_error=out.parse_error,
            truncated=out.truncated,
            document=doc.text,
        )
        return pair, calls, out.usage

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """Label every pair with one call each (concurrency bounded by the model)."""
        docs = _coerce_docs(documents)
        jobs = [self._one(i, j, c, d) for i, c in enumerate(claims) for j, d in enumerate(docs)]
        done = await asyncio.gather(*jobs)
        usage = Usage()
        calls = 0
        flat: list[PairLabel] = []
        for pair, n, u in done:
            flat.append(pair)
            calls += n
            usage.add(u)
        width = len(docs)
        pairs = [flat[i * width : (i + 1) * width] for i in range(len(claims))]
        return LabelResult(pairs=pairs, calls=calls, usage=usage)


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


class PerDocumentLLMLabeler(_LLMBase):
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

    def __init__(
        self, model: Model | str, *, max_tokens_per_item: int = BATCH_TOKENS_PER_ITEM, **kwargs: Any
    ) -> None:
        super().__init__(model, **kwargs)
        self.max_tokens_per_item = max_tokens_per_item

    def prompt(self, claims: Sequence[str], document: Document) -> str:
        """The batched prompt for one document."""
        return per_document_prompt(claims, document)

    def _budget(self, n: int) -> int:
        return batch_budget(n, self.max_tokens_per_item)

    def planned_calls(self, claims: Sequence[str], documents: Sequence[Any]) -> list[PlannedCall]:
        """One call per document."""
        if not claims:
            return []
        settings = self._settings(BatchReply, self._budget(len(claims)))
        return [
            PlannedCall([{"role": "user", "content": self.prompt(claims, d)}], settings)
            for d in _coerce_docs(documents)
        ]

    async def _one(
        self, j: int, claims: Sequence[str], doc: Document
    ) -> tuple[list[PairLabel], int, Usage]:
        n = len(claims)
        out, error, calls = await self._generate(
            self.prompt(claims, doc), self._settings(BatchReply, self._budget(n))
        )
        if out is None:
            failed = [PairLabel(claim_index=i, doc_index=j, error=error) for i in range(n)]
            return failed, calls, Usage()
        column = per_document_labels_from_reply(
            j,
            n,
            out.text,
            parsed=out.parsed,
            parse_error=out.parse_error,
            truncated=out.truncated,
            document=doc.text,
        )
        return column, calls, out.usage

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """One call per document; labels matched to claims by index."""
        docs = _coerce_docs(documents)
        if not claims:
            return LabelResult(pairs=[])
        done = await asyncio.gather(*(self._one(j, claims, d) for j, d in enumerate(docs)))
        usage = Usage()
        calls = 0
        pairs: list[list[PairLabel]] = [[] for _ in claims]
        for column, n, u in done:
            calls += n
            usage.add(u)
            for i, pair in enumerate(column):
                pairs[i].append(pair)
        return LabelResult(pairs=pairs, calls=calls, usage=usage)


class PerClaimLLMLabeler(_LLMBase):
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

    def __init__(
        self, model: Model | str, *, max_tokens_per_item: int = BATCH_TOKENS_PER_ITEM, **kwargs: Any
    ) -> None:
        super().__init__(model, **kwargs)
        self.max_tokens_per_item = max_tokens_per_item

    def prompt(self, claim: str, documents: Sequence[Document]) -> str:
        """The batched prompt for one claim."""
        return per_claim_prompt(claim, documents)

    def _budget(self, n: int) -> int:
        return batch_budget(n, self.max_tokens_per_item)

    def planned_calls(self, claims: Sequence[str], documents: Sequence[Any]) -> list[PlannedCall]:
        """One call per claim."""
        docs = _coerce_docs(documents)
        if not docs:
            return []
        settings = self._settings(BatchReply, self._budget(len(docs)))
        return [
            PlannedCall([{"role": "user", "content": self.prompt(c, docs)}], settings)
            for c in claims
        ]

    async def _one(
        self, i: int, claim: str, docs: Sequence[Document]
    ) -> tuple[list[PairLabel], int, Usage]:
        n = len(docs)
        out, error, calls = await self._generate(
            self.prompt(claim, docs), self._settings(BatchReply, self._budget(n))
        )
        if out is None:
            failed = [PairLabel(claim_index=i, doc_index=j, error=error) for j in range(n)]
            return failed, calls, Usage()
        row = per_claim_labels_from_reply(
            i,
            n,
            out.text,
            parsed=out.parsed,
            parse_error=out.parse_error,
            truncated=out.truncated,
            documents=[d.text for d in docs],
        )
        return row, calls, out.usage

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """One call per claim; labels matched to documents by index."""
        docs = _coerce_docs(documents)
        if not docs:
            return LabelResult(pairs=[[] for _ in claims])
        done = await asyncio.gather(*(self._one(i, c, docs) for i, c in enumerate(claims)))
        usage = Usage()
        calls = 0
        pairs: list[list[PairLabel]] = []
        for row, n, u in done:
            calls += n
            usage.add(u)
            pairs.append(row)
        return LabelResult(pairs=pairs, calls=calls, usage=usage)
