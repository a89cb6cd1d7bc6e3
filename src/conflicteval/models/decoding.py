"""Decoding settings and model capabilities: what a protocol asks for, what a model takes.

A protocol fixes its decoding (WikiContradict: temperature 0, at most 250 new tokens,
seed 5). Not every model accepts every setting: OpenAI's reasoning models (``o1``,
``o3``, ``o4-mini``, ``gpt-5`` and later) take ``max_completion_tokens`` instead of
``max_tokens``, refuse any ``temperature`` but the default 1 and any ``top_p``, and take
``reasoning_effort``; their token limit also covers their hidden reasoning, so the
protocol's 250 tokens would leave nothing for the answer.

This module is the one place where the two meet:

* :class:`~conflicteval.types.Decoding`: the protocol's settings for one call (any provider).
* :class:`Capabilities`: what one model family accepts, looked up by model name in a
  table of data (:data:`DEFAULT_FAMILIES`, overridable with a JSON file named by
  ``$CONFLICTEVAL_MODEL_FAMILIES`` or with :func:`set_model_families`).
* :func:`plan`: the settings actually sent (:class:`SentDecoding`) and every
  :class:`Deviation` from the protocol, each of which the run reports once, records
  in its identity and summary, and which enters the cache key as sent.

Any provider uses it: it reads the sent values (``max_tokens``, ``token_field``,
``temperature``, ``seed``, ``reasoning_effort``) and writes them in its own API's form.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from conflicteval.errors import DataError, UsageError
from conflicteval.jsonio import load_json_object
from conflicteval.types import DEFAULT_DECODING, Decoding

__all__ = [
    "DEFAULT_DECODING",
    "DEFAULT_FAMILIES",
    "ENV_FAMILIES",
    "FAMILY_PATTERNS",
    "REASONING_EFFORTS",
    "REASONING_OUTPUT_BUDGET",
    "Capabilities",
    "Decoding",
    "Deviation",
    "SentDecoding",
    "capabilities_for",
    "forget_said",
    "note_deviations",
    "plan",
    "refusal_hint",
    "set_model_families",
]

log = logging.getLogger("conflicteval.models")

ENV_FAMILIES = "CONFLICTEVAL_MODEL_FAMILIES"
"""Environment variable naming a JSON file of model-name patterns and their capabilities."""

REASONING_OUTPUT_BUDGET = 25_000
"""Output tokens sent to a reasoning model when the protocol asks for fewer.

OpenAI's reasoning guide recommends reserving at least 25,000 tokens for reasoning and
output when starting with these models; a limit is a cap, not a charge (only the tokens
generated are billed). ``--max-output-tokens`` (``max_output_tokens=``) overrides it."""

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
"""Values of ``reasoning_effort`` the library passes on (which ones a model takes is the
model's business: the server refuses the others with a 400)."""


@dataclass(frozen=True)
class Capabilities:
    """What one model family accepts.

    Attributes:
        family: The family's name (``"chat"``, ``"reasoning"``), shown in the run's identity.
        token_field: The request field of the output limit (``max_tokens`` or
            ``max_completion_tokens``).
        temperature: Whether a temperature other than the default may be sent; False:
            none is sent (the model uses its default, 1).
        top_p: Whether ``top_p`` may be sent.
        seed: Whether ``seed`` may be sent.
        reasoning_effort: Whether ``reasoning_effort`` may be sent.
        output_budget: Smallest output limit sent (the reasoning allowance), or None.
    """

    family: str = "chat"
    token_field: str = "max_tokens"
    temperature: bool = True
    top_p: bool = True
    seed: bool = True
    reasoning_effort: bool = False
    output_budget: int | None = None


CHAT = Capabilities()
REASONING = Capabilities(
    family="reasoning",
    token_field="max_completion_tokens",
    temperature=False,
    top_p=False,
    reasoning_effort=True,
    output_budget=REASONING_OUTPUT_BUDGET,
)

DEFAULT_FAMILIES: dict[str, Capabilities] = {"chat": CHAT, "reasoning": REASONING}
"""The built-in families by name."""

FAMILY_PATTERNS: tuple[tuple[str, str], ...] = (
    ("o1", "reasoning"),
    ("o1-*", "reasoning"),
    ("o3", "reasoning"),
    ("o3-*", "reasoning"),
    ("o4-*", "reasoning"),
    ("gpt-5*", "reasoning"),
    ("gpt-6*", "reasoning"),
)
"""Model-name patterns (``fnmatch``, case-insensitive, matched against the name's last
path segment) and their family; any other name is ``chat``. User patterns come first."""

_user: dict[str, Capabilities] = {}
_lock = threading.Lock()
_said: set[tuple[str, str]] = set()


def _capabilities_of(where: str, key: str, value: Any) -> Capabilities:
    if isinstance(value, Capabilities):
        return value
    if isinstance(value, str):
        if value not in DEFAULT_FAMILIES:
            raise DataError(
                where, key, None, f"unknown family {value!r} (known: {', '.join(DEFAULT_FAMILIES)})"
            )
        return DEFAULT_FAMILIES[value]
    if not isinstance(value, Mapping):
        raise DataError(where, key, None, "a family name or an object of capabilities")
    base = DEFAULT_FAMILIES.get(str(value.get("family", "chat")))
    if base is None:
        raise DataError(where, key, "family", f"unknown family {value.get('family')!r}")
    known = {f.name: f.type for f in fields(Capabilities)}
    changes: dict[str, Any] = {}
    for name, v in value.items():
        if name not in known:
            raise DataError(where, key, name, "unknown field")
        if name == "token_field" and v not in ("max_tokens", "max_completion_tokens"):
            raise DataError(where, key, name, "must be max_tokens or max_completion_tokens")
        if name in ("temperature", "top_p", "seed", "reasoning_effort") and not isinstance(v, bool):
            raise DataError(where, key, name, f"must be true or false, not {v!r}")
        if (
            name == "output_budget"
            and v is not None
            and (isinstance(v, bool) or not isinstance(v, int) or v < 1)
        ):
            raise DataError(where, key, name, f"must be a positive integer or null, not {v!r}")
        changes[name] = v
    return replace(base, **changes)


def set_model_families(
    table: Mapping[str, str | Capabilities | Mapping[str, Any]] | str | os.PathLike[str] | None,
) -> None:
    """Override model capabilities for this process: ``{pattern: family or capabilities}``.

    A pattern is an ``fnmatch`` pattern of model names (``"my-o3-deployment"``,
    ``"qwen3-*"``); a value is a family name (``"reasoning"``, ``"chat"``) or an object
    of :class:`Capabilities` fields (``{"family": "reasoning", "output_budget": 8000}``).
    A path names a JSON file of that object. None drops the overrides.

    Raises:
        DataError: The table or file is not such an object (names file, pattern, field).
    """
    with _lock:
        _user.clear()
        if table is None:
            return
        _user.update(_load(table))


def _load(table: Any) -> dict[str, Capabilities]:
    if isinstance(table, (str, os.PathLike)):
        data = load_json_object(table, "one JSON object {model pattern: family}")
        return {str(k): _capabilities_of(str(table), str(k), v) for k, v in data.items()}
    return {str(k): _capabilities_of("<model families>", str(k), v) for k, v in table.items()}


def _env_table() -> dict[str, Capabilities]:
    env = os.environ.get(ENV_FAMILIES)
    return _load(env) if env else {}


def capabilities_for(model: str, family: str | None = None) -> Capabilities:
    """The capabilities of ``model`` (a name as sent to the server).

    Args:
        model: The model (or deployment) name; its last path segment is matched.
        family: A family name given by the user (``--model-family``), which wins.

    Raises:
        UsageError: An unknown family name.
        DataError: The ``$CONFLICTEVAL_MODEL_FAMILIES`` file cannot be read.
    """
    if family is not None:
        if family not in DEFAULT_FAMILIES:
            raise UsageError(
                f"unknown model family {family!r}; known: {', '.join(DEFAULT_FAMILIES)}"
            )
        return DEFAULT_FAMILIES[family]
    name = model.rsplit("/", 1)[-1].lower()
    with _lock:
        user = dict(_user)
    for table in (user, _env_table()):
        for pattern, caps in table.items():
            if fnmatch.fnmatchcase(name, pattern.lower()) or model == pattern:
                return caps
    for pattern, fam in FAMILY_PATTERNS:
        if fnmatch.fnmatchcase(name, pattern):
            return DEFAULT_FAMILIES[fam]
    return CHAT


@dataclass(frozen=True)
class Deviation:
    """One setting sent otherwise than the protocol asks."""

    setting: str
    protocol: Any
    sent: str

    def text(self) -> str:
        """``temperature: protocol 0.0, sent not sent (...)``."""
        return f"{self.setting}: protocol {self.protocol!r}, sent {self.sent}"


@dataclass(frozen=True)
class SentDecoding:
    """The decoding one request carries, and how it differs from the protocol's.

    Attributes:
        temperature: Sent temperature (None: not sent).
        max_tokens: Sent output limit (None: not sent), written as ``token_field``.
        token_field: ``max_tokens`` or ``max_completion_tokens``.
        seed: Sent seed (None: not sent).
        reasoning_effort: Sent ``reasoning_effort`` (None: not sent).
        extra: Further request parameters, less those the model cannot take.
        deviations: Each setting sent otherwise than the protocol asks.
    """

    temperature: float | None
    max_tokens: int | None
    token_field: str = "max_tokens"
    seed: int | None = None
    reasoning_effort: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    deviations: tuple[Deviation, ...] = ()

    def key_part(self) -> dict[str, Any]:
        """What the cache key adds beyond temperature, max_tokens and seed (empty when the
        request is built as before: old keys stay valid)."""
        part: dict[str, Any] = {}
        if self.token_field != "max_tokens":
            part["token_field"] = self.token_field
        if self.reasoning_effort is not None:
            part["reasoning_effort"] = self.reasoning_effort
        return part


def plan(
    decoding: Decoding,
    caps: Capabilities,
    *,
    extra: Mapping[str, Any] | None = None,
    max_output_tokens: int | None = None,
    reasoning_effort: str | None = None,
) -> SentDecoding:
    """The decoding sent for ``decoding`` to a model with ``caps``, and its deviations.

    Args:
        decoding: The protocol's settings.
        caps: The model's capabilities.
        extra: Further request parameters (``top_p`` among them is checked).
        max_output_tokens: The user's output limit (``--max-output-tokens``), which
            replaces the protocol's ``max_tokens`` and the reasoning allowance.
        reasoning_effort: The user's ``reasoning_effort`` (reasoning models only).
    """
    extra = dict(extra or {})
    out: list[Deviation] = []
    temperature = decoding.temperature
    if temperature is not None and not caps.temperature:
        if float(temperature) != 1.0:
            out.append(Deviation("temperature", temperature, "none (only the default 1 is taken)"))
        temperature = None
    top_p = extra.pop("top_p", decoding.top_p)
    if top_p is not None:
        if caps.top_p:
            extra["top_p"] = top_p
        else:
            out.append(Deviation("top_p", top_p, "none (not taken by this model)"))
    seed = decoding.seed if caps.seed else None
    if decoding.seed is not None and seed is None:
        out.append(Deviation("seed", decoding.seed, "none (not taken by this model)"))
    limit = decoding.max_tokens
    if max_output_tokens is not None:
        limit = max_output_tokens
    elif caps.output_budget is not None and (limit is None or limit < caps.output_budget):
        limit = caps.output_budget
    if limit != decoding.max_tokens:
        why = "--max-output-tokens" if max_output_tokens is not None else "reasoning allowance"
        out.append(
            Deviation("max_tokens", decoding.max_tokens, f"{caps.token_field} {limit} ({why})")
        )
    effort = reasoning_effort
    if effort is not None and not caps.reasoning_effort:
        effort = None  # refused before the run by check_options; never sent to a chat model
    return SentDecoding(
        temperature=temperature,
        max_tokens=limit,
        token_field=caps.token_field,
        seed=seed,
        reasoning_effort=effort,
        extra=extra,
        deviations=tuple(out),
    )


class DecodingPolicy:
    """One model's way from a protocol's settings to the request sent.

    A model (``Model.decoding``) holds one: its capabilities and the user's
    ``max_output_tokens`` / ``reasoning_effort``. Any provider's requests come from
    :meth:`sent`.
    """

    def __init__(
        self,
        capabilities: Capabilities = CHAT,
        max_output_tokens: int | None = None,
        reasoning_effort: str | None = None,
    ) -> None:
        self.capabilities = capabilities
        self.max_output_tokens = max_output_tokens
        self.reasoning_effort = reasoning_effort
        # every request is sent with the protocol's own settings (the common case: no work)
        self.plain = capabilities == CHAT and max_output_tokens is None and reasoning_effort is None

    @classmethod
    def of(
        cls, provider: Any, max_output_tokens: int | None, reasoning_effort: str | None
    ) -> DecodingPolicy:
        """The policy of ``provider`` (its ``capabilities``, else the chat family's).

        Raises:
            UsageError: Options the model cannot take (see :func:`check_options`).
        """
        caps = getattr(provider, "capabilities", None)
        caps = caps if isinstance(caps, Capabilities) else CHAT
        name = f"{getattr(provider, 'name', '?')}/{getattr(provider, 'model', '?')}"
        check_options(name, caps, max_output_tokens, reasoning_effort)
        return cls(caps, max_output_tokens, reasoning_effort)

    def sent(
        self,
        temperature: float | None,
        max_tokens: int | None,
        seed: int | None,
        extra: dict[str, Any],
    ) -> SentDecoding:
        """The decoding a call with these protocol settings is sent with."""
        if self.plain:
            return SentDecoding(temperature, max_tokens, "max_tokens", seed, None, extra)
        return plan(
            Decoding(temperature, max_tokens, seed),
            self.capabilities,
            extra=extra,
            max_output_tokens=self.max_output_tokens,
            reasoning_effort=self.reasoning_effort,
        )

    def identity(self) -> dict[str, Any] | None:
        """How this decoding departs from a protocol's, for a run's identity (None: it
        sends the protocol's settings as they are)."""
        if self.plain:
            return None
        caps = self.capabilities
        return {
            "family": caps.family,
            "token_field": caps.token_field,
            "temperature": caps.temperature,
            "top_p": caps.top_p,
            "output_budget": caps.output_budget,
            "max_output_tokens": self.max_output_tokens,
            "reasoning_effort": self.reasoning_effort,
        }


def check_options(
    model: str, caps: Capabilities, max_output_tokens: int | None, reasoning_effort: str | None
) -> None:
    """Refuse decoding options a model cannot take, before any call.

    Raises:
        UsageError: ``reasoning_effort`` for a model that is not a reasoning model, an
            unknown effort, or an output limit below 1.
    """
    if max_output_tokens is not None and (
        isinstance(max_output_tokens, bool)
        or not isinstance(max_output_tokens, int)
        or max_output_tokens < 1
    ):
        raise UsageError(
            f"--max-output-tokens must be a positive integer, not {max_output_tokens!r}"
        )
    if reasoning_effort is None:
        return
    if reasoning_effort not in REASONING_EFFORTS:
        raise UsageError(
            f"--reasoning-effort {reasoning_effort!r}: one of {', '.join(REASONING_EFFORTS)}"
        )
    if not caps.reasoning_effort:
        raise UsageError(
            f"--reasoning-effort is for reasoning models; {model} is in the {caps.family!r} "
            "family (say --model-family reasoning if it is one)"
        )


def note_deviations(model: str, sent: SentDecoding) -> list[str]:
    """Say a call's deviations once per process, in one line; return their record lines."""
    lines = [f"{model}: {d.text()}" for d in sent.deviations]
    said = f"{model} is sent other decoding than the protocol's: " + "; ".join(
        d.text() for d in sent.deviations
    )
    if (model, said) not in _said:
        with _lock:
            first = (model, said) not in _said
            _said.add((model, said))
        if first:
            log.warning("%s", said)
    return lines


def forget_said() -> None:
    """Start a new run: its deviations are said again (once each)."""
    with _lock:
        _said.clear()


_REFUSED = (
    ("'max_tokens'", "max_completion_tokens"),
    ("'temperature'", "temperature"),
    ("'top_p'", "top_p"),
    ("'reasoning_effort'", "reasoning_effort"),
    ("reasoning_effort", "reasoning_effort"),
)


def refusal_hint(model: str, status: int | None, message: str) -> str | None:
    """One line saying which option to use, when a 400 refuses a decoding parameter."""
    if status != 400:
        return None
    for needle, param in _REFUSED:
        if needle in message and ("nsupported" in message or "nrecognized" in message):
            if param == "reasoning_effort":
                return (
                    f"{model} does not take reasoning_effort: drop --reasoning-effort "
                    "(or say --model-family chat)"
                )
            return (
                f"{model} refused {param.replace('max_completion_tokens', 'max_tokens')} "
                "as reasoning models do: run it with --model-family reasoning (or add its name "
                f"to a model family file named by ${ENV_FAMILIES})"
            )
    return None
