"""Retries and time-outs are counted and said: in the closing lines, and once while they happen.

Against the project's test server. The only time-out is a reply the server holds for ten
minutes against a five-second bound, so the counts do not depend on the machine's load.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from conflicteval import get_model, run_batch_sync
from conflicteval.errors import ModelError
from conflicteval.models.ledger import CallLedger
from conflicteval.testing import Fault, OpenAICompatServer


def _model(srv: OpenAICompatServer, **options: Any) -> Any:
    opts: dict[str, Any] = {
        "base_url": srv.base_url,
        "api_key": "k",
        "cache": False,
        "backoff_initial": 0.01,
        "backoff_max": 0.02,
        "timeout": 5.0,
    }
    opts.update(options)
    return get_model("openai/gpt-4o-mini", **opts)


@pytest.mark.timeout(120)
def test_retried_attempts_and_time_outs_are_in_the_closing_lines() -> None:
    faults = [Fault.slow(600), Fault.status_code(500), None]
    with OpenAICompatServer(["fine"], faults=faults) as srv:
        model = _model(srv)
        with CallLedger() as ledger:
            assert model.generate_sync("q").text == "fine"
    (line, *_) = ledger.cost_lines()
    assert line.startswith("openai/gpt-4o-mini: 1 online")
    assert "2 retried attempts, 1 timed out" in line


@pytest.mark.timeout(120)
def test_time_outs_while_calls_wait_say_once_what_to_change(
    caplog: pytest.LogCaptureFixture,
) -> None:
    faults = [Fault.slow(600), None, Fault.slow(600)]
    with OpenAICompatServer(["fine"], faults=faults) as srv:
        model = _model(srv, max_concurrency=1)

        async def three() -> list[Any]:
            return await asyncio.gather(
                *(model.generate(f"q{k}") for k in range(3)), return_exceptions=True
            )

        with caplog.at_level(logging.WARNING, logger="conflicteval"):
            outs = asyncio.run(three())
    assert all(not isinstance(o, BaseException) for o in outs)
    said = [r.getMessage() for r in caplog.records if "timing out" in r.getMessage()]
    assert len(said) == 1  # two time-outs while calls waited: said once
    assert "--model-concurrency" in said[0] and "--timeout" in said[0]


def test_a_rerun_over_failed_items_says_how_to_retry_them(tmp_path: Path) -> None:
    async def work(item: dict[str, Any]) -> Any:
        if item["id"] == "b":
            raise ModelError("openai/m: HTTP 500 (after 6 attempts)")
        return item["id"]

    items = [{"id": "a"}, {"id": "b"}]
    checkpoint = tmp_path / "ck.jsonl"
    first = run_batch_sync(work, items, checkpoint=checkpoint, progress=False)
    assert "--retry-failed" not in first.report()  # nothing came from a checkpoint yet
    again = run_batch_sync(work, items, checkpoint=checkpoint, progress=False)
    assert again.resumed == 2
    assert "1 failed item from the checkpoint not run again" in again.report()
    assert "--retry-failed" in again.report()
    retried = run_batch_sync(work, items, checkpoint=checkpoint, progress=False, retry_failed=True)
    assert "--retry-failed" not in retried.report()  # run again: nothing kept as it was


@pytest.mark.timeout(120)
def test_demo_with_a_model_says_its_retries(capsys: pytest.CaptureFixture[str]) -> None:
    from conflicteval.cli import main

    answered: list[int] = []

    def first_call_fails(n: int, body: object) -> Fault | None:
        # the first chat call, whatever the request number (the run first asks /v1/models)
        answered.append(n)
        return Fault.status_code(503) if len(answered) == 1 else None

    with OpenAICompatServer(["Claims:\n1. A claim."], faults=first_call_fails) as srv:
        main(["demo", "--model", "openai/m", "--base-url", srv.base_url, "--no-cache"])
    assert "openai/m: 1 retried attempt(s), 0 timed out" in capsys.readouterr().out
