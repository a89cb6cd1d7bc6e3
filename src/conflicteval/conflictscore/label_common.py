"""What every ConflictScore labeler shares: the result table, the protocol, the LLM base.

:class:`LabelResult` (claims x documents of PairLabel), the :class:`Labeler`
protocol, :class:`BaseLabeler` (``label_sync``, identity) and the base of the LLM
labelers (model, decoding settings, one call with its errors counted). The LLM
labelers themselves live in ``pair_labeler`` (one call per pair) and
``batched_labelers`` (one call per document or per claim).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field

from conflicteval._sync import run_sync
from conflicteval.errors import ModelError
from conflicteval.models import Model, get_model
from conflicteval.types import Decoding, Document, PairLabel, Relation, Usage

from . import prompts
from .aggregate import Aggregate, aggregate
from .parse import Judgement

LABEL_SETTINGS = Decoding(temperature=0.0, max_tokens=512, seed=5)
"""Default decoding of one Table 7 call (the JSON carries a snippet and a justification)."""

T = TypeVar("T")

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


class BaseLabeler:
    """Shared parts: ``label_sync`` and the labeler protocol."""

    name = "labeler"

    async def label(self, claims: Sequence[str], documents: Sequence[Document]) -> LabelResult:
        """Label every claim against every document."""
        raise NotImplementedError

    def label_sync(self, claims: Sequence[str], documents: Sequence[Any]) -> LabelResult:
        """Synchronous :meth:`label`; also works inside a running event loop."""
        return run_sync(self.label(list(claims), _coerce_docs(documents)))

    def identity(self) -> dict[str, Any]:
        """What determines this labeler's labels (recorded with a run's checkpoint)."""
        return {"labeler": self.name, "class": type(self).__qualname__}

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


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

    async def _ask(
        self,
        prompt: str,
        schema: type[BaseModel],
        max_tokens: int | None,
        failed: Callable[[str | None], T],
        from_reply: Callable[..., T],
    ) -> tuple[T, int, Usage]:
        """One call read into labels: ``from_reply(text, parsed=, parse_error=, truncated=)``,
        or ``failed(error)`` when the call failed; with the calls made and their usage."""
        # the model is awaited here, not through a helper: one coroutine less per call
        try:
            out = await self.model.generate(prompt, **self._settings(schema, max_tokens))
        except ModelError as exc:
            return failed(f"model error: {exc}"), 1, Usage()
        labels = from_reply(
            out.text, parsed=out.parsed, parse_error=out.parse_error, truncated=out.truncated
        )
        return labels, max(1, out.usage.calls), out.usage

    prompt_name = prompts.LABEL

    def identity(self) -> dict[str, Any]:
        """The labeler, its model, prompt version and decoding settings."""
        from conflicteval.fingerprint import text_version
        from conflicteval.runs.identity import describe

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


class _BatchedLLMBase(_LLMBase):
    """An LLM labeler whose call labels many pairs: its reply budget grows with them."""

    def __init__(
        self, model: Model | str, *, max_tokens_per_item: int = BATCH_TOKENS_PER_ITEM, **kwargs: Any
    ) -> None:
        super().__init__(model, **kwargs)
        self.max_tokens_per_item = max_tokens_per_item

    def _budget(self, n: int) -> int:
        return batch_budget(n, self.max_tokens_per_item)


async def _gather_calls(
    jobs: Iterable[Awaitable[tuple[T, int, Usage]]],
) -> tuple[list[T], int, Usage]:
    """Run ``jobs`` (each: labels, calls, usage) concurrently: their labels in order, and the
    calls and usage of them all."""
    done = await asyncio.gather(*jobs)
    usage = Usage()
    calls = 0
    for _, n, u in done:
        calls += n
        usage.add(u)
    return [labels for labels, _, _ in done], calls, usage


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
