"""Dry-run reports: what a run would cost, counted without calling any model.

A dry run is the workflow itself, run under the
:class:`~conflicteval.models.answerers.Count` answerer: every call the
workflow makes is counted where it is made (the model layer), served from the
cache when the cache holds it, and otherwise left pending. Prompt tokens are
counted with ``tiktoken`` when it is installed and has its encoding available
offline, otherwise estimated (characters / 4), and the report says which.
Calls whose prompts depend on replies not in the cache (for example labelling
the claims a decomposition will produce) are not reached, so the report is a
lower bound then, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from conflicteval.types import Message


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
    uncached_prompt_tokens: int = 0
    """Prompt tokens of the calls to send (what a run would pay for)."""
    max_completion_tokens: int | None = 0
    """Most completion tokens the calls to send may cost (None: some set no max_tokens)."""

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
        cost = self.cost_text()
        if cost:
            text += f"\n{cost}"
        for note in self.notes:
            text += f"\nnote: {note}"
        return text

    def cost(self) -> dict[str, float | None] | None:
        """Estimated dollars of the calls to send, online and by batch (None: no price).

        ``*_prompt`` are the prompt tokens' cost; ``*_completion_max`` the most the
        completions can cost (None when some call sets no ``max_tokens``).
        """
        from conflicteval import pricing

        price = pricing.lookup(self.model)
        if price is None:
            return None
        out: dict[str, float | None] = {}
        for kind, batch in (("online", False), ("batch", True)):
            out[f"{kind}_prompt"] = price.cost(self.uncached_prompt_tokens, 0, batch=batch)
            out[f"{kind}_completion_max"] = (
                None
                if self.max_completion_tokens is None
                else price.cost(0, self.max_completion_tokens, batch=batch)
            )
        return out

    def cost_text(self) -> str:
        """The cost line of :meth:`summary` (empty when nothing is to be sent)."""
        from conflicteval import pricing

        if not self.uncached:
            return ""
        cost = self.cost()
        if cost is None:
            return f"note: {pricing.missing_note(self.model)}"
        usd = pricing.format_usd
        text = (
            f"estimated cost of the {self.uncached} calls to send: prompts "
            f"{usd(cost['online_prompt'] or 0)} online, {usd(cost['batch_prompt'] or 0)} by batch"
        )
        if cost["online_completion_max"] is None:
            text += "; completions not bounded (no max_tokens)"
        else:
            text += (
                f"; completions at most {usd(cost['online_completion_max'])} online, "
                f"{usd(cost['batch_completion_max'] or 0)} by batch "
                f"({self.max_completion_tokens} tokens)"
            )
        return text + f" ({pricing.source_note()})"

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
            "uncached_prompt_tokens": self.uncached_prompt_tokens,
            "max_completion_tokens": self.max_completion_tokens,
            "cost_usd": self.cost(),
        }


def tokenizer_for(model_name: str) -> tuple[Any, str] | None:
    """``(tiktoken encoding, its description)`` for a model, or None (not installed or offline)."""
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
