"""Dry runs: what a batch would cost, without calling any model.

A dry run takes the requests the first stage of a batch would send, asks the
cache which of them it already holds, and counts prompt tokens — with
``tiktoken`` when it is installed and has its encoding available offline,
otherwise with an estimate (characters / 4) that says it is one. Later stages
whose prompts depend on earlier replies (for example labelling the claims a
decomposition will produce) cannot be counted exactly; commands say so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from conflicteval.models.core import Model
from conflicteval.types import Message


@dataclass
class PlannedCall:
    """One model call a batch would make."""

    messages: list[Message]
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass
class DryRunReport:
    """The cost of a batch, counted without calling a model."""

    model: str
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    tokens_estimated: bool = True
    tokenizer: str = "chars/4 estimate"
    notes: list[str] = field(default_factory=list)

    @property
    def uncached(self) -> int:
        """Calls that would go to the server."""
        return self.calls - self.cached

    def summary(self) -> str:
        """One human-readable paragraph."""
        kind = "estimated" if self.tokens_estimated else "counted"
        text = (
            f"dry run for {self.model}: {self.calls} model calls, {self.cached} already cached, "
            f"{self.uncached} to send; "
            f"{self.prompt_tokens} prompt tokens ({kind}, {self.tokenizer})"
        )
        for note in self.notes:
            text += f"\nnote: {note}"
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "model": self.model,
            "calls": self.calls,
            "cached": self.cached,
            "uncached": self.uncached,
            "prompt_tokens": self.prompt_tokens,
            "tokens_estimated": self.tokens_estimated,
            "tokenizer": self.tokenizer,
            "notes": list(self.notes),
        }


def _tokenizer(model_name: str) -> tuple[Any, str] | None:
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        try:
            enc = tiktoken.encoding_for_model(model_name)
        except KeyError:
            enc = tiktoken.get_encoding("cl100k_base")
    except Exception:
        return None
    return enc, f"tiktoken {enc.name}"


def estimate_prompt_tokens(messages: list[Message], tokenizer: Any | None = None) -> int:
    """Prompt tokens of ``messages``: exact with a tokenizer, else chars/4 (+4 per message)."""
    if tokenizer is not None:
        # disallowed_special=(): a prompt that spells "<|endoftext|>" is text, not an error
        return sum(
            len(tokenizer.encode(m.get("content", ""), disallowed_special=())) + 4 for m in messages
        )
    return sum((len(m.get("content", "")) + 3) // 4 + 4 for m in messages)


def dry_run(model: Model, calls: Iterable[PlannedCall], notes: Iterable[str] = ()) -> DryRunReport:
    """Count the calls, cache hits and prompt tokens of ``calls`` for ``model``."""
    tok = _tokenizer(model.provider.model)
    report = DryRunReport(model=model.name, notes=list(notes))
    if tok is not None:
        report.tokens_estimated = False
        report.tokenizer = tok[1]
    for call in calls:
        report.calls += 1
        if model.is_cached(call.messages, **call.settings):
            report.cached += 1
        report.prompt_tokens += estimate_prompt_tokens(
            call.messages, tok[0] if tok is not None else None
        )
    return report
