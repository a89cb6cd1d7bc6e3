"""Claude through Message Batches: ``batch run`` and ``batch import`` against the test server.

Done when a score run completes through Message Batches with no online call, the
same CS-C / CS-R as online (through the Messages API and through the OpenAI path),
priced at batch rates; partial batches (expired, canceled, errored) are imported and
the rest asked again; a batch whose creation was interrupted is found, not paid twice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.anthropic_batch import BatchRunner, LazyBatchClient
from conflicteval.batch.files import import_results, manifest_path, read_requests
from conflicteval.batch.state import BatchJob, BatchState
from conflicteval.cache import open_cache
from conflicteval.cli import main
from conflicteval.errors import ConflictEvalError
from conflicteval.testing import OpenAICompatServer
from conflicteval.testing.anthropic_server import AnthropicServer, MessageBatchOutcome

MODEL = "anthropic/claude-sonnet-4-5"
DOCS = [
    {"id": "a", "text": "The canal opened in 1847 and is 38 km long."},
    {"id": "b", "text": "The canal opened in 1851; it is 38 km long."},
]
ITEMS = [
    {"id": "r1", "response": "The canal opened in 1847. It is 38 km long.", "documents": DOCS},
    {"id": "r2", "response": "Boats pass 14 locks. It opened in 1851.", "documents": DOCS},
]


def reply(body: dict[str, Any]) -> str:
    """Claims, then labels that depend on the document: some claims conflict, some do not."""
    prompt = str(body["messages"][-1]["content"])
    if "response_format" not in body:  # the decomposer
        return "Claims:\n1. The canal opened in 1847.\n2. It is 38 km long."
    claim, _, doc = prompt.partition("\nDocument to evaluate against\n")
    conflict = "opened in 1847" in claim and "1851" in doc
    answer = "CONTRADICTS" if conflict else "SUPPORTS"
    return json.dumps({"claim": "c", "document_snippet": "", "reasoning": "", "answer": answer})


@pytest.fixture()
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def _score(items: Path, out: Path, model: str, *extra: str) -> list[str]:
    return ["score", "--input", str(items), "--out", str(out), "--labeler", "llm",
            "--model", model, *extra]  # fmt: skip


def _batch_run(srv: AnthropicServer, export: Path, cmd: list[str]) -> int:
    return main(["batch", "run", "--base-url", srv.base_url, "--poll-interval", "0.001",
                 "--export", str(export), "--", *cmd])  # fmt: skip


def _scores(out: Path) -> tuple[Any, ...]:
    summary = json.loads((out / "summary.json").read_text())
    rows = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    return summary["mean_cs_c"], summary["mean_cs_r"], [(r["cs_c"], r["cs_r"]) for r in rows]


def test_a_score_run_through_message_batches_equals_the_online_runs(
    items: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply) as oai:
        assert main(_score(items, tmp_path / "openai", "openai/claude-sonnet-4-5",
                           "--base-url", oai.base_url)) == 0  # fmt: skip
    with AnthropicServer(reply) as srv:
        assert main(_score(items, tmp_path / "online", MODEL, "--base-url", srv.base_url)) == 0
        online_calls = len(srv.messages())
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache-batch"))
        capsys.readouterr()
        rc = _batch_run(
            srv, tmp_path / "exp" / "requests.jsonl", _score(items, tmp_path / "b", MODEL)
        )
        err = capsys.readouterr().err
        assert rc == 0
        assert len(srv.messages()) == online_calls  # no online call by the batch run
        assert len(srv.batches) >= 2 and not srv.refused()  # one batch per stage
    assert _scores(tmp_path / "b") == _scores(tmp_path / "online") == _scores(tmp_path / "openai")
    assert _scores(tmp_path / "b")[0] > 0  # some claims conflict: the comparison means something
    online_cost = json.loads((tmp_path / "online" / "summary.json").read_text())["cost"]
    assert main(["batch", "status", "--export", str(tmp_path / "exp" / "requests.jsonl")]) == 0
    status = capsys.readouterr().out
    assert "batch msgbatch_000001 (round 1, requests.jsonl): ended" in status
    assert online_cost["usd"] > 0 and online_cost["unpriced"] == []
    # priced at Claude Sonnet 4.5's list rates: $3 in, $15 out per million tokens
    (claude,) = [m for m in online_cost["per_model"] if m["model"] == MODEL]
    sent = claude["sent"]
    expected = (3.0 * sent["prompt_tokens"] + 15.0 * sent["completion_tokens"]) / 1e6
    assert claude["usd"] == pytest.approx(expected)
    assert re.search(r"anthropic/claude-sonnet-4-5: \d+ by batch .* at batch rates", err)
    sent = [b for b in srv.batches.values()]
    assert all(set(r) == {"custom_id", "params"} for b in sent for r in b["requests"])


def test_expired_canceled_and_errored_requests_are_asked_again(items: Path, tmp_path: Path) -> None:
    outcomes = [MessageBatchOutcome(answered=1), MessageBatchOutcome(answered=2, cancel=True)]
    with AnthropicServer(reply, batch_outcomes=outcomes) as srv:
        rc = _batch_run(srv, tmp_path / "exp" / "r.jsonl", _score(items, tmp_path / "b", MODEL))
        kinds = [r["result"]["type"] for b in srv.batches.values() for r in b["results"]]
        assert rc == 0 and not srv.messages()
    assert kinds.count("expired") == 1 and kinds.count("canceled") >= 1
    assert _scores(tmp_path / "b")[2]  # every item scored in the end


def test_batch_import_reads_message_batches_results_and_vouches(
    items: Path, tmp_path: Path
) -> None:
    export = tmp_path / "exp" / "r.jsonl"
    assert main([*_score(items, tmp_path / "b", MODEL), "--batch-export", str(export)]) == 3
    ids = [line["custom_id"] for line in read_requests(export)]
    message = {"type": "message", "model": "claude-sonnet-4-5-20250929",
               "content": [{"type": "text", "text": "x"}], "stop_reason": "end_turn",
               "usage": {"input_tokens": 3, "output_tokens": 1}}  # fmt: skip
    other = {**message, "model": "claude-opus-4-1"}
    rows = [
        {"custom_id": ids[0], "result": {"type": "succeeded", "message": message}},
        {"custom_id": ids[0], "result": {"type": "succeeded", "message": message}},
        {"custom_id": ids[1], "result": {"type": "succeeded", "message": other}},
        {"custom_id": "f" * 64, "result": {"type": "succeeded", "message": message}},
        {"custom_id": ids[1], "result": {"type": "errored", "error": {"type": "error",
         "error": {"type": "overloaded_error", "message": "busy"}}}},
    ]  # fmt: skip
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = import_results([results], open_cache(tmp_path / "cache"), [manifest_path(export)])
    assert report.imported == 1 and report.duplicates == 1 and len(report.unknown) == 1
    assert report.mismatched == {"claude-opus-4-1 -> claude-sonnet-4-5": 1}
    assert report.failed == {"errored: overloaded_error: busy": 1}
    hit = open_cache(tmp_path / "cache").get(ids[0])
    assert hit == {"text": "x", "finish_reason": "stop", "prompt_tokens": 3, "completion_tokens": 1}
    assert main(["batch", "import", str(results), "--export", str(export)]) == 1  # mismatch said


def _interrupted(tmp_path: Path, items: Path, srv: AnthropicServer) -> tuple[Path, BatchRunner]:
    """An export whose batch was asked for, then the run was killed before it saw the id."""
    export = tmp_path / "exp" / "r.jsonl"
    assert main([*_score(items, tmp_path / "b", MODEL), "--batch-export", str(export)]) == 3
    requests = list(read_requests(export))
    state = BatchState(export=str(export))
    job = BatchJob(file=export.name, round=1, model="claude-sonnet-4-5", requests=len(requests))
    job.status, job.api, job.intent_at = "creating", "anthropic", "2000-01-01T00:00:00Z"
    state.jobs.append(job)
    state.save(export)
    srv._create_message_batch(requests)  # the server created it; the client never heard
    runner = BatchRunner(LazyBatchClient(srv.base_url), export, open_cache(tmp_path / "cache"),
                         lambda: 0, poll_interval=0.001)  # fmt: skip
    return export, runner


def test_an_interrupted_creation_adopts_the_batch_instead_of_paying_twice(
    items: Path, tmp_path: Path
) -> None:
    with AnthropicServer(reply) as srv:
        export, runner = _interrupted(tmp_path, items, srv)
        assert runner.run() == 0
        creations = [r for r in srv.requests if r.method == "POST" and r.path.endswith("/batches")]
        assert creations == [] and len(srv.batches) == 1
        assert BatchState.load(export).jobs[0].id == "msgbatch_000001"


def test_two_candidate_batches_stop_the_run_instead_of_guessing(
    items: Path, tmp_path: Path
) -> None:
    with AnthropicServer(reply) as srv:
        export, runner = _interrupted(tmp_path, items, srv)
        srv._create_message_batch(list(read_requests(export)))
        with pytest.raises(ConflictEvalError, match="more than once"):
            runner.run()
        assert len(srv.batches) == 2


def test_polling_and_downloading_survive_overloaded_answers(items: Path, tmp_path: Path) -> None:
    with AnthropicServer(reply, batch_faults=[529, 503, 429]) as srv:
        rc = _batch_run(srv, tmp_path / "exp" / "r.jsonl", _score(items, tmp_path / "b", MODEL))
        faulted = [r.status for r in srv.requests if r.fault == "status"]
        assert rc == 0 and not srv.messages()
    assert faulted == [529, 503, 429]
    assert _scores(tmp_path / "b")[2]
