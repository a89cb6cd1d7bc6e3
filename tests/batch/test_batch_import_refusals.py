"""``batch import`` refuses lines that would otherwise be cached on a guess (counted, with why)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cache import open_cache
from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

from .test_batch_files import _echo, _export_three


def _drop_status(row: dict[str, Any]) -> None:
    del row["response"]["status_code"]


def _model_not_text(row: dict[str, Any]) -> None:
    row["response"]["body"]["model"] = ["test-model", "other"]


def _no_usage(row: dict[str, Any]) -> None:
    del row["response"]["body"]["usage"]


def _no_prompt_tokens(row: dict[str, Any]) -> None:
    del row["response"]["body"]["usage"]["prompt_tokens"]


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_drop_status, "no status_code"),
        (_model_not_text, "model is not a string"),
        (_no_usage, "no usage"),
        (_no_prompt_tokens, "no usage.prompt_tokens"),
    ],
)
def test_a_line_that_leaves_something_to_guess_is_a_counted_refused_line(
    tmp_path: Path, damage: Any, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(_echo) as srv:
        _, req, ids = _export_three(srv, tmp_path)
        rows = [json.loads(x) for x in srv.answer_batch_file(req.read_text()).splitlines()]
    damage(rows[0])
    out = tmp_path / "out.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["batch", "import", str(out), "--export", str(req)]) == 0
    summary = capsys.readouterr().out
    assert "2 replies cached, 1 failed" in summary and reason in summary
    assert not open_cache().contains(ids[0])
    assert all(open_cache().contains(i) for i in ids[1:])
