"""``conflicteval batch run`` through the real openai SDK against the test server's Batch API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from conflicteval.batch.files import results_dir, state_path
from conflicteval.batch.openai_batch import BatchRunner, BatchState, make_client
from conflicteval.cache import open_cache
from conflicteval.cli import main
from conflicteval.errors import ConflictEvalError
from conflicteval.testing import Fault, OpenAICompatServer
from conflicteval.testing.server import BatchOutcome

from .test_batch_workflows import ITEMS, reply


@pytest.fixture()
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    return path


def _cmd(srv: OpenAICompatServer, items: Path, out: Path) -> list[str]:
    return [
        "score",
        "--input",
        str(items),
        "--out",
        str(out),
        "--model",
        "openai/test-model",
        "--base-url",
        srv.base_url,
    ]


def _run(srv: OpenAICompatServer, export: Path, cmd: list[str]) -> int:
    return main(
        [
            "batch",
            "run",
            "--base-url",
            srv.base_url,
            "--poll-interval",
            "0.001",
            "--export",
            str(export),
            "--",
            *cmd,
        ]
    )


def _scores(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]


def test_batch_run_survives_expiry_and_failed_lines_and_equals_online(
    tmp_path: Path,
    items: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    failed_once: set[str] = set()

    def flaky(custom_id: str, body: dict[str, Any]) -> Fault | None:
        prompt = str(body["messages"][-1]["content"])
        if "DOC-C" in prompt and custom_id not in failed_once:
            failed_once.add(custom_id)
            return Fault.status_code(500)
        return None

    outcomes = [BatchOutcome("expired", polls=2, answered=1), BatchOutcome(polls=3)]
    with OpenAICompatServer(reply, batch_outcomes=outcomes, line_faults=flaky) as srv:
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "online-cache"))
        assert main(_cmd(srv, items, tmp_path / "online")) == 0
        online_calls = len(srv.completions())

        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "batch-cache"))
        export = tmp_path / "b" / "requests.jsonl"
        capsys.readouterr()
        assert _run(srv, export, _cmd(srv, items, tmp_path / "bat")) == 0
        err = capsys.readouterr().err
        assert len(srv.completions()) == online_calls  # the batch route made no online call
        # round 1: 2 decompositions, 1 answered before the batch expired; round 2: the
        # other one + r1's 6 labels (2 against DOC-C fail once); round 3: r2's 6 labels + those
        # 2 (2 fail); round 4: the last 2. Only what is missing is ever sent again.
        sizes = [b["request_counts"]["total"] for b in srv.batches.values()]
        assert sizes == [2, 7, 8, 2]
        assert [b["status"] for b in srv.batches.values()] == ["expired", *["completed"] * 3]
        assert all(b["completion_window"] == "24h" for b in srv.batches.values())
        assert all(b["endpoint"] == "/v1/chat/completions" for b in srv.batches.values())
        assert "expired: importing its partial output" in err
        assert "2 failed: HTTP 500: server: error 500" in err
        assert "in_progress, 0/7 done" in err  # the progress line
    assert _scores(tmp_path / "bat") == _scores(tmp_path / "online")
    state = BatchState.load(export)
    assert [j.imported for j in state.jobs] == [True] * 4
    assert sorted(p.name for p in results_dir(export).iterdir())[:2] == [
        "batch_1.errors.jsonl",
        "batch_1.output.jsonl",
    ]
    assert main(["batch", "status", "--export", str(export)]) == 0
    status = capsys.readouterr().out
    assert "answered in the cache: 14 of 14; missing: 0" in status
    assert "batch batch_1 (round 1, requests.jsonl): expired" in status


def test_a_killed_batch_run_resumes_polling_instead_of_paying_twice(
    tmp_path: Path, items: Path
) -> None:
    with OpenAICompatServer(reply, batch_outcomes=[BatchOutcome(polls=2)]) as srv:
        export = tmp_path / "requests.jsonl"
        cmd = [*_cmd(srv, items, tmp_path / "bat"), "--batch-export", str(export)]
        assert main(cmd) == 3
        client = make_client(srv.base_url)
        first = BatchRunner(client, export, open_cache(), lambda: main(cmd), poll_interval=0)
        first.submit()  # ... and the process is killed while the batch runs
        assert len(srv.batches) == 1 and state_path(export).exists()
        again = BatchRunner(client, export, open_cache(), lambda: main(cmd), poll_interval=0)
        assert again.run() == 0
        assert len(srv.batches) == 2  # round 1 polled again, not resubmitted; round 2 labels
        assert [b["request_counts"]["total"] for b in srv.batches.values()] == [2, 12]
        assert srv.completions() == []


def test_a_failed_batch_stops_the_run_with_its_reason(
    tmp_path: Path, items: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = BatchOutcome("failed", message="line 1: bad url")
    with OpenAICompatServer(reply, batch_outcomes=[outcome]) as srv:
        rc = _run(srv, tmp_path / "r.jsonl", _cmd(srv, items, tmp_path / "bat"))
    assert rc == 1
    err = capsys.readouterr().err
    assert "batch_1 failed: invalid_request: line 1: bad url" in err
    assert "no usable reply; stopping" in err


def test_cancelled_batch_keeps_its_partial_output(tmp_path: Path, items: Path) -> None:
    with OpenAICompatServer(reply, batch_outcomes=[BatchOutcome(polls=5, answered=1)]) as srv:
        export = tmp_path / "requests.jsonl"
        cmd = [*_cmd(srv, items, tmp_path / "bat"), "--batch-export", str(export)]
        assert main(cmd) == 3
        client = make_client(srv.base_url)
        runner = BatchRunner(client, export, open_cache(), lambda: main(cmd), poll_interval=0)
        (job,) = runner.submit()
        assert client.batches.cancel(job.id).status == "cancelling"
        runner.poll(job)
        assert job.status == "cancelled" and (job.completed, job.failed) == (1, 1)
        assert runner.collect(job) == 1
        first_round = [json.loads(x)["custom_id"] for x in export.read_text().splitlines()]
        assert main(cmd) == 3
        again = [json.loads(x)["custom_id"] for x in export.read_text().splitlines()]
        # the cancelled decomposition again, and the answered one's 6 labels
        assert len(again) == 7 and len(set(first_round) & set(again)) == 1


def test_sdk_sees_files_and_batches(tmp_path: Path) -> None:
    with OpenAICompatServer(lambda body: "fine") as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="k", max_retries=0)
        line = {
            "custom_id": "x1",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        }
        path = tmp_path / "in.jsonl"
        path.write_text(json.dumps(line) + "\n")
        with path.open("rb") as fh:
            uploaded = client.files.create(file=fh, purpose="batch")
        assert uploaded.bytes == path.stat().st_size and uploaded.filename == "in.jsonl"
        assert client.files.content(uploaded.id).content == path.read_bytes()
        batch = client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        assert batch.status == "validating"
        assert client.batches.retrieve(batch.id).status == "in_progress"
        done = client.batches.retrieve(batch.id)
        assert done.status == "completed" and done.request_counts.completed == 1
        assert done.output_file_id is not None
        out = json.loads(client.files.content(done.output_file_id).content)
        assert out["custom_id"] == "x1" and out["response"]["status_code"] == 200
        assert out["response"]["body"]["choices"][0]["message"]["content"] == "fine"
        assert [b.id for b in client.batches.list().data] == [batch.id]
        with pytest.raises(openai.NotFoundError):
            client.batches.retrieve("batch_404")
        assert srv.completions() == []


def test_batch_api_needs_a_key_or_a_server() -> None:
    with pytest.raises(ConflictEvalError, match="OPENAI_API_KEY"):
        make_client(None)


def test_batch_run_needs_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "run", "--base-url", "http://127.0.0.1:9/v1", "--"]) == 2
    assert "needs a command" in capsys.readouterr().err


def test_batch_run_finds_or_adds_the_export_file() -> None:
    from conflicteval.cli.batch import _command_argv

    argv, path = _command_argv(["--", "conflicteval", "score", "--batch-export", "a.jsonl"], None)
    assert argv == ["score", "--batch-export", "a.jsonl"] and path == Path("a.jsonl")
    argv, path = _command_argv(["score", "--batch-export=b.jsonl"], "x.jsonl")
    assert path == Path("b.jsonl")
    argv, path = _command_argv(["--", "score", "--out", "o"], None)
    assert argv == ["score", "--out", "o", "--batch-export", "batch/requests.jsonl"]
    assert path == Path("batch/requests.jsonl")


def test_status_before_any_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "status", "--export", str(tmp_path / "r.jsonl")]) == 0
    assert "nothing exported yet" in capsys.readouterr().out
