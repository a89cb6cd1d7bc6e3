"""Batch rounds stop, with one line naming the error and the way round it, when stuck."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.progress import RoundFailures, failure_digest, stalled_line
from conflicteval.testing import Fault, OpenAICompatServer

from .test_batch_run import _cmd, _run
from .test_batch_workflows import ITEMS, reply


@pytest.fixture()
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    return path


def _refuses_schema(custom_id: str, body: dict[str, Any]) -> Fault | None:
    """llama.cpp's answer to a JSON-schema response_format: HTTP 500 in the result file."""
    return Fault.status_code(500) if "response_format" in body else None


@pytest.mark.timeout(120)
def test_a_server_refusing_the_schema_stops_the_rounds_naming_plain_json(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply, line_faults=_refuses_schema) as srv:
        rc = _run(srv, tmp_path / "r.jsonl", _cmd(srv, items, tmp_path / "bat"))
        assert len(srv.batches) == 2  # decompositions, then the labels once: not again
    assert rc == 1
    said = capsys.readouterr().err.strip().splitlines()
    last = [line for line in said if not line.startswith("took ")][-1]  # before the time
    assert "HTTP 500" in last and "--plain-json" in last and "12 failed" in last


def test_the_same_requests_failing_the_same_way_twice_is_no_progress() -> None:
    def round_of(pairs: list[tuple[str, str]]) -> RoundFailures:
        failures = RoundFailures()
        for cid, reason in pairs:
            failures.add(1, failure_digest(cid, reason), {reason: 1})
        return failures

    first = round_of([("a", "HTTP 500: x"), ("b", "HTTP 500: x")])
    assert round_of([("b", "HTTP 500: x"), ("a", "HTTP 500: x")]).same_as(first)
    assert not round_of([("a", "HTTP 500: x"), ("c", "HTTP 500: x")]).same_as(first)
    assert not round_of([("a", "HTTP 500: x"), ("b", "HTTP 429: y")]).same_as(first)
    assert not RoundFailures().same_as(RoundFailures())  # nothing failed: not stuck
    line = stalled_line(first, repeated=True, schema=True)
    assert "no progress" in line and "HTTP 500: x" in line and "--plain-json" in line
    assert "--plain-json" not in stalled_line(first, repeated=True, schema=False)
    assert len(line.splitlines()) == 1


@pytest.mark.timeout(120)
def test_batch_import_of_the_same_refusals_twice_names_the_way_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.cli import main

    from .test_batch_files import _export_three

    with OpenAICompatServer(reply) as srv:
        _, req, _ids = _export_three(srv, tmp_path)
    rows = [json.loads(x) for x in req.read_text().splitlines()]
    for row in rows:  # the request shape the server refuses
        row["body"]["response_format"] = {"type": "json_schema", "json_schema": {"name": "x"}}
    req.write_text("".join(json.dumps(r) + "\n" for r in rows))
    refused = {"status_code": 500, "request_id": "r", "body": {"error": {"message": "bad"}}}
    out = tmp_path / "out.jsonl"
    out.write_text(
        "".join(json.dumps({"custom_id": r["custom_id"], "response": refused}) + "\n" for r in rows)
    )
    main(["batch", "import", str(out), "--export", str(req)])
    assert "--plain-json" not in capsys.readouterr().out  # once may be chance
    main(["batch", "import", str(out), "--export", str(req)])
    text = capsys.readouterr().out
    assert "no progress" in text and "HTTP 500" in text and "--plain-json" in text
