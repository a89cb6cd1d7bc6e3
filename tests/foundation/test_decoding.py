"""Model capabilities per family: the request built from the protocol's decoding and them."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from conflicteval import get_model
from conflicteval.cli import main
from conflicteval.errors import DataError, UsageError
from conflicteval.models.decoding import (
    REASONING_OUTPUT_BUDGET,
    Decoding,
    capabilities_for,
    plan,
    set_model_families,
)
from conflicteval.runs.identity import describe
from conflicteval.testing import OpenAICompatServer


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("o1", "reasoning"),
        ("o3-mini", "reasoning"),
        ("o4-mini-2025-04-16", "reasoning"),
        ("gpt-5", "reasoning"),
        ("gpt-5-mini", "reasoning"),
        ("gpt-5.1", "reasoning"),
        ("gpt-4o-mini", "chat"),
        ("gpt-4.1", "chat"),
        ("meta-llama/Llama-3.1-8B", "chat"),
        ("openrouter/o3", "reasoning"),
    ],
)
def test_families_are_looked_up_by_model_name(name: str, family: str) -> None:
    assert capabilities_for(name).family == family


def test_the_family_table_is_overridable_by_file_and_by_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "families.json"
    path.write_text(json.dumps({"my-deploy*": {"family": "reasoning", "output_budget": 4000}}))
    monkeypatch.setenv("CONFLICTEVAL_MODEL_FAMILIES", str(path))
    caps = capabilities_for("my-deployment")
    assert caps.family == "reasoning" and caps.output_budget == 4000
    assert capabilities_for("gpt-5", family="chat").family == "chat"
    set_model_families({"gpt-5*": "chat"})
    try:
        assert capabilities_for("gpt-5-mini").family == "chat"
    finally:
        set_model_families(None)
    path.write_text(json.dumps({"x": {"family": "reasoning", "top_p": "no"}}))
    with pytest.raises(DataError, match="top_p"):
        capabilities_for("x")


def test_a_reasoning_model_is_sent_what_it_takes_and_each_deviation_is_named() -> None:
    sent = plan(Decoding(0.0, 250, 5), capabilities_for("o3"), extra={"top_p": 0.9})
    assert sent.temperature is None and "top_p" not in sent.extra
    assert sent.token_field == "max_completion_tokens"
    assert sent.max_tokens == REASONING_OUTPUT_BUDGET
    assert [d.setting for d in sent.deviations] == ["temperature", "top_p", "max_tokens"]
    assert sent.deviations[0].text() == (
        "temperature: protocol 0.0, sent none (only the default 1 is taken)"
    )
    override = plan(Decoding(0.0, 250, 5), capabilities_for("o3"), max_output_tokens=900)
    assert override.max_tokens == 900
    plain = plan(Decoding(0.0, 250, 5), capabilities_for("gpt-4o"), extra={"top_p": 0.9})
    assert plain.deviations == () and plain.extra == {"top_p": 0.9}


def test_the_cache_key_holds_what_is_sent(tmp_path: Path) -> None:
    chat = get_model("openai/gpt-4o-mini", api_key="k", cache=tmp_path / "c")
    before = chat.key_components("hi")
    assert "token_field" not in before and before["temperature"] == 0.0  # old keys unchanged
    reasoning = get_model("openai/o4-mini", api_key="k", cache=tmp_path / "c")
    parts = reasoning.key_components("hi")
    assert parts["temperature"] is None and parts["max_tokens"] == REASONING_OUTPUT_BUDGET
    assert parts["token_field"] == "max_completion_tokens"
    # temperature 0 and 1 send the same request to a reasoning model: one key
    assert reasoning.cache_key("hi", temperature=0.0) == reasoning.cache_key("hi", temperature=1.0)
    low = get_model("openai/o4-mini", api_key="k", cache=tmp_path / "c", reasoning_effort="low")
    assert low.cache_key("hi") != reasoning.cache_key("hi")
    small = get_model("openai/o4-mini", api_key="k", cache=tmp_path / "c", max_output_tokens=500)
    assert small.key_components("hi")["max_tokens"] == 500


def test_reasoning_effort_is_refused_for_a_chat_model_before_any_call() -> None:
    with pytest.raises(UsageError, match="reasoning models"):
        get_model("openai/gpt-4o-mini", api_key="k", reasoning_effort="low")
    with pytest.raises(UsageError, match="one of"):
        get_model("openai/o3", api_key="k", reasoning_effort="extreme")


def test_reasoning_tokens_are_counted_priced_as_output_and_cached(tmp_path: Path) -> None:
    with OpenAICompatServer(replies=["four words of reply"]) as srv:
        model = get_model(
            "openai/gpt-5-mini", base_url=srv.base_url, api_key="k", cache=tmp_path / "c"
        )
        first = model.generate_sync("question")
        again = model.generate_sync("question")
        body = srv.completions()[0].body
    assert body is not None and body["max_completion_tokens"] == REASONING_OUTPUT_BUDGET
    assert first.usage.reasoning_tokens == 4 and first.usage.completion_tokens == 8
    # gpt-5-mini: $2.00 per million output tokens, reasoning included
    assert first.usage.cost_usd == pytest.approx(
        (first.usage.prompt_tokens * 0.25 + 8 * 2.00) / 1e6
    )
    assert again.cached and again.usage.reasoning_tokens == 4
    assert first.usage.decoding and "max_completion_tokens" in first.usage.decoding[-1]
    dumped = first.usage.model_dump()
    assert dumped["reasoning_tokens"] == 4
    assert "reasoning_tokens" not in get_model("scripted").usage.model_dump()


def test_the_run_identity_records_the_models_decoding() -> None:
    assert "decoding" not in describe(get_model("openai/gpt-4o", api_key="k"))
    described = describe(get_model("openai/gpt-5", api_key="k", max_output_tokens=4000))
    assert described["decoding"]["family"] == "reasoning"
    assert described["decoding"]["max_output_tokens"] == 4000


def test_score_with_gpt5_mini_is_never_refused_and_says_its_deviation_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    docs = [{"id": "a", "text": "It opened in 1847."}, {"id": "b", "text": "It opened in 1851."}]
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps({"id": f"r{k}", "response": "It opened in 1847.", "documents": docs}) + "\n"
            for k in range(4)
        )
    )
    answer = json.dumps(
        {"claim": "c", "document_snippet": "", "reasoning": "", "answer": "SUPPORTS"}
    )
    with OpenAICompatServer(replies=[answer]) as srv, caplog.at_level(logging.WARNING):
        status = main(["score", "--input", str(items), "--out", str(tmp_path / "o"),
                       "--model", "openai/gpt-5-mini", "--labeler", "llm", "--decomposer",
                       "sentence", "--base-url", srv.base_url])  # fmt: skip
        sent = srv.completions()
    assert status == 0 and len(sent) == 8 and all(r.status == 200 for r in sent)
    said = [r.getMessage() for r in caplog.records if "other decoding" in r.getMessage()]
    assert len(said) == 1
    assert "temperature: protocol 0.0, sent none" in said[0]
    assert "max_tokens: protocol" in said[0] and "max_completion_tokens 25000" in said[0]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert any("temperature" in line for line in summary["usage"]["decoding"])
