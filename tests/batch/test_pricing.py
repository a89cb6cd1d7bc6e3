"""The price table, cost lines of a run, dry-run cost, and --batch-export on every command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval import pricing
from conflicteval.cli import build_parser, main
from conflicteval.errors import DataError, PendingCall
from conflicteval.models import get_model
from conflicteval.models.answerers import Count, answer_with
from conflicteval.models.ledger import track_calls
from conflicteval.testing import OpenAICompatServer


@pytest.fixture(autouse=True)
def _no_overrides() -> Any:
    pricing.set_prices(None)
    yield
    pricing.set_prices(None)


def test_lookup_by_spec_bare_name_and_dated_snapshot() -> None:
    mini = pricing.DEFAULT_PRICES["gpt-4o-mini"]
    assert pricing.lookup("openai/gpt-4o-mini") is mini
    assert pricing.lookup("gpt-4o-mini-2024-07-18") is mini
    assert pricing.lookup("openai/gpt-4o") is pricing.DEFAULT_PRICES["gpt-4o"]
    assert pricing.lookup("openai/llama-3-8b") is None
    assert pricing.lookup("scripted/gpt-4o") is None  # not OpenAI's model
    assert mini.cost(1_000_000, 1_000_000) == pytest.approx(0.75)
    assert mini.cost(1_000_000, 1_000_000, batch=True) == pytest.approx(0.375)
    assert pricing.estimate("openai/nope", 10, 10) is None
    assert "not in the price table" in pricing.missing_note("openai/nope")
    assert pricing.PRICES_AS_OF in pricing.missing_note("openai/nope")


def test_user_prices_override_and_batch_defaults_to_half(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {"my-model": {"input": 2, "output": 4}, "gpt-4o-mini": {"input": 1, "output": 1}}
        )
    )
    monkeypatch.setenv(pricing.ENV_PRICES, str(path))
    own = pricing.lookup("openai/my-model")
    assert own is not None and own.rates(batch=True) == (1.0, 2.0)
    assert pricing.estimate("openai/gpt-4o-mini", 1_000_000, 0) == pytest.approx(1.0)
    assert str(path) in pricing.source_note()
    pricing.set_prices({"my-model": {"input": 8, "output": 8, "batch_input": 1, "batch_output": 1}})
    assert pricing.estimate("openai/my-model", 10**6, 10**6, batch=True) == pytest.approx(2.0)
    path.write_text(json.dumps({"m": {"input": "cheap", "output": 1}}))
    with pytest.raises(DataError, match=r"prices.json, row m, field 'input'"):
        pricing.load_prices(path)
    path.write_text(json.dumps({"m": {"input": 1}}))
    with pytest.raises(DataError, match=r"field 'output': missing"):
        pricing.load_prices(path)


def test_run_cost_lines_per_model_online_cached_and_batch(tmp_path: Path) -> None:
    pricing.forget_notes()  # a new run
    with OpenAICompatServer(lambda body: "one two three four") as srv:
        model = get_model("openai/gpt-4o-mini", base_url=srv.base_url, cache=tmp_path / "c")
        other = get_model("openai/local-llama", base_url=srv.base_url, cache=tmp_path / "c")
        key = model.cache_key("first question here")
        model.generate_sync("first question here")
        with track_calls(batch_ids=[key]) as ledger:
            model.generate_sync("first question here")  # a hit on a batch-imported key
            model.generate_sync("second question")  # online
            model.generate_sync("second question")  # cache
            other.generate_sync("hello")
    lines = ledger.cost_lines()
    usage = ledger.models["openai/gpt-4o-mini"]
    assert (usage.online.calls, usage.cached.calls, usage.batch.calls) == (1, 1, 1)
    assert usage.online.prompt_tokens == 2 and usage.online.completion_tokens == 4
    mini = pricing.DEFAULT_PRICES["gpt-4o-mini"]
    want = pricing.format_usd(mini.cost(2, 4))
    assert lines[0].startswith(
        "openai/gpt-4o-mini: 1 online (2 prompt + 4 completion tokens, est. "
    )
    assert (
        want in lines[0] and "at batch rates" in lines[0] and "1 from cache (no cost)" in lines[0]
    )
    assert lines[1].startswith("openai/local-llama: 1 online")
    assert lines[2].startswith("note: openai/local-llama is not in the price table")
    assert lines[-1].startswith("cost: list prices, table last checked")
    # said once per run: a later summary of the same run (a batch run's next round) says
    # "no price known" on the model's line instead of the whole note again
    again = ledger.cost_lines()
    assert not any(line.startswith("note:") for line in again)
    assert again[1].endswith("(no price known)")


def _count(model: Any, prompts: list[str], max_tokens: int | None) -> Any:
    """The dry-run report of these calls (the Count answerer; nothing is sent)."""
    with answer_with(Count()) as count:
        for prompt in prompts:
            with pytest.raises(PendingCall):
                model.generate_sync(prompt, max_tokens=max_tokens)
    return count.report()


def test_dry_run_shows_online_and_batch_cost(tmp_path: Path) -> None:
    model = get_model("openai/gpt-4o", base_url="http://127.0.0.1:9/v1", cache=tmp_path / "c")
    calls = ["x" * 400] * 10
    report = _count(model, calls, 100)
    assert report.max_completion_tokens == 1000
    cost = report.cost()
    assert cost is not None
    assert cost["batch_prompt"] == pytest.approx(cost["online_prompt"] / 2)  # type: ignore[operator]
    assert cost["online_completion_max"] == pytest.approx(1000 * 10.0 / 1e6)
    text = report.summary()
    assert "online" in text and "by batch" in text and "(1000 tokens)" in text
    unbounded = _count(model, ["x"], None)
    assert "not bounded" in unbounded.summary() and unbounded.to_dict()["cost_usd"] is not None
    local = get_model("openai/llama", base_url="http://127.0.0.1:9/v1", cache=tmp_path / "c")
    assert "not in the price table" in _count(local, calls, 100).summary()


COMMANDS = [
    ["score"],
    ["wikicontradict", "generate"],
    ["wikicontradict", "judge"],
    ["wikicontradict", "calibrate"],
    ["conflictbench", "build"],
    ["conflictbench", "detect"],
    ["reports"],
    ["regenerate"],
    ["feverous", "verify"],
    ["ramdocs", "run"],
    ["faitheval", "run"],
    ["bench", "labeler"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_model_calling_command_takes_batch_export(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    out = capsys.readouterr().out
    assert "--batch-export FILE" in out and "--dry-run" in out
    build_parser()  # the option is added once per command (argparse refuses duplicates)


def test_batch_export_and_dry_run_take_any_executor() -> None:
    import argparse

    from conflicteval.batch.export import BatchExport
    from conflicteval.cli.batch import batch_context_from_args

    for executor in ("ray", "local"):  # the answerer travels to Ray actors
        args = argparse.Namespace(batch_export="r.jsonl", executor=executor, dry_run=False)
        ctx = batch_context_from_args(args)
        assert isinstance(ctx.ledger, BatchExport) and ctx.count is None
        args.dry_run = True  # a dry run counts, and exports nothing
        ctx = batch_context_from_args(args)
        assert isinstance(ctx.count, Count) and not isinstance(ctx.ledger, BatchExport)


def test_price_provenance_says_last_checked_and_how_to_override(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(pricing.ENV_PRICES, raising=False)
    note = pricing.source_note()
    assert f"table last checked {pricing.PRICES_AS_OF}" in note
    assert f"${pricing.ENV_PRICES}" in note  # how to override
    for text in (pricing.__doc__ or "", note, pricing.missing_note("openai/x")):
        assert "published on" not in text and "prices of 20" not in text
        assert "read from" not in text
    assert "last checked against OpenAI's public pricing pages" in " ".join(
        (pricing.__doc__ or "").split()
    )


def test_the_remembered_prices_follow_the_file_and_the_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the table and each model's price are kept between calls; a change of what makes the
    # table (the file named, its contents, the overrides) is seen at the next look-up
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"my-model": {"input": 2, "output": 4}}))
    monkeypatch.setenv(pricing.ENV_PRICES, str(path))
    assert pricing.call_cost("openai/my-model", 10**6, 0) == pytest.approx(2.0)
    path.write_text(json.dumps({"my-model": {"input": 30, "output": 4}}))  # another size
    assert pricing.call_cost("openai/my-model", 10**6, 0) == pytest.approx(30.0)
    pricing.set_prices({"my-model": {"input": 5, "output": 5}})
    assert pricing.call_cost("openai/my-model", 10**6, 0) == pytest.approx(5.0)
    pricing.set_prices(None)
    monkeypatch.delenv(pricing.ENV_PRICES)
    assert pricing.lookup("openai/my-model") is None
    assert pricing.price_table() is not pricing.price_table()  # a copy each time, as before
