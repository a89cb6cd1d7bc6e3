"""``--model-concurrency``: model calls in flight, apart from items in flight."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import build_parser, main
from conflicteval.cli.common import model_options, ray_model_concurrency_line
from conflicteval.testing import OpenAICompatServer

PAIR = json.dumps({"claim": "c", "document_snippet": "s", "reasoning": "r", "answer": "SUPPORTS"})


def _subparsers(parser: argparse.ArgumentParser, path: str = "") -> list[tuple[str, Any]]:
    out = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.extend(_subparsers(sub, f"{path} {name}".strip()))
    return out


def test_every_model_calling_command_takes_model_concurrency() -> None:
    commands = [
        (name, {opt for a in p._actions for opt in a.option_strings})
        for name, p in _subparsers(build_parser())
    ]
    calling = [(name, opts) for name, opts in commands if "--no-cache" in opts]
    assert len(calling) >= 8  # score, wikicontradict generate/judge, conflictbench, feverous ...
    assert [name for name, opts in calling if "--model-concurrency" not in opts] == []


def _score(tmp_path: Path, server: OpenAICompatServer, *extra: str) -> int:
    response = tmp_path / "response.txt"
    response.write_text("One fact here. Two facts here. Three facts here.", encoding="utf-8")
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": f"document {i}"}) + "\n" for i in range(4)),
        encoding="utf-8",
    )
    args = ["score", "--response", str(response), "--documents", str(docs), "--json"]
    args += ["--decomposer", "sentence", "--labeler", "llm", "--no-cache"]
    args += ["--model", "openai/test-model", "--base-url", server.base_url, *extra]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", "k")
        return main(args)


@pytest.mark.parametrize("limit", [2, 5])
def test_model_concurrency_bounds_the_calls_in_flight(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: int
) -> None:
    # each reply waits 0.5 s: long enough for the client to have sent every call it may
    # (a loaded machine sends them more slowly; with 0.1 s it sometimes had one fewer)
    with OpenAICompatServer(replies=[PAIR], latency=0.5) as server:
        assert _score(tmp_path, server, "--model-concurrency", str(limit)) == 0
        assert len(server.completions()) == 12  # 3 claims x 4 documents
        assert server.max_in_flight == limit
    assert json.loads(capsys.readouterr().out)["cs_c"] == 0.0


def test_without_the_option_the_model_keeps_its_default(tmp_path: Path) -> None:
    with OpenAICompatServer(replies=[PAIR], latency=2.0) as server:  # all 12 sent meanwhile
        assert _score(tmp_path, server) == 0
        assert server.max_in_flight == 12  # all 12 pairs at once: below the default of 16


def test_concurrency_alone_lets_as_many_model_calls_fly(tmp_path: Path) -> None:
    # one item of 5 claims x 4 documents = 20 calls: --concurrency 20 alone sends all 20 at
    # once (it was held to the model's 16, half the Python API's throughput at 32)
    response = tmp_path / "response.txt"
    response.write_text(" ".join(f"Fact {k} holds here." for k in range(5)), encoding="utf-8")
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": f"d{i}", "text": f"document {i}"}) + "\n" for i in range(4)),
        encoding="utf-8",
    )
    args = ["score", "--response", str(response), "--documents", str(docs), "--json"]
    args += ["--decomposer", "sentence", "--labeler", "llm", "--no-cache", "--concurrency", "20"]
    with (
        OpenAICompatServer(replies=[PAIR], latency=2.0) as server,
        pytest.MonkeyPatch.context() as mp,
    ):
        mp.setenv("OPENAI_API_KEY", "k")
        assert main([*args, "--model", "openai/test-model", "--base-url", server.base_url]) == 0
        assert len(server.completions()) == 20
        assert server.max_in_flight == 20
    ns = argparse.Namespace(concurrency=40, model_concurrency=None, timeout=None, max_attempts=None)
    assert model_options(ns, "openai/x")["max_concurrency"] == 40
    ns.concurrency = 8  # fewer items than the default bound: the default stays
    assert model_options(ns, "openai/x")["max_concurrency"] == 16


def test_model_concurrency_overrides_a_command_default_and_zero_is_refused() -> None:
    ns = argparse.Namespace(model_concurrency=7, timeout=None, max_attempts=None)
    assert model_options(ns, "openai/x", max_concurrency=16)["max_concurrency"] == 7
    ns.model_concurrency = None
    assert model_options(ns, "openai/x", max_concurrency=16)["max_concurrency"] == 16
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["score", "--model-concurrency", "0"])
    assert info.value.code == 2


def test_on_ray_the_limit_is_per_actor_and_the_total_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    ns = argparse.Namespace(model_concurrency=8, ray_actors=3, ray_gpus_per_actor=0.0)
    assert "8 per Ray actor per model x 3 actors = 24 in all" in ray_model_concurrency_line(ns)
    ns = argparse.Namespace(model_concurrency=None, ray_actors=None, ray_num_cpus=2)
    assert "16 per Ray actor per model x 2 actors = 32 in all" in ray_model_concurrency_line(ns)
    monkeypatch.setenv("RAY_ADDRESS", "ray://cluster:10001")
    ns = argparse.Namespace(model_concurrency=4, ray_actors=None)
    assert ray_model_concurrency_line(ns).startswith("model calls in flight: 4 per Ray actor")
