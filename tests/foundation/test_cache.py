"""The SQLite response cache: hits, misses, keys and what is (not) stored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conflicteval import ModelError, get_model
from conflicteval.cache import ResponseCache
from conflicteval.cli import main as cli_main
from conflicteval.testing import Fault, OpenAICompatServer


def cached_model(server: OpenAICompatServer, cache_dir: Path, name: str = "m1", **opts: object):
    return get_model(
        f"openai/{name}",
        base_url=server.base_url,
        api_key="k",
        cache=cache_dir,
        backoff_initial=0.01,
        **opts,
    )


def test_second_identical_run_is_served_from_cache(tmp_path: Path) -> None:
    with OpenAICompatServer(
        replies=lambda body: "reply to " + body["messages"][-1]["content"]
    ) as s:
        prompts = [f"question {i}" for i in range(20)]
        first = [cached_model(s, tmp_path).generate_sync(p) for p in prompts]
        assert len(s.completions()) == 20
        model = cached_model(s, tmp_path)
        second = [model.generate_sync(p) for p in prompts]
        assert len(s.completions()) == 20  # zero new requests
        assert [o.text for o in second] == [o.text for o in first]
        assert all(o.cached for o in second) and not any(o.cached for o in first)
        assert model.cache is not None and model.cache.hits == 20
        assert model.usage.cached_calls == 20
        assert second[0].usage.prompt_tokens == first[0].usage.prompt_tokens


@pytest.mark.parametrize(
    "change",
    [
        {"temperature": 0.7},
        {"max_tokens": 100},
        {"seed": 6},
        {"top_p": 0.5},
        {"prompt_version": "v2"},
        {"response_schema": {"type": "object"}},
    ],
)
def test_changing_any_setting_misses(tmp_path: Path, change: dict[str, object]) -> None:
    with OpenAICompatServer(replies=lambda body: '{"a": 1}') as s:
        cached_model(s, tmp_path).generate_sync("q")
        out = cached_model(s, tmp_path).generate_sync("q", **change)
        assert not out.cached
        assert len(s.completions()) == 2


def test_changing_model_or_base_url_misses(tmp_path: Path) -> None:
    with OpenAICompatServer() as s, OpenAICompatServer() as other:
        cached_model(s, tmp_path).generate_sync("q")
        assert not cached_model(s, tmp_path, name="m2").generate_sync("q").cached
        assert not cached_model(other, tmp_path).generate_sync("q").cached
        assert cached_model(s, tmp_path).generate_sync("q").cached
        assert len(s.completions()) == 2 and len(other.completions()) == 1


def test_failures_are_not_cached(tmp_path: Path) -> None:
    with OpenAICompatServer(faults=[Fault.status_code(500)]) as s:
        with pytest.raises(ModelError):
            cached_model(s, tmp_path, max_attempts=1).generate_sync("q")
        out = cached_model(s, tmp_path).generate_sync("q")
        assert not out.cached
        assert ResponseCache(tmp_path).info()["entries"] == 1


def test_cache_disabled_never_stores(tmp_path: Path) -> None:
    with OpenAICompatServer() as s:
        m = get_model("openai/m", base_url=s.base_url, api_key="k", cache=False)
        m.generate_sync("q")
        m.generate_sync("q")
        assert len(s.completions()) == 2
        assert m.cache is None


def test_default_cache_dir_comes_from_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "envcache"))
    with OpenAICompatServer() as s:
        get_model("openai/m", base_url=s.base_url, api_key="k", cache=True).generate_sync("q")
    assert (tmp_path / "envcache" / "responses.sqlite3").exists()


def test_cache_cli_info_and_clear(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAICompatServer() as s:
        for i in range(3):
            cached_model(s, tmp_path).generate_sync(f"q{i}")
    assert cli_main(["cache", "info", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "entries: 3" in out and "openai/m1: 3" in out
    assert cli_main(["cache", "clear", "--dir", str(tmp_path)]) == 0
    assert "deleted 3" in capsys.readouterr().out
    assert ResponseCache(tmp_path).info()["entries"] == 0


def test_cache_key_components_are_logged_at_debug(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG", logger="conflicteval.cache")
    with OpenAICompatServer() as s:
        cached_model(s, tmp_path).generate_sync("a distinctive prompt")
    assert any("a distinctive prompt" in r.getMessage() for r in caplog.records)


def test_wal_mode(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put("k", "m", {"text": "x"})
    conn = sqlite3.connect(cache.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_integer_temperature_hits_the_entry_of_the_same_float(tmp_path: Path) -> None:
    with OpenAICompatServer() as s:
        cached_model(s, tmp_path).generate_sync("q")  # the default, temperature 0.0
        assert cached_model(s, tmp_path).generate_sync("q", temperature=0).cached
        assert len(s.completions()) == 1


def test_a_cache_that_cannot_store_does_not_lose_the_paid_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def disk_full(self: ResponseCache, *args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(ResponseCache, "put", disk_full)
    with OpenAICompatServer(replies=["the answer"]) as s:
        out = cached_model(s, tmp_path).generate_sync("q")
    assert out.text == "the answer" and not out.cached
    assert "could not store" in caplog.text
