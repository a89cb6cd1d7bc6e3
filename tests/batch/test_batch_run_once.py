"""``batch run`` never submits one batch twice, and one damaged output line does not stop it."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from conflicteval.batch.files import state_path
from conflicteval.batch.openai_batch import BatchRunner, BatchState, export_lock, make_client
from conflicteval.cache import open_cache
from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.testing.server import BatchOutcome

from .test_batch_run import _cmd, _run
from .test_batch_workflows import ITEMS, reply


@pytest.fixture()
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    return path


def test_an_http_500_after_create_does_not_create_a_second_batch(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply, create_faults=[500]) as srv:
        assert _run(srv, tmp_path / "r.jsonl", _cmd(srv, items, tmp_path / "bat")) == 0
        # round 1 (decompositions) and round 2 (labels): one batch each, the first adopted
        assert [b["request_counts"]["total"] for b in srv.batches.values()] == [2, 12]
    assert "is already batch_1" in capsys.readouterr().err


def test_a_run_killed_while_creating_adopts_the_batch_the_server_made(
    tmp_path: Path, items: Path
) -> None:
    with OpenAICompatServer(reply) as srv:
        export = tmp_path / "requests.jsonl"
        cmd = [*_cmd(srv, items, tmp_path / "bat"), "--batch-export", str(export)]
        assert main(cmd) == 3
        client = make_client(srv.base_url)
        BatchRunner(client, export, open_cache(), lambda: main(cmd), poll_interval=0).submit()
        # the process died after the server created the batch, before the id was saved
        state = json.loads(state_path(export).read_text())
        assert state["jobs"][0]["status"] == "validating" and state["jobs"][0]["sha256"]
        state["jobs"][0].update(id=None, status="creating")
        state_path(export).write_text(json.dumps(state))
        again = BatchRunner(client, export, open_cache(), lambda: main(cmd), poll_interval=0)
        assert again.run() == 0
        assert [b["request_counts"]["total"] for b in srv.batches.values()] == [2, 12]
        assert BatchState.load(export).jobs[0].id == "batch_1"


def test_two_batch_runs_on_one_export_submit_once(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply, batch_outcomes=[BatchOutcome(polls=2)]) as srv:
        export = tmp_path / "requests.jsonl"
        cmd = [*_cmd(srv, items, tmp_path / "bat"), "--batch-export", str(export)]
        polling, release = threading.Event(), threading.Event()

        def sleep(_: float) -> None:  # the first run waits here, holding the export
            polling.set()
            release.wait(300)

        first = BatchRunner(
            make_client(srv.base_url), export, open_cache(), lambda: main(cmd), sleep=sleep
        )
        codes: list[int] = []
        thread = threading.Thread(target=lambda: codes.append(first.run()))
        thread.start()
        try:
            assert polling.wait(300)  # guards against a hang only
            capsys.readouterr()
            assert _run(srv, export, cmd) == 2  # the second run stops at once
            assert "another 'batch run' is working on this export" in capsys.readouterr().err
            assert len(srv.batches) == 1
        finally:
            release.set()
            thread.join(60)
        assert codes == [0]
        assert [b["request_counts"]["total"] for b in srv.batches.values()] == [2, 12]
        with export_lock(export):  # released when the run ended
            pass


def test_one_damaged_output_line_does_not_stop_batch_run(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = ['{"custom_id": "broken', "\x00 not json at all"]
    with OpenAICompatServer(reply, output_garbage=garbage) as srv:
        rc = _run(srv, tmp_path / "r.jsonl", _cmd(srv, items, tmp_path / "bat"))
        assert len(srv.batches) == 2 and srv.completions() == []
    assert rc == 0
    err = capsys.readouterr().err
    assert "2 unreadable" in err and "row 2: not JSON" in err
    assert len((tmp_path / "bat" / "scores.jsonl").read_text().splitlines()) == 2
