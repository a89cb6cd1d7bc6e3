"""Stage 1 of ConflictScore: break a response into claims.

Every decomposer has ``name`` and ``async decompose(response) -> Decomposition``
(plus ``decompose_sync``). An empty result is a recorded failure
(``Decomposition.error``), never silently zero claims.

* :class:`LLMDecomposer` -- the paper's Table 6 prompt, one model call per response.
* :class:`SentenceDecomposer` -- offline: one claim per sentence.
* :class:`WholeResponse` -- offline: the whole response is one unit (the paper's
  cheapest variant, Limitations): ``documents`` labelling calls per response
  with an LLM labeler, but no claim-level granularity.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from conflicteval._sync import run_sync
from conflicteval.models import Model, get_model
from conflicteval.types import CUT_OFF, Decoding, Usage

from . import prompts
from .claims_parse import claims_list_problem, parse_claims
from .sentences import split_sentences

__all__ = [
    "DECOMPOSE_SETTINGS",
    "Decomposer",
    "Decomposition",
    "LLMDecomposer",
    "SentenceDecomposer",
    "WholeResponse",
    "claims_from_reply",
    "decompose_prompt",
]

DECOMPOSE_SETTINGS = Decoding(temperature=0.0, max_tokens=1024, seed=5)
"""Default decoding of :class:`LLMDecomposer` (a claim list is longer than 250 tokens)."""


def decompose_prompt(response: str) -> str:
    """The paper's Table 6 prompt for ``response`` (pure)."""
    return prompts.fill(prompts.load_prompt(prompts.DECOMPOSE), report=response)


def claims_from_reply(
    text: str, *, truncated: bool = False, max_claims: int | None = None
) -> tuple[list[str], str | None]:
    """Read the claims of a reply to the Table 6 prompt (pure).

    Args:
        text: The model's reply.
        truncated: The reply was cut at its token budget (``finish_reason`` "length"):
            no claims then, with the error ``reply cut off by max_tokens`` (a list cut
            short would silently drop claims).
        max_claims: Keep only the first ``max_claims`` claims (None: all).

    Returns:
        ``(claims, error)``: ``error`` says why no claim was found (None when some were).
    """
    if truncated:
        return [], CUT_OFF
    problem = claims_list_problem(text)
    claims = [] if problem else parse_claims(text)
    if max_claims is not None:
        claims = claims[:max_claims]
    error = problem or (None if claims else "no claims in the decomposition reply")
    return claims, error


class Decomposition(BaseModel):
    """The claims of one response.

    Attributes:
        claims: The claims, in order ([] on failure).
        calls: Model calls made (0 for offline decomposers).
        usage: Token usage of those calls.
        error: Why no claim was found (None on success).
        raw: The model's reply (LLM decomposer only).
    """

    claims: list[str]
    calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    error: str | None = None
    raw: str | None = None


@runtime_checkable
class Decomposer(Protocol):
    """What ConflictScorer needs from a decomposer."""

    name: str

    async def decompose(self, response: str) -> Decomposition:
        """Break ``response`` into claims."""
        ...


class _Base:
    name = "decomposer"

    async def decompose(self, response: str) -> Decomposition:
        raise NotImplementedError

    def decompose_sync(self, response: str) -> Decomposition:
        """Synchronous :meth:`decompose`; also works inside a running event loop."""
        return run_sync(self.decompose(response))

    def identity(self) -> dict[str, Any]:
        """What determines this decomposer's claims (recorded with a run's checkpoint)."""
        return {"decomposer": self.name, **getattr(self, "_identity_extra", lambda: {})()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class WholeResponse(_Base):
    """The whole response is one claim (no decomposition)."""

    name = "whole"

    async def decompose(self, response: str) -> Decomposition:
        """Return the stripped response as the single claim."""
        text = response.strip()
        if not text:
            return Decomposition(claims=[], error="empty response")
        return Decomposition(claims=[text])


class SentenceDecomposer(_Base):
    """One claim per sentence (offline, deterministic).

    Segmentation survives abbreviations, initials, decimals, quotes and
    bullet lists; see :func:`~conflicteval.conflictscore.sentences.split_sentences`.

    Args:
        min_words: Sentences with fewer words are dropped (headings, "Yes.").
    """

    name = "sentence"

    def __init__(self, min_words: int = 1) -> None:
        self.min_words = min_words

    def _identity_extra(self) -> dict[str, Any]:
        return {"min_words": self.min_words}

    async def decompose(self, response: str) -> Decomposition:
        """Split ``response`` into sentences."""
        claims = [s for s in split_sentences(response) if len(s.split()) >= self.min_words]
        if not claims:
            return Decomposition(claims=[], error="no sentence in response")
        return Decomposition(claims=claims)


class LLMDecomposer(_Base):
    """The paper's decomposer: the Table 6 prompt, one model call per response.

    Args:
        model: A :class:`~conflicteval.models.Model` or a spec such as ``"openai/gpt-4.1"``.
        max_tokens: Reply budget (a claim list is longer than the model
            layer's default of 250 tokens).
        temperature: Sampling temperature.
        seed: Sampling seed.
        max_claims: Keep only the first ``max_claims`` claims (None: all).
    """

    name = "llm"

    def __init__(
        self,
        model: Model | str,
        *,
        max_tokens: int | None = DECOMPOSE_SETTINGS["max_tokens"],
        temperature: float | None = DECOMPOSE_SETTINGS["temperature"],
        seed: int | None = DECOMPOSE_SETTINGS["seed"],
        max_claims: int | None = None,
    ) -> None:
        self.model = get_model(model) if isinstance(model, str) else model
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.seed = seed
        self.max_claims = max_claims

    def prompt(self, response: str) -> str:
        """The Table 6 prompt for ``response``."""
        return decompose_prompt(response)

    def _settings(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}

    def _identity_extra(self) -> dict[str, Any]:
        from conflicteval.fingerprint import text_version
        from conflicteval.runs.identity import describe

        return {
            "model": describe(self.model),
            "prompt": text_version(prompts.load_prompt(prompts.DECOMPOSE)),
            **self._settings(),
            "max_claims": self.max_claims,
        }

    async def decompose(self, response: str) -> Decomposition:
        """Ask the model for the claims and parse its "Claims:" list.

        Raises:
            ModelError: The call failed for good.
        """
        if not response.strip():
            return Decomposition(claims=[], error="empty response")
        out = await self.model.generate(self.prompt(response), **self._settings())
        claims, error = claims_from_reply(
            out.text, truncated=out.finish_reason == "length", max_claims=self.max_claims
        )
        return Decomposition(
            claims=claims, calls=max(1, out.usage.calls), usage=out.usage, error=error, raw=out.text
        )

    def __repr__(self) -> str:
        return f"LLMDecomposer({self.model.name!r})"
