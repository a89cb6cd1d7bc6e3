"""Estimated cost of model calls: a small, dated, user-overridable price table.

Prices are US dollars per million tokens, online and through the Batch API
(half price at OpenAI), for the models people commonly evaluate with: OpenAI's
list prices, in a table last checked against OpenAI's public pricing pages on
:data:`PRICES_AS_OF`. Prices change after that date and the table does not
follow them by itself, so every estimate says which table it used (and that it
can be overridden), and a model that is not in the table is said to be missing
instead of costing nothing. Cached-input
discounts and taxes are not modelled: the figures are estimates, not invoices.

Override or extend the table with a JSON file named by ``$CONFLICTEVAL_PRICES``
or passed to :func:`set_prices`::

    {"gpt-4o-mini": {"input": 0.15, "output": 0.60, "batch_input": 0.075, "batch_output": 0.30},
     "openai/my-finetune": {"input": 0.30, "output": 1.20}}

A model without batch prices is priced at half its online price by batch (the
OpenAI Batch API's discount). Keys are model names as sent to the server
(``gpt-4o-mini``) or full specs (``openai/gpt-4o-mini``); a dated snapshot such
as ``gpt-4o-mini-2024-07-18`` falls back to its undated name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conflicteval.errors import DataError

if TYPE_CHECKING:
    from conflicteval.types import Usage

PRICES_AS_OF = "2026-11-28"
"""The date the built-in table was last checked (see :data:`OPENAI_PRICE_SOURCES`).

Not a date the prices are guaranteed for: override them with a JSON file named by
``$CONFLICTEVAL_PRICES`` or with :func:`set_prices`."""

ENV_PRICES = "CONFLICTEVAL_PRICES"
"""Environment variable naming a JSON price file that overrides the built-in table."""

BATCH_DISCOUNT = 0.5
"""Batch price as a share of the online price, when a table entry gives none."""


@dataclass(frozen=True)
class Price:
    """Prices of one model in US dollars per million tokens.

    Attributes:
        input: Prompt tokens, online.
        output: Completion tokens, online.
        batch_input: Prompt tokens through the Batch API (default: half of ``input``).
        batch_output: Completion tokens through the Batch API (default: half of ``output``).
    """

    input: float
    output: float
    batch_input: float | None = None
    batch_output: float | None = None

    def rates(self, batch: bool = False) -> tuple[float, float]:
        """(prompt, completion) dollars per million tokens, online or by batch."""
        if not batch:
            return self.input, self.output
        return (
            self.batch_input if self.batch_input is not None else self.input * BATCH_DISCOUNT,
            self.batch_output if self.batch_output is not None else self.output * BATCH_DISCOUNT,
        )

    def cost(self, prompt_tokens: int, completion_tokens: int, *, batch: bool = False) -> float:
        """Dollars for these tokens."""
        rate_in, rate_out = self.rates(batch)
        return (prompt_tokens * rate_in + completion_tokens * rate_out) / 1_000_000


OPENAI_PRICE_SOURCES = (
    "OpenAI's pricing page (developers.openai.com/api/docs/pricing), as transcribed in "
    "public price tables dated March to November 2026 that cite it (the page itself was "
    "not read directly on the check date); a row is kept only where those tables agree, "
    "batch prices are half the online ones (the Batch API's discount). Reasoning tokens "
    "are billed as output tokens, and the API counts them in completion_tokens."
)
"""Where the OpenAI rows of :data:`DEFAULT_PRICES` come from, and how far they are checked."""

DEFAULT_PRICES: dict[str, Price] = {
    # OpenAI, checked on PRICES_AS_OF (OPENAI_PRICE_SOURCES); o3-pro and the gpt-5.4 nano
    # and pro models are left out: the tables citing OpenAI's page disagree on them.
    "gpt-5.4": Price(2.50, 15.00, 1.25, 7.50),
    "gpt-5.4-mini": Price(0.75, 4.50, 0.375, 2.25),
    "gpt-5.1": Price(1.25, 10.00, 0.625, 5.00),
    "gpt-5-pro": Price(15.00, 120.00, 7.50, 60.00),
    "gpt-5": Price(1.25, 10.00, 0.625, 5.00),
    "gpt-5-mini": Price(0.25, 2.00, 0.125, 1.00),
    "gpt-5-nano": Price(0.05, 0.40, 0.025, 0.20),
    "gpt-4.1": Price(2.00, 8.00, 1.00, 4.00),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.20, 0.80),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.05, 0.20),
    "gpt-4o": Price(2.50, 10.00, 1.25, 5.00),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075, 0.30),
    "o3": Price(2.00, 8.00, 1.00, 4.00),
    "o4-mini": Price(1.10, 4.40, 0.55, 2.20),
    "o3-mini": Price(1.10, 4.40, 0.55, 2.20),
    "o1": Price(15.00, 60.00, 7.50, 30.00),
    "o1-pro": Price(150.00, 600.00, 75.00, 300.00),
    "gpt-4-turbo": Price(10.00, 30.00, 5.00, 15.00),
    "gpt-3.5-turbo": Price(0.50, 1.50, 0.25, 0.75),
}
"""The built-in table (list prices, last checked on :data:`PRICES_AS_OF`)."""

CLAUDE_PRICES_AS_OF = "2026-11-28"
"""The date the Claude rows were checked against Anthropic's model pages (see below)."""

CLAUDE_PRICES: dict[str, Price] = {
    # Anthropic's list prices, US dollars per million tokens, from the model overview pages of
    # platform.claude.com/docs/en/models/<model>/overview and the pricing table of the Message
    # Batches guide (docs.anthropic.com/en/docs/build-with-claude/batch-processing): "Batch
    # API: 50% discount on input and output". Checked on CLAUDE_PRICES_AS_OF. Cache writes
    # and reads (priced apart by Anthropic) are not modelled. Keys are full specs: a Claude
    # model is priced only as anthropic/<model>; a dated snapshot (-20250929) falls back here.
    "anthropic/claude-opus-4": Price(15.00, 75.00, 7.50, 37.50),
    "anthropic/claude-opus-4-0": Price(15.00, 75.00, 7.50, 37.50),
    "anthropic/claude-opus-4-1": Price(15.00, 75.00, 7.50, 37.50),
    "anthropic/claude-opus-4-5": Price(5.00, 25.00, 2.50, 12.50),
    "anthropic/claude-opus-4-6": Price(5.00, 25.00, 2.50, 12.50),
    "anthropic/claude-sonnet-4": Price(3.00, 15.00, 1.50, 7.50),
    "anthropic/claude-sonnet-4-0": Price(3.00, 15.00, 1.50, 7.50),
    "anthropic/claude-sonnet-4-5": Price(3.00, 15.00, 1.50, 7.50),
    "anthropic/claude-sonnet-4-6": Price(3.00, 15.00, 1.50, 7.50),
    "anthropic/claude-haiku-4-5": Price(1.00, 5.00, 0.50, 2.50),
}
"""Claude 4.x list prices (checked on :data:`CLAUDE_PRICES_AS_OF`), part of the built-in table."""

DEFAULT_PRICES.update(CLAUDE_PRICES)

_overrides: dict[str, Price] = {}
_DATED = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")
"""A dated snapshot's suffix: OpenAI's ``-2024-07-18``, Anthropic's ``-20250929``."""


def _price_of(path: str, key: str, value: Any) -> Price:
    if isinstance(value, Price):
        return value
    if not isinstance(value, Mapping):
        raise DataError(path, key, None, "a price entry must be an object of numbers")
    fields = {}
    for name in ("input", "output", "batch_input", "batch_output"):
        v = value.get(name)
        if v is None:
            if name in ("input", "output"):
                raise DataError(path, key, name, "missing (dollars per million tokens)")
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise DataError(path, key, name, f"must be a number >= 0, not {v!r}")
        fields[name] = float(v)
    unknown = set(value) - {"input", "output", "batch_input", "batch_output"}
    if unknown:
        raise DataError(path, key, sorted(unknown)[0], "unknown field")
    return Price(**fields)


def load_prices(path: str | os.PathLike[str]) -> dict[str, Price]:
    """Read a JSON price file ``{model: {"input", "output", "batch_input"?, "batch_output"?}}``.

    Raises:
        DataError: The file is not such an object (names the file, model and field).
    """
    from conflicteval.jsonio import load_json_object

    data = load_json_object(path, "a price file is one JSON object {model: prices}")
    return {str(k): _price_of(str(path), str(k), v) for k, v in data.items()}


def set_prices(
    table: Mapping[str, Price | Mapping[str, float]] | str | os.PathLike[str] | None,
) -> None:
    """Override prices for this process (a mapping or a JSON file); None drops overrides."""
    _overrides.clear()
    if table is None:
        return
    if isinstance(table, (str, os.PathLike)):
        _overrides.update(load_prices(table))
    else:
        _overrides.update({k: _price_of("<prices>", k, v) for k, v in table.items()})


def price_table() -> dict[str, Price]:
    """The table in force: built-in, then ``$CONFLICTEVAL_PRICES``, then :func:`set_prices`."""
    return dict(_table_in_force()[1])


# The table in force and each model's price in it, kept while what makes the table stays
# the same (the price file named, its size and modification time, the overrides): a call's
# cost is looked up on every call, and rebuilding the table each time was measurable.
_memo: dict[str, Any] = {"key": None, "table": {}, "prices": {}}


def _table_in_force() -> tuple[Any, dict[str, Price]]:
    env = os.environ.get(ENV_PRICES)
    stamp: Any = None
    if env:
        try:
            stat = os.stat(env)
            stamp = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = "unreadable"  # load_prices names the problem
    key = (env, stamp, tuple(_overrides.items()))
    if _memo["key"] != key:
        table = dict(DEFAULT_PRICES)
        if env:
            table.update(load_prices(env))
        table.update(_overrides)
        _memo.update(key=key, table=table, prices={})
    return key, _memo["table"]


def lookup(model: str, table: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model`` (a spec such as ``openai/gpt-4o-mini`` or a bare name), or None."""
    if table is not None:
        return _find(model, table)
    _, prices = _table_in_force()
    known: dict[str, Price | None] = _memo["prices"]
    if model not in known:
        known[model] = _find(model, prices)
    return known[model]


def _find(model: str, prices: Mapping[str, Price]) -> Price | None:
    provider, _, name = model.partition("/")
    candidates = [model] if not name else [model, name]
    if provider not in ("openai", "") and name:
        candidates = [model]  # other providers (scripted, ...) only by their full spec
    for cand in list(candidates):
        undated = _DATED.sub("", cand)
        if undated != cand:
            candidates.append(undated)
    for cand in candidates:
        if cand in prices:
            return prices[cand]
    return None


def estimate(
    model: str, prompt_tokens: int, completion_tokens: int, *, batch: bool = False
) -> float | None:
    """Estimated dollars for these tokens, or None when the model is not in the table."""
    price = lookup(model)
    return None if price is None else price.cost(prompt_tokens, completion_tokens, batch=batch)


def format_usd(amount: float) -> str:
    """``$1.23``, with more digits for small amounts (``$0.0042``)."""
    if amount == 0:
        return "$0"
    if amount >= 1:
        return f"${amount:,.2f}"
    if amount >= 0.0001:
        return f"${amount:.4f}"
    return "$" + f"{amount:.8f}".rstrip("0").rstrip(".")  # no exponent: $0.000043


def missing_note(model: str) -> str:
    """The sentence shown for a model without a price."""
    return (
        f"{model} is not in the price table (last checked {PRICES_AS_OF}): no cost estimate; "
        f"add it in a JSON file named by ${ENV_PRICES}"
    )


_noted: set[str] = set()


def first_missing_note(model: str) -> bool:
    """True the first time in this run that ``model``'s missing price is to be noted (the
    note is said once; later summaries say "no price known" only)."""
    if model in _noted:
        return False
    _noted.add(model)
    return True


def forget_notes() -> None:
    """Start a new run: each model's missing price is noted once again."""
    _noted.clear()


def source_note() -> str:
    """Which table an estimate used."""
    if os.environ.get(ENV_PRICES):
        where = f", overridden by {os.environ[ENV_PRICES]}"
    else:
        where = f"; override with a JSON file named by ${ENV_PRICES}"
    return f"list prices, table last checked {PRICES_AS_OF}{where}; estimates, not invoices"


def call_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Estimated dollars of one call sent online (0.0 when the model has no price).

    A price file that cannot be read costs the call nothing here (a model call never fails
    for its price); the summaries that show the cost name the file's problem.
    """
    try:
        return estimate(model, prompt_tokens, completion_tokens) or 0.0
    except DataError:
        return 0.0


def price_row(model: str) -> str:
    """``"openai/gpt-4o-mini: $0.15 prompt + $0.60 completion per 1M tokens"`` or the
    "no price known" sentence."""
    price = lookup(model)
    if price is None:
        return f"{model}: no price known"
    return f"{model}: ${price.input:g} prompt + ${price.output:g} completion per 1M tokens"


def cost_text(usage: Usage) -> str:
    """The money of a run's usage on one line: estimated dollars, the price rows and the
    table's date, or which models have no known price.

    Only calls sent to a server cost money; replays from the cache cost nothing.
    """
    if not usage.sent_calls:
        return "cost: $0 (no call sent)" if usage.calls else "cost: $0 (no model calls)"
    try:
        rows = [price_row(m) for m in usage.models]
    except DataError as exc:
        return f"cost: unknown ({exc})"
    unpriced = [m for m in usage.models if lookup(m) is None]
    priced = [r for r, m in zip(rows, usage.models, strict=True) if m not in unpriced]
    if not usage.models or not priced:
        names = ", ".join(unpriced) or "these models"
        return f"cost: no price known for {names} (prices of {PRICES_AS_OF})"
    text = f"cost: est. {format_usd(usage.cost_usd)} ({'; '.join(priced)}; {source_note()})"
    if unpriced:
        text += f"; no price known for {', '.join(unpriced)} (not in the estimate)"
    return text


def cost_summary(usage: Usage) -> dict[str, Any]:
    """The money of a usage for JSON summaries: estimated dollars of the calls sent, the
    price table's date, each model's price row, and the models without a price."""
    try:
        table = {m: lookup(m) for m in usage.models}
    except DataError as exc:
        return {"usd": None, "error": str(exc), "prices_as_of": PRICES_AS_OF}
    unpriced = [m for m, p in table.items() if p is None]
    priced = {m: p for m, p in table.items() if p is not None}
    return {
        "usd": round(usage.cost_usd, 6) if priced or not usage.sent_calls else None,
        "prices_as_of": PRICES_AS_OF,
        "price_file": os.environ.get(ENV_PRICES) or None,
        "prices_per_million_tokens": {
            m: {"prompt": p.input, "completion": p.output} for m, p in priced.items()
        },
        "no_price_known": unpriced,
        "note": "estimate of the calls sent this run at list prices; cache replays cost nothing",
    }
