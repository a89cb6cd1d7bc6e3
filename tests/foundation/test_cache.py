"""The SQLite response cache: hits, misses, keys and what is (not) stored."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from conflicteval import ModelError, get_model
from conflicteval.cache import ResponseCache
from conflicteval.cli import main as cli_main
from conflicteval.errors import ConflictEvalError
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
    assert cli_main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "entries: 3" in out and "openai/m1: 3" in out
    assert cli_main(["cache", "clear", "--cache-dir", str(tmp_path)]) == 0
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


# -- a damaged, read-only or misplaced cache ---------------------------------------------


def _fill(cache_dir: Path, n: int = 300) -> None:
    cache = ResponseCache(cache_dir)
    for i in range(n):
        cache.put(f"k{i}", "openai/m1", {"text": "x" * 200})
    cache.close()


def _damage(cache_dir: Path, how: str) -> None:
    path = cache_dir / "responses.sqlite3"
    if how == "random":
        path.write_bytes(os.urandom(8192))
    elif how == "truncated":
        _fill(cache_dir)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    else:  # the header is fine, the pages behind it are not: found only when read
        _fill(cache_dir)
        data = bytearray(path.read_bytes())
        data[4096 * 2 :] = os.urandom(len(data) - 4096 * 2)
        path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["random", "truncated", "pages"])
def test_a_damaged_cache_is_moved_aside_once_and_every_item_still_succeeds(
    tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    from conflicteval import run_batch_sync

    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    _damage(cache_dir, how)
    with OpenAICompatServer(replies=lambda body: "a " + body["messages"][-1]["content"]) as s:
        model = cached_model(s, cache_dir)

        async def work(item: str) -> str:
            return (await model.generate(item)).text

        items = [f"k{i}" for i in range(20)]
        result = run_batch_sync(work, items, key=str, checkpoint=tmp_path / "ck.jsonl")
        assert result.counts["ok"] == 20, result.failed[:1]
        again = run_batch_sync(work, items, key=str)
        assert again.usage.cached_calls == 20  # the fresh cache works
    warnings = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert len(warnings) == 1 and str(cache_dir / "responses.sqlite3") in warnings[0]
    aside = [
        p for p in cache_dir.glob("responses.sqlite3.corrupt-*") if not p.name.endswith("-wal")
    ]
    aside = [p for p in aside if not p.name.endswith("-shm")]
    assert len(aside) == 1 and aside[0].name in warnings[0]


def test_a_damaged_cache_that_cannot_be_replaced_means_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _damage(tmp_path, "random")

    def refuse(*args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with OpenAICompatServer(replies=["fine"]) as s:
        model = cached_model(s, tmp_path)
        assert model.generate_sync("q").text == "fine"
        assert not model.generate_sync("q").cached
    assert model.cache is not None and model.cache.mode == "off"
    assert "continuing without a cache" in caplog.text and str(tmp_path) in caplog.text


def _make_read_only(directory: Path) -> Callable[[], None]:
    """Make ``directory`` really unwritable (chmod; as root, the immutable attribute)."""
    if os.geteuid() != 0:
        directory.chmod(0o555)
        return lambda: directory.chmod(0o755)
    if shutil.which("chattr") is None:
        pytest.skip("running as root without chattr: cannot make a directory read-only")
    done = subprocess.run(["chattr", "+i", str(directory)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("cannot make a directory read-only here")
    return lambda: subprocess.run(["chattr", "-i", str(directory)], check=True)


def test_a_read_only_cache_is_read_without_writing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache_dir = tmp_path / "ro"
    with OpenAICompatServer(replies=lambda body: "a " + body["messages"][-1]["content"]) as s:
        plain = get_model("openai/m1", base_url=s.base_url, api_key="k", cache=False)
        key = plain.cache_key("known")
        writer = ResponseCache(cache_dir)
        writer.put(key, "openai/m1", {"text": "a known", "finish_reason": "stop"})
        writer.close()  # the only connection: the WAL files go with it
        assert not (cache_dir / "responses.sqlite3-wal").exists()
        undo = _make_read_only(cache_dir)
        try:
            model = cached_model(s, cache_dir)
            assert model.cache is not None and model.cache.mode == "read-only"
            hit = model.generate_sync("known")
            assert hit.cached and hit.text == "a known"
            for prompt in ("new one", "new two"):
                out = model.generate_sync(prompt)
                assert out.text == "a " + prompt and not out.cached
            assert model.cache.info()["entries"] == 1
            with pytest.raises(ConflictEvalError, match="read-only"):
                model.cache.clear()
        finally:
            undo()
    notes = [r.getMessage() for r in caplog.records if "cannot be written" in r.getMessage()]
    assert len(notes) == 1 and str(cache_dir) in notes[0]


def test_a_cache_path_that_is_a_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "not-a-dir"
    path.write_text("hello")
    with pytest.raises(ConflictEvalError, match="not-a-dir"):
        get_model("openai/m", base_url="http://127.0.0.1:9/v1", api_key="k", cache=path)
    with pytest.raises(ConflictEvalError, match="not-a-dir"):
        ResponseCache(path / "below")
    assert cli_main(["cache", "info", "--cache-dir", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not-a-dir" in err and "Traceback" not in err


def test_a_full_cache_skips_the_store_with_one_clear_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = ResponseCache(tmp_path)
    conn = cache._connect()
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 2}")  # SQLite's own "database or disk is full"
    for i in range(50):
        cache.put(f"k{i}", "m", {"text": "x" * 2000})  # never raises
    notes = [r.getMessage() for r in caplog.records if "no space left" in r.getMessage()]
    assert len(notes) == 1 and str(tmp_path) in notes[0] and "safe" in notes[0]
    assert cache.mode == "read-write" and cache.get("k0") is not None


@pytest.mark.parametrize("poison", [-3, "12", [1], 1e300, True])
def test_a_stored_reasoning_count_follows_the_token_count_rule(
    tmp_path: Path, poison: object
) -> None:
    """A damaged ``reasoning_tokens`` is a miss (replayed, it would fail the item or count
    tokens no reply had) and is never written."""
    cache = ResponseCache(tmp_path)
    good = {"text": "t", "finish_reason": "stop", "prompt_tokens": 1, "completion_tokens": 2}
    cache.put("k", "m", {**good, "reasoning_tokens": 2})
    assert cache.get("k") == {**good, "reasoning_tokens": 2}
    with sqlite3.connect(cache.path) as conn:
        damaged = json.dumps({**good, "reasoning_tokens": poison})
        conn.execute("UPDATE responses SET value = ? WHERE key = ?", (damaged, "k"))
    assert cache.get("k") is None
    cache.put("k2", "m", {**good, "reasoning_tokens": poison})
    assert not cache.contains("k2")
