"""``run_rounds``: batch rounds as a library function, through the real openai SDK."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval import cli
from conflicteval.batch.files import import_results
from conflicteval.batch.openai_batch import make_client
from conflicteval.batch.rounds import run_rounds
from conflicteval.cache import open_cache
from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler
from conflicteval.exitcodes import EXIT_PENDING
from conflicteval.models import get_model
from conflicteval.testing import OpenAICompatServer

from .test_batch_workflows import ITEMS, reply


def _scorer(srv: OpenAICompatServer, cache_dir: Path) -> ConflictScorer:
    model = get_model("openai/test-model", base_url=srv.base_url, cache=open_cache(cache_dir))
    return ConflictScorer(LLMDecomposer(model), LLMLabeler(model))


def _results(batch: Any) -> list[tuple[str, str, Any]]:
    """Each item's outcome; usage differs by design (the batch route replays from the cache)."""
    return [
        (r.id, r.status, {k: v for k, v in r.result.items() if k != "usage"}) for r in batch.records
    ]


def test_run_rounds_from_python_ends_as_the_online_run(tmp_path: Path) -> None:
    with OpenAICompatServer(reply) as srv:
        online = _scorer(srv, tmp_path / "online-cache").score_many(ITEMS)
        online_calls = len(srv.completions())
        scorer = _scorer(srv, tmp_path / "batch-cache")
        rounds = run_rounds(
            lambda: scorer.score_many(ITEMS, checkpoint=tmp_path / "ck.jsonl"),
            tmp_path / "batch" / "requests.jsonl",
            client=make_client(srv.base_url),
            cache=open_cache(tmp_path / "batch-cache"),
            poll_interval=0.001,
        )
        assert len(srv.completions()) == online_calls  # the rounds made no online call
        # decompositions, then labels, then a run answered wholly from the cache
        assert [b["request_counts"]["total"] for b in srv.batches.values()] == [2, 12]
    assert (rounds.status, rounds.runs, rounds.pending) == (0, 3, False)
    assert _results(rounds.value) == _results(online)


def test_run_rounds_with_the_answers_from_elsewhere_and_an_async_workflow(
    tmp_path: Path,
) -> None:
    export = tmp_path / "requests.jsonl"
    cache = open_cache(tmp_path / "cache")
    answered: list[list[str]] = []
    with OpenAICompatServer(reply) as srv:
        scorer = _scorer(srv, tmp_path / "cache")

        def answer(files: list[Path]) -> None:  # as vllm run-batch would, then an import
            answered.append([f.name for f in files])
            results = tmp_path / f"results-{len(answered)}.jsonl"
            results.write_text("".join(srv.answer_batch_file(f.read_text()) for f in files))
            import_results([results], cache, [export])

        rounds = run_rounds(lambda: scorer.ascore_many(ITEMS), export, answer=answer, cache=cache)
        assert srv.completions() == [] and srv.batches == {}
    assert len(answered) == 2 and rounds.status == 0 and rounds.runs == 3
    assert rounds.value.counts == {"ok": 2, "parse_error": 0, "model_error": 0, "total": 2}


def test_run_rounds_stops_after_max_rounds_with_the_provisional_result(tmp_path: Path) -> None:
    with OpenAICompatServer(reply) as srv:
        scorer = _scorer(srv, tmp_path / "cache")
        rounds = run_rounds(
            lambda: scorer.score_many(ITEMS),
            tmp_path / "requests.jsonl",
            client=make_client(srv.base_url),
            cache=open_cache(tmp_path / "cache"),
            poll_interval=0.001,
            max_rounds=1,
        )
    assert rounds.status == EXIT_PENDING and rounds.pending and rounds.runs == 2
    assert rounds.value.counts["pending"] == 2  # labels not answered yet


def test_a_workflow_that_calls_nothing_runs_once(tmp_path: Path) -> None:
    def never(files: list[Path]) -> None:
        raise AssertionError("nothing to answer")

    rounds = run_rounds(lambda: 42, tmp_path / "r.jsonl", answer=never, cache=None)
    assert (rounds.value, rounds.status, rounds.runs) == (42, 0, 1)


def test_batch_run_parses_its_command_once_and_runs_it_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    parsed: list[int] = []
    from conflicteval.cli import app

    build = app.build_parser

    def counting() -> Any:
        parsed.append(1)
        return build()

    monkeypatch.setattr(app, "build_parser", counting)
    with OpenAICompatServer(reply) as srv:
        rc = cli.main(
            [
                "batch", "run", "--base-url", srv.base_url, "--poll-interval", "0.001",
                "--export", str(tmp_path / "b" / "requests.jsonl"), "--",
                "score", "--input", str(items), "--out", str(tmp_path / "out"),
                "--model", "openai/test-model", "--base-url", srv.base_url,
            ]
        )  # fmt: skip
        assert len(srv.batches) == 2 and srv.completions() == []
    assert rc == 0
    assert len(parsed) == 2  # batch run's own line, and the command once (not once a round)
    assert len((tmp_path / "out" / "scores.jsonl").read_text().splitlines()) == 2


def test_batch_run_with_a_mistyped_command_option_says_so_in_the_commands_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["batch", "run", "--base-url", "http://x", "--", "score", "--inptu", "x"])
    assert exit_.value.code == 2
    assert "--input" in capsys.readouterr().err
