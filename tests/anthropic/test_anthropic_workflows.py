"""Every model-calling workflow runs with a Claude model against the rule-enforcing server.

The workflows and the reply script are those of the dry-run test (one table of every
workflow); each runs once through the OpenAI-compatible test server and once with the
same model names as ``anthropic/`` specs through the Messages API test server. No
request may be refused, and both runs end alike: the same exit status and the same
number of model calls made.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.models.ledger import track_calls
from conflicteval.testing import OpenAICompatServer
from conflicteval.testing.anthropic_server import AnthropicServer


def _table() -> ModuleType:
    path = Path(__file__).parents[1] / "batch" / "test_dry_run_equals_real.py"
    spec = importlib.util.spec_from_file_location("_workflow_table", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLE = _table()


def _claude(argv: list[str]) -> list[str]:
    return [a.replace("openai/", "anthropic/") for a in argv]


def _run(name: str, tmp: Path, data: Path, server: Any, claude: bool) -> tuple[int, int]:
    """(exit status, model calls made) of one workflow against ``server``.

    Calls made are those sent plus those the cache served during the run: identical calls
    in flight at once are each sent, so how many are sent depends on timing; how many are
    made does not.
    """
    tmp.mkdir()
    with server as srv:
        argv = TABLE.WORKFLOWS[name](tmp, data, srv.base_url)
        before = len(srv.messages() if claude else srv.completions())
        with track_calls() as ledger:
            rc = main(_claude(argv) if claude else argv)
        assert len(srv.messages() if claude else srv.completions()) > before
        sent = sum(m.online.calls + m.cached.calls for m in ledger.models.values())
        if claude:
            assert srv.refused() == [], [(r.status, r.body) for r in srv.refused()][:2]
    return rc, sent


@pytest.mark.parametrize("name", list(TABLE.WORKFLOWS))
def test_each_workflow_runs_with_claude(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    data = request.getfixturevalue("shared_data") if name.startswith(("wiki", "fev")) else tmp_path
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache-openai"))
    openai_run = _run(name, tmp_path / "openai", data, OpenAICompatServer(TABLE.reply), False)
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache-claude"))
    # the table's own setups that run a first command (judge: generate) use Claude too
    model = TABLE._model
    monkeypatch.setattr(TABLE, "_model", lambda url, spec="openai/m": _claude(model(url, spec)))
    claude_run = _run(name, tmp_path / "claude", data, AnthropicServer(TABLE.reply), True)
    assert claude_run == openai_run and claude_run[1] > 0
