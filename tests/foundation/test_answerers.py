"""Answerers: how the model layer answers a cache miss (online, counted, exported, replayed)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from conflicteval import CacheOnly, Count, Export, Online, answer_with, get_model
from conflicteval.errors import PendingCall
from conflicteval.models.answerers import active_answerer, writes_outputs
from conflicteval.testing import OpenAICompatServer


def test_online_is_the_default_and_scopes_nest() -> None:
    assert isinstance(active_answerer(), Online) and writes_outputs()
    with answer_with(Count()) as outer:
        assert active_answerer() is outer and not writes_outputs()
        with answer_with(CacheOnly()) as inner:
            assert active_answerer() is inner and writes_outputs()
        assert active_answerer() is outer
    assert isinstance(active_answerer(), Online)


def test_cache_only_replays_hits_and_leaves_misses_pending(tmp_path: Path) -> None:
    with OpenAICompatServer() as srv:
        model = get_model("openai/m", base_url=srv.base_url, api_key="k", cache=tmp_path)
        model.generate_sync("asked before")
        with answer_with(CacheOnly()) as replay:
            assert model.generate_sync("asked before").cached
            with pytest.raises(PendingCall):
                model.generate_sync("never asked")
        assert len(srv.completions()) == 1 and replay.missing == 1


def test_count_and_export_copies_pickle_and_fold_back(tmp_path: Path) -> None:
    model = get_model("openai/m", base_url="http://127.0.0.1:9/v1", cache=tmp_path / "c")
    driver_count, driver_export = Count(), Export(str(tmp_path / "r.jsonl"))
    for prompts in (["a", "b"], ["b", "c"]):  # two "workers", one prompt in common
        count = pickle.loads(pickle.dumps(driver_count.portable()))
        export = pickle.loads(pickle.dumps(driver_export.portable()))
        assert count.models == {} and export.requests == {} and export.path == driver_export.path
        for answerer in (count, export):
            with answer_with(answerer):
                for prompt in prompts:
                    with pytest.raises(PendingCall):
                        model.generate_sync(prompt, max_tokens=10)
        driver_count.absorb(pickle.loads(pickle.dumps(count)))
        driver_export.absorb(pickle.loads(pickle.dumps(export)))
    report = driver_count.report()
    assert (report.calls, report.cached, report.max_completion_tokens) == (4, 0, 40)
    assert "at least" in report.summary()
    assert len(driver_export.requests) == 3  # one line per cache key
    assert driver_export.exported() == {"openai/m": 3}
    bodies = [r.body for r in driver_export.requests.values()]
    assert [b["messages"][0]["content"] for b in bodies] == ["a", "b", "c"]


def test_an_export_without_a_cache_is_a_problem_not_a_failure(tmp_path: Path) -> None:
    model = get_model("openai/m", base_url="http://127.0.0.1:9/v1", cache=False)
    with answer_with(Export(str(tmp_path / "r.jsonl"))) as export, pytest.raises(PendingCall):
        model.generate_sync("x")
    assert export.problem is not None and "no response cache" in export.problem
