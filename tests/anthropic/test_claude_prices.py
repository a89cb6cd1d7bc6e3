"""The Claude 4.x rows of the price table: list prices, batch at half, dated snapshots."""

from __future__ import annotations

import logging

import pytest

from conflicteval import get_model, pricing
from conflicteval.errors import UsageError
from conflicteval.testing.anthropic_server import AnthropicServer


@pytest.mark.parametrize(
    ("spec", "rates"),
    [
        ("anthropic/claude-sonnet-4-5", (3.0, 15.0)),
        ("anthropic/claude-sonnet-4-5-20250929", (3.0, 15.0)),  # Anthropic's dated snapshot
        ("anthropic/claude-opus-4-1", (15.0, 75.0)),
        ("anthropic/claude-opus-4-5", (5.0, 25.0)),
        ("anthropic/claude-haiku-4-5-20251001", (1.0, 5.0)),
    ],
)
def test_claude_prices_and_half_by_batch(spec: str, rates: tuple[float, float]) -> None:
    price = pricing.lookup(spec)
    assert price is not None and price.rates() == rates
    assert price.rates(batch=True) == (rates[0] / 2, rates[1] / 2)


def test_a_claude_name_is_priced_only_under_its_provider() -> None:
    assert pricing.lookup("claude-sonnet-4-5") is None  # that would be openai/claude-sonnet-4-5
    assert pricing.lookup("openai/claude-sonnet-4-5") is None
    assert pricing.lookup("gpt-4o-mini-2024-07-18") is not None  # OpenAI's dates still work


def test_an_online_claude_call_is_priced() -> None:
    with AnthropicServer(["one two"]) as srv:
        model = get_model("anthropic/claude-haiku-4-5", base_url=srv.base_url, cache=False)
        out = model.generate_sync("a b c")
    assert out.usage.cost_usd == pytest.approx((3 * 1.0 + 2 * 5.0) / 1_000_000)


def test_api_version_2026_10_21_sends_no_temperature_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with AnthropicServer(["ok"]) as srv:
        model = get_model("anthropic/claude-haiku-4-5", base_url=srv.base_url, cache=False,
                          api_version="2026-10-21")  # fmt: skip
        with caplog.at_level(logging.WARNING, logger="conflicteval.models"):
            model.generate_sync("a")
            model.generate_sync("b")
        assert srv.refused() == [] and all("temperature" not in r.body for r in srv.messages())
    said = [r for r in caplog.records if "has no temperature" in r.getMessage()]
    assert len(said) == 1 and "temperature 0 is not sent" in said[0].getMessage()
    with pytest.raises(UsageError, match="api_version"):
        get_model("anthropic/x", api_version="latest", cache=False)
