"""Translation between the library's types and Inspect's (messages, settings, errors)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
)

from conflicteval.errors import ConflictEvalError


class SampleError(ConflictEvalError, ValueError):
    """A sample lacks what a conflicteval task or scorer needs (the message names it)."""


def chat_messages(messages: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    """The library's ``{"role", "content"}`` messages as Inspect chat messages.

    The content is kept as is, an empty system turn included (the paper's layout).
    """
    out: list[ChatMessage] = []
    for m in messages:
        role, content = m["role"], m["content"]
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "user":
            out.append(ChatMessageUser(content=content))
        elif role == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            raise ValueError(f"unknown message role {role!r}")
    return out


def user_message(prompt: str) -> list[ChatMessage]:
    """One user turn, as the library sends a plain prompt."""
    return [ChatMessageUser(content=prompt)]


def generate_config(settings: Mapping[str, Any]) -> GenerateConfig:
    """A GenerateConfig from the library's decoding settings (temperature, max_tokens, seed)."""
    keys = ("temperature", "max_tokens", "seed")
    return GenerateConfig(**{k: settings[k] for k in keys if settings.get(k) is not None})


def unscored_metadata(reason: str, **extra: Any) -> dict[str, Any]:
    """Score metadata of an unscored sample.

    ``unscored_reason`` is where Inspect before 0.3.26x recorded why a sample
    is unscored; later versions read it into ``Score.reason``.
    """
    return {"unscored_reason": reason, **extra}


def sample_name(sample_id: Any) -> str:
    """How errors name a sample."""
    return f"sample {sample_id!r}"
