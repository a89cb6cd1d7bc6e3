"""A restart after a kill mid-create waits for a create the server processes late.

The test server holds the killed run's create (``CreateHold``) until the restarted run
waits: events, never sleeps racing each other.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from conflicteval.batch.files import state_path
from conflicteval.batch.openai_batch import BatchRunner, make_client
from conflicteval.cache import open_cache
from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.testing.batches import CreateHold

from .test_batch_run import _cmd
from .test_batch_workflows import ITEMS, reply


@pytest.fixture()
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    return path


def _killed_mid_create(srv: OpenAICompatServer, export: Path, cmd: list[str]) -> threading.Thread:
    """A first run that sent its create and is gone: the server holds the create."""
    assert main(cmd) == 3
    srv.create_hold = CreateHold()
    first = BatchRunner(make_client(srv.base_url), export, open_cache(), lambda: main(cmd))
    thread = threading.Thread(target=first.submit, daemon=True)
    thread.start()
    assert srv.create_hold.arrived.wait(60)
    state = json.loads(state_path(export).read_text())
    assert state["jobs"][0]["status"] == "creating" and state["jobs"][0]["id"] is None
    return thread


@pytest.mark.timeout(120)
def test_a_create_processed_after_the_restart_looked_is_adopted_not_repeated(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply) as srv:
        export = tmp_path / "requests.jsonl"
        cmd = [*_cmd(srv, items, tmp_path / "bat"), "--batch-export", str(export)]
        thread = _killed_mid_create(srv, export, cmd)
        waits: list[float] = []

        def sleep(seconds: float) -> None:  # the server processes the held create meanwhile
            waits.append(seconds)
            assert srv.create_hold is not None
            srv.create_hold.release.set()
            thread.join(60)

        again = BatchRunner(
            make_client(srv.base_url), export, open_cache(), lambda: main(cmd), sleep=sleep
        )
        try:
            assert again.run() == 0
        finally:
            srv.create_hold.release.set()
            thread.join(60)
        # one batch per round: the late create was adopted, not created again
        assert [b["request_counts"]["total"] for b in srv.batches.values()] == [2, 12]
    assert waits
    assert "looking again" in capsys.readouterr().err


@pytest.mark.timeout(120)
def test_past_the_grace_period_the_create_goes_ahead_with_a_plain_warning(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply) as srv:
        export = tmp_path / "requests.jsonl"
        cmd = [*_cmd(srv, items, tmp_path / "bat"), "--batch-export", str(export)]
        thread = _killed_mid_create(srv, export, cmd)
        waits: list[float] = []
        again = BatchRunner(
            make_client(srv.base_url),
            export,
            open_cache(),
            lambda: main(cmd),
            sleep=waits.append,
            create_grace=30.0,
        )
        try:
            assert again.run() == 0
        finally:
            assert srv.create_hold is not None
            srv.create_hold.release.set()
            thread.join(60)
        assert sum(waits[:2]) <= 30.0 and len(srv.batches) == 3  # the late one made a second
    err = capsys.readouterr().err
    assert "TWO batches" in err and "cancel" in err and "appeared within 30s" in err
