"""Every workflow runs with a reasoning model against a server that refuses what the API does.

The test server enforces OpenAI's rules for reasoning models (HTTP 400 for
``max_tokens``, a temperature other than 1, ``top_p``), so a workflow that sent the
protocol's decoding unchanged would fail here. Each workflow of the dry-run suite runs
once with every model a reasoning model, and no request may be refused.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer


def _workflows() -> Any:
    """The dry-run suite's workflows and reply script (one table of command lines)."""
    path = Path(__file__).with_name("test_dry_run_equals_real.py")
    spec = importlib.util.spec_from_file_location("_dry_run_workflows", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SUITE = _workflows()
WORKFLOWS, reply = _SUITE.WORKFLOWS, _SUITE.reply


class ReasoningServer(OpenAICompatServer):
    """Every model name is served by ``gpt-5-mini`` (the rules and usage of a reasoning model)."""

    def rules_model(self, body: dict[str, Any]) -> str:
        return "gpt-5-mini"


RUN = list(WORKFLOWS)


@pytest.fixture()
def every_model_reasoning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    families = tmp_path / "families.json"
    families.write_text(json.dumps({"*": "reasoning"}), encoding="utf-8")
    monkeypatch.setenv("CONFLICTEVAL_MODEL_FAMILIES", str(families))
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("name", RUN)
def test_every_workflow_runs_with_a_reasoning_model_and_no_request_is_refused(
    name: str,
    tmp_path: Path,
    every_model_reasoning: None,
    caplog: pytest.LogCaptureFixture,
    request: pytest.FixtureRequest,
) -> None:
    data = request.getfixturevalue("shared_data") if name.startswith(("wiki", "fev")) else tmp_path
    with ReasoningServer(reply) as srv, caplog.at_level(logging.WARNING, "conflicteval"):
        argv = WORKFLOWS[name](tmp_path, data, srv.base_url)
        before = len(srv.completions())
        main(argv)
        sent = srv.completions()[before:]
    assert sent, "the workflow sent no request"
    refused = [r for r in sent if r.status != 200]
    assert not refused, refused[0].body
    for r in sent:
        assert r.body is not None
        assert "max_tokens" not in r.body and "temperature" not in r.body
        assert r.body["max_completion_tokens"] >= 25_000
    said = [rec.getMessage() for rec in caplog.records if "other decoding" in rec.getMessage()]
    assert said and all("temperature: protocol 0.0, sent none" in line for line in said)


def test_the_same_server_refuses_the_protocol_decoding_of_a_chat_family_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check above can fail: sent as a chat model, the first request is refused, with
    one line naming the option to use, and nothing is retried."""
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    with ReasoningServer(reply) as srv:
        argv = WORKFLOWS["score-llm"](tmp_path, tmp_path, srv.base_url)
        status = main([*argv, "--model-family", "chat"])
        sent = srv.completions()
    assert status == 2
    assert sent and all(r.status == 400 for r in sent)
    assert len(sent) <= 16  # stopped at the first refusals, none retried
    err = capsys.readouterr().err
    assert "--model-family reasoning" in err
    assert "'max_tokens' is not supported with this model" in err
