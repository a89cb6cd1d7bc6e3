"""Executors without Ray: the choice of executor, the runner's contract with an executor, and
what a Ray worker needs from the library: models, caches and NLI labelers that pickle by
configuration, and a cache many processes can write at once."""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import multiprocessing
import pickle
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from conflicteval import ParseFailure, get_model, run_batch_sync
from conflicteval.cache import ResponseCache, open_cache
from conflicteval.cli.common import executor_from_args, run_options
from conflicteval.cli.options import add_run_options
from conflicteval.errors import ModelError
from conflicteval.runs import Record, finish_record, read_checkpoint, run_item
from conflicteval.runs.executor import LocalExecutor, resolve_executor
from conflicteval.testing import OpenAICompatServer


async def _work(item: dict[str, Any]) -> Any:
    n = item["n"]
    if n % 5 == 1:
        raise ParseFailure(f"no label in reply {n}", raw=f"raw {n}")
    if n % 5 == 2:
        raise ModelError(f"gave up on {n}")
    if n % 5 == 3:
        raise KeyError(n)
    if n % 5 == 4:
        return {"not json": object()}
    return (n, {"square": n * n})


ITEMS = [{"id": f"i{n}", "n": n} for n in range(20)]


class Reversed:
    """An executor of its own: items one by one, last first, each through run_item."""

    name = "reversed"

    def __init__(self, lose: str | None = None) -> None:
        self.lose = lose

    async def run(
        self,
        fn: Callable[[Any], Awaitable[Any]],
        todo: Sequence[tuple[str, Any]],
        *,
        concurrency: int,
        emit: Callable[[Record, str], None],
    ) -> None:
        for item_id, item in reversed(todo):
            if item_id != self.lose:
                emit(*finish_record(await run_item(fn, item_id, item)))


def _dump(records: list[Record]) -> list[dict[str, Any]]:
    return [r.model_dump() for r in records]


def test_an_executor_object_gives_the_local_records_and_is_named(tmp_path: Path) -> None:
    local = run_batch_sync(_work, ITEMS, checkpoint=tmp_path / "local.jsonl")
    other = run_batch_sync(_work, ITEMS, checkpoint=tmp_path / "other.jsonl", executor=Reversed())
    assert _dump(other.records) == _dump(local.records)
    assert local.counts == {"ok": 4, "parse_error": 4, "model_error": 12, "total": 20}
    assert local.executor == "local" and "executor local" in local.summary()
    assert other.executor == "reversed" and "executor reversed" in other.summary()
    assert "executor reversed" in other.report() and "executor" not in local.report()
    by_id = {r.id: r for r in other.records}
    assert by_id["i0"].result == [0, {"square": 0}]  # as a resumed run reads it back
    assert (by_id["i1"].status, by_id["i1"].error, by_id["i1"].raw) == (
        "parse_error",
        "no label in reply 1",
        "raw 1",
    )
    assert by_id["i3"].error == "KeyError: 3"
    assert by_id["i4"].error is not None
    assert by_id["i4"].error.startswith("result is not JSON-serialisable")
    # the checkpoint holds the same records as the result
    assert _dump(list(read_checkpoint(tmp_path / "other.jsonl").values())) == _dump(
        list(reversed(other.records))
    )


def test_an_item_the_executor_loses_is_a_counted_failure(tmp_path: Path) -> None:
    result = run_batch_sync(
        _work, ITEMS, checkpoint=tmp_path / "ck.jsonl", executor=Reversed(lose="i5")
    )
    lost = {r.id: r for r in result.records}["i5"]
    assert lost.status == "model_error"
    assert lost.error == "the reversed executor returned no result for this item"
    assert read_checkpoint(tmp_path / "ck.jsonl")["i5"].status == "model_error"
    again = run_batch_sync(
        _work, ITEMS, checkpoint=tmp_path / "ck.jsonl", retry_failed=True, executor="local"
    )
    assert {r.id: r for r in again.records}["i5"].status == "ok"


def test_resolve_executor() -> None:
    assert isinstance(resolve_executor(None), LocalExecutor)
    assert isinstance(resolve_executor("local"), LocalExecutor)
    mine = Reversed()
    assert resolve_executor(mine) is mine
    with pytest.raises(ValueError, match="unknown executor 'dask'"):
        resolve_executor("dask")
    with pytest.raises(ValueError, match="needs a 'name'"):
        resolve_executor(object())
    with pytest.raises(ValueError, match="unknown executor"):
        run_batch_sync(_work, ITEMS, executor="spark")


def test_executor_options_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_run_options(parser)
    assert executor_from_args(parser.parse_args([])) is None
    assert run_options(parser.parse_args([]))["options"].executor is None
    assert executor_from_args(parser.parse_args(["--executor", "local"])) is None
    if importlib.util.find_spec("ray") is not None:
        ex = executor_from_args(
            parser.parse_args(
                ["--executor", "ray", "--ray-actors", "3", "--ray-gpus-per-actor", "0.5"]
            )
        )
        assert (ex.name, ex.actors, ex.gpus_per_actor, ex.num_cpus) == ("ray", 3, 0.5, None)
    for bad in (["--ray-actors", "0"], ["--executor", "spark"], ["--ray-gpus-per-actor", "-1"]):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)
    assert "must be at least 1" in capsys.readouterr().err


def test_every_batch_command_has_the_executor_option() -> None:
    from conflicteval.cli import build_parser

    parser = build_parser()
    commands = [
        ["score"],
        ["wikicontradict", "generate", "--data", "d", "--model", "m", "--out", "o"],
        ["wikicontradict", "judge", "--run", "r", "--model", "lexical"],
        ["conflictbench", "build", "--out", "o", "--source", "macnoise"],
        ["conflictbench", "detect", "--items", "i", "--out", "o"],
        ["reports", "--items", "i", "--out", "o", "--model", "m"],
        ["regenerate", "--questions", "q", "--documents", "d", "--out", "o", "--model", "m"],
        ["feverous", "verify", "--claims", "c", "--labeler", "lexical"],
    ]
    for argv in commands:
        args = parser.parse_args([*argv, "--executor", "ray", "--ray-actors", "2"])
        assert (args.executor, args.ray_actors) == ("ray", 2), argv


# -- pickling by configuration -------------------------------------------------------


def test_a_model_pickles_without_its_clients_or_an_environment_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-123")
    with OpenAICompatServer(replies=["first", "second"]) as server:
        model = get_model("openai/m", base_url=server.base_url, cache=tmp_path / "c")
        assert model.generate_sync("hello").text == "first"  # the provider has a client now
        data = pickle.dumps(model)
        assert b"sk-from-the-environment-123" not in data
        monkeypatch.setenv("OPENAI_API_KEY", "sk-in-the-worker-456")
        copy = pickle.loads(data)
        assert copy.name == model.name and copy.provider.base_url == server.base_url
        assert copy.cache is model.cache  # the same directory: the process's one cache object
        assert copy.generate_sync("hello").cached  # the reply the original stored
        assert copy.generate_sync("again").text == "second"
        assert server.requests[-1].headers["authorization"] == "Bearer sk-in-the-worker-456"

        explicit = get_model("openai/m", base_url=server.base_url, api_key="sk-given-789")
        assert pickle.loads(pickle.dumps(explicit)).provider._api_key == "sk-given-789"


def test_a_scripted_model_pickles() -> None:
    model = get_model("scripted", replies={"q": "a"})
    copy = pickle.loads(pickle.dumps(model))
    assert copy.generate_sync("q").text == "a"
    assert len(copy.provider.requests) == 1 and model.provider.requests == []


def _writer(directory: str, worker: int, n: int) -> None:
    cache = pickle.loads(pickle.dumps(open_cache(directory)))  # as a Ray worker gets it
    for k in range(n):
        cache.put(f"{worker}-{k}", "m", {"text": f"reply {worker} {k}"})


def test_many_processes_write_one_cache_at_once(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "shared")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path / "shared"), w, 150)) for w in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 6
    assert cache.info()["entries"] == 6 * 150
    assert cache.get("5-149") == {"text": "reply 5 149"}


def test_a_busy_cache_is_retried_and_an_unreadable_one_never_fails_a_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from conflicteval import cache as cache_module

    calls = {"n": 0}

    def flaky() -> str:
        calls["n"] += 1
        if calls["n"] < 3:
            raise sqlite3.OperationalError("database is locked")
        return "done"

    monkeypatch.setattr(cache_module.time, "sleep", lambda s: None)
    assert cache_module._retry_busy(flaky) == "done" and calls["n"] == 3
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        cache_module._retry_busy(
            lambda: (_ for _ in ()).throw(sqlite3.OperationalError("no such table"))
        )

    model = get_model("scripted", replies=["fresh"], cache=tmp_path / "c")

    def broken(key: str) -> None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(model.cache, "get", broken)
    assert model.generate_sync("q").text == "fresh"


HAVE_NLI = all(importlib.util.find_spec(m) is not None for m in ("transformers", "torch"))


@pytest.mark.skipif(not HAVE_NLI, reason="transformers and torch are not installed (extra: nli)")
def test_an_nli_labeler_pickles_as_its_directory(tiny_nli_dir: Path) -> None:
    from conflicteval.conflictscore import NLILabeler

    path = tiny_nli_dir
    labeler = NLILabeler(path, batch_size=2, device="auto")
    assert labeler.device == "cpu"  # no GPU here
    data = pickle.dumps(labeler)
    assert len(data) < 2000  # options and a path, no weights
    copy = pickle.loads(data)
    claims, docs = ["the canal opened in 1847 ."], ["the canal opened in 1851 .", "cats purr ."]
    first = asyncio.run(labeler.label(claims, docs))
    assert asyncio.run(copy.label(claims, docs)).model_dump() == first.model_dump()
    loaded = NLILabeler(labeler.model, labeler.tokenizer)  # no directory: the model is pickled
    assert asyncio.run(pickle.loads(pickle.dumps(loaded)).label(claims, docs)) == first


def test_ray_without_the_extra_names_it_and_bad_options_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from conflicteval.errors import MissingDependency
    from conflicteval.runs.ray import RayExecutor

    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    with pytest.raises(MissingDependency, match=r"pip install '\.\[ray\]'"):
        run_batch_sync(_work, ITEMS, checkpoint=tmp_path / "ck.jsonl", executor="ray")
    assert not (tmp_path / "ck.jsonl").exists() or read_checkpoint(tmp_path / "ck.jsonl") == {}
    for bad in ({"actors": 0}, {"batch_size": 0}, {"gpus_per_actor": -1}, {"max_task_retries": -1}):
        with pytest.raises(ValueError):
            RayExecutor(**bad)  # type: ignore[arg-type]
