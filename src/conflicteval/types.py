"""Plain data types shared by every part of conflicteval.

Everything here is a pydantic model (or a type alias) so that results can be
written to JSON lines, read back, and opened in pandas without custom code.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer

Relation = Literal["SUPPORTS", "CONTRADICTS", "IRRELEVANT"]
"""The label of one claim against one document (ConflictScore, Table 7)."""

RELATIONS: tuple[Relation, ...] = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")

Status = Literal["ok", "parse_error", "model_error", "pending"]
"""How one item of a batch ended (``pending``: waiting for a batch result)."""

Message = dict[str, str]
"""One chat message: ``{"role": "user", "content": "..."}``."""


CUT_OFF = "reply cut off by max_tokens"
"""The failure reason of a structured reply (label, verdict, claims, JSON) that the
token limit cut short (``finish_reason == "length"``)."""


class CallReply(BaseModel):
    """One model call's reply as an item's record keeps it (see ``RunOptions.keep_replies``).

    Attributes:
        model: The model's name.
        reply: The reply's text, its first :data:`~conflicteval.models.usage_scopes.KEPT_REPLY`
            characters.
        left_out: Characters of the reply beyond those kept (0: the whole reply).
        cached: Replayed from the response cache (not sent).
        finish_reason: Why the reply ended, as the server said (``stop``, ``length``).
        latency_s: Seconds from sending the call to its reply (None when replayed).
    """

    model: str
    reply: str
    left_out: int = 0
    cached: bool = False
    finish_reason: str | None = None
    latency_s: float | None = None


class Usage(BaseModel):
    """Token usage of one or more model calls, and their estimated cost.

    ``prompt_tokens`` / ``completion_tokens`` count every call, those replayed
    from the response cache included; ``cached_prompt_tokens`` /
    ``cached_completion_tokens`` are the replayed share, so the tokens sent to a
    server are the difference (:attr:`sent_prompt_tokens`,
    :attr:`sent_completion_tokens`). ``cost_usd`` is the estimated price of the
    calls sent (a cache replay costs nothing) at the price table's list prices
    (:mod:`conflicteval.pricing`); ``models`` names the models calls were sent
    to, so a summary can show each one's price row, or that no price is known.
    ``truncated`` counts the replies the token limit cut short
    (``finish_reason == "length"``).
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    truncated: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    cost_usd: float = 0.0
    models: list[str] = Field(default_factory=list)
    reasoning_tokens: int = 0
    """The share of ``completion_tokens`` a reasoning model spent on hidden reasoning
    (counted in ``completion_tokens`` and priced as output, as the API bills it)."""
    decoding: list[str] = Field(default_factory=list)
    """Each decoding setting sent otherwise than the protocol asks, one line per model and
    setting (``"openai/gpt-5-mini: temperature: protocol 0.0, sent none (...)"``); see
    :mod:`conflicteval.models.decoding`."""

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        # the two later fields are left out while empty: records and summaries of runs
        # without a reasoning model read exactly as before
        data: dict[str, Any] = handler(self)
        if not data.get("reasoning_tokens"):
            data.pop("reasoning_tokens", None)
        if not data.get("decoding"):
            data.pop("decoding", None)
        return data

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def sent_calls(self) -> int:
        """Calls a server answered (not replayed from the cache)."""
        return self.calls - self.cached_calls

    @property
    def sent_prompt_tokens(self) -> int:
        """Prompt tokens of the calls a server answered."""
        return self.prompt_tokens - self.cached_prompt_tokens

    @property
    def sent_completion_tokens(self) -> int:
        """Completion tokens of the calls a server answered."""
        return self.completion_tokens - self.cached_completion_tokens

    def add(self, other: Usage) -> None:
        """Add ``other`` into this object in place."""
        # Written straight into the fields (the model validates no assignment, so this is
        # what pydantic's __setattr__ would do, at a fraction of its cost: every model call
        # is added to several of these).
        mine, theirs = self.__dict__, other.__dict__
        for name in _USAGE_FIELDS:
            mine[name] += theirs[name]
        models = mine["models"]
        for name in theirs["models"]:
            if name not in models:
                models.append(name)
        if theirs["decoding"]:
            lines = mine["decoding"]
            lines.extend(line for line in theirs["decoding"] if line not in lines)
            self.__pydantic_fields_set__.add("decoding")
        self.__pydantic_fields_set__.update(_USAGE_FIELDS)
        self.__pydantic_fields_set__.add("models")

    def truncated_note(self) -> str:
        """``", N replies cut off by max_tokens"`` for a summary line, or "" when none were."""
        if not self.truncated:
            return ""
        return (
            f", {self.truncated} repl{'y' if self.truncated == 1 else 'ies'} cut off by max_tokens"
        )

    def tokens_text(self) -> str:
        """``"N prompt + M completion tokens sent (K + L replayed from the cache)"``."""
        text = (
            f"{self.sent_prompt_tokens} prompt + {self.sent_completion_tokens} completion "
            "tokens sent"
        )
        if self.reasoning_tokens:
            text += f" (completion tokens include {self.reasoning_tokens} reasoning)"
        if self.cached_calls:
            text += (
                f" ({self.cached_prompt_tokens} + {self.cached_completion_tokens} replayed "
                "from the cache)"
            )
        return text

    def __add__(self, other: Usage) -> Usage:
        out = self.model_copy(deep=True)
        out.add(other)
        return out


_USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "calls",
    "cached_calls",
    "truncated",
    "cached_prompt_tokens",
    "cached_completion_tokens",
    "cost_usd",
    "reasoning_tokens",
)


class Completion(BaseModel):
    """The result of one model call.

    Attributes:
        text: The generated text ("" never reaches a caller as success: an
            empty reply is a model error).
        finish_reason: As reported by the server ("stop", "length", ...).
        usage: Token usage of this call (``calls`` is 1, ``cached_calls`` 1 on a hit).
        cached: True when the reply came from the cache (no network).
        model: The model name the call was made with.
        parsed: With a response schema: the validated JSON object, else None.
        parse_error: With a response schema: why the reply could not be parsed
            (after one re-ask), else None. ``text`` then holds the raw reply.
    """

    text: str
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cached: bool = False
    model: str = ""
    parsed: Any = None
    parse_error: str | None = None

    @property
    def truncated(self) -> bool:
        """Whether the token limit cut the reply short (``finish_reason == "length"``)."""
        return self.finish_reason == "length"


class Document(BaseModel):
    """A source document handed to a model or a labeler."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    title: str | None = None

    @classmethod
    def coerce(cls, value: Document | str | dict[str, Any], index: int = 0) -> Document:
        """Turn a string, mapping or Document into a Document (id defaults to the index)."""
        if isinstance(value, Document):
            return value
        if isinstance(value, str):
            return cls(id=str(index), text=value)
        if isinstance(value, dict):
            data = dict(value)
            data.setdefault("id", str(index))
            data["id"] = str(data["id"])
            if "text" not in data:
                for alt in ("contents", "content", "passage"):
                    if alt in data:
                        data["text"] = data.pop(alt)
                        break
            return cls.model_validate({k: data.get(k) for k in ("id", "text", "title")})
        raise TypeError(f"cannot use {type(value).__name__} as a document")


class PairLabel(BaseModel):
    """The label of one (claim, document) pair.

    ``label`` is None when the pair failed (no parsable label, or the model
    call failed); ``error`` then says why and ``raw`` keeps the reply.
    """

    claim_index: int
    doc_index: int
    label: Relation | None = None
    snippet: str | None = None
    reasoning: str | None = None
    error: str | None = None
    raw: str | None = None


def row_labels(
    row: Sequence[PairLabel], n_documents: int
) -> tuple[list[Relation | None], list[str]]:
    """One claim's labels against ``n_documents`` documents, and why each missing one failed.

    ``row`` is the claim's row of a labeler's table (``LabelResult.pairs[i]``). A document
    the row has no pair for, or whose pair has no valid relation, gets None and a reason
    ``"document j: ..."``.
    """
    labels: list[Relation | None] = []
    errors: list[str] = []
    for j in range(n_documents):
        pair = row[j] if j < len(row) else None
        if pair is None:
            labels.append(None)
            errors.append(f"document {j}: the labeler returned no pair")
        elif pair.label is None or pair.label not in RELATIONS:
            labels.append(None)
            errors.append(f"document {j}: {pair.error or f'no valid label ({pair.label!r})'}")
        else:
            labels.append(pair.label)
    return labels, errors


@dataclass(frozen=True, eq=False)
class Decoding(Mapping[str, Any]):
    """The decoding a protocol asks for in one call (None: not set, the server's default).

    The one settings object: every protocol's settings are one (``LABEL_SETTINGS``,
    ``PAPER_SETTINGS``, ...), and :data:`DEFAULT_DECODING` gives ``Model.generate`` and
    ``ProviderRequest`` their defaults. It reads as the mapping of the keyword arguments of
    ``Model.generate`` (``model.generate(prompt, **settings)``, ``settings["max_tokens"]``,
    equal to the same dict); ``top_p`` is among them only when set.

    Attributes:
        temperature: Sampling temperature.
        max_tokens: Most new tokens of the answer.
        seed: Sampling seed.
        top_p: Nucleus sampling mass (usually not set by the protocols).
    """

    temperature: float | None = 0.0
    max_tokens: int | None = 250
    seed: int | None = 5
    top_p: float | None = None

    def _names(self) -> tuple[str, ...]:
        return _ALWAYS if self.top_p is None else (*_ALWAYS, "top_p")

    def __getitem__(self, name: str) -> Any:
        if name not in self._names():
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        inside = ", ".join(f"{k}={v!r}" for k, v in self.items())
        return f"Decoding({inside})"


_ALWAYS = ("temperature", "max_tokens", "seed")

DEFAULT_DECODING = Decoding()
"""``Model.generate``'s defaults: the WikiContradict paper's (temperature 0, at most 250 new
tokens, seed 5)."""
