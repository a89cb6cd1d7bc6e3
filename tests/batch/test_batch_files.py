"""Batch export mode, request files, result import (both shapes), failures and limits."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.export import batch_export
from conflicteval.batch.files import (
    import_results,
    latest_round,
    manifest_path,
    read_manifest,
    read_requests,
)
from conflicteval.cache import open_cache
from conflicteval.cli import main
from conflicteval.errors import ConflictEvalError, PendingCall
from conflicteval.models import get_model
from conflicteval.runs import read_checkpoint, run_batch_sync
from conflicteval.testing import Fault, OpenAICompatServer


def _echo(body: dict[str, Any]) -> str:
    return "re: " + str(body["messages"][-1]["content"])


def _model(server: OpenAICompatServer, **options: Any) -> Any:
    return get_model("openai/test-model", base_url=server.base_url, api_key="k", **options)


def _work(model: Any) -> Any:
    async def work(item: dict[str, Any]) -> dict[str, Any]:
        out = await model.generate(item["prompt"], max_tokens=40)
        return {"text": out.text, "tokens": out.usage.completion_tokens}

    return work


def _items(n: int) -> list[dict[str, Any]]:
    return [{"id": f"q{i}", "prompt": f"question number {i}"} for i in range(n)]


def test_export_records_the_online_body_and_leaves_items_pending(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        model = _model(srv)
        settings = {"temperature": 0.3, "max_tokens": 77, "seed": 9, "top_k": 5, "stop": ["\n"]}
        schema = {"type": "object", "properties": {"a": {"type": "string"}}}
        req = tmp_path / "requests.jsonl"
        with batch_export(req) as exp:
            with pytest.raises(PendingCall):
                model.generate_sync("hello", response_schema=schema, **settings)
            with pytest.raises(PendingCall):  # the same call again: one request only
                model.generate_sync("hello", response_schema=schema, **settings)
        assert srv.completions() == []  # export mode calls nothing
        lines = list(read_requests(req))
        assert len(lines) == 1 and exp.result is not None and exp.result.requests == 1
        line = lines[0]
        assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
        assert line["custom_id"] == model.cache_key("hello", response_schema=schema, **settings)
        # the same call online: the server logs exactly the exported body
        online = _model(srv, cache=False)
        online.generate_sync("hello", response_schema=schema, **settings)
        assert srv.completions()[0].body == line["body"]
        assert line["body"]["top_k"] == 5  # an extra_body parameter, merged as the SDK does
    entries = read_manifest(manifest_path(req))
    assert [(e.custom_id, e.model, e.file, e.round) for e in entries] == [
        (line["custom_id"], "openai/test-model", "requests.jsonl", 1)
    ]


def test_pending_items_stay_out_of_the_checkpoint(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        model = _model(srv)
        model.generate_sync("question number 0", max_tokens=40)  # one answer already cached
        ckpt = tmp_path / "ckpt.jsonl"
        with batch_export(tmp_path / "req.jsonl"):
            result = run_batch_sync(_work(model), _items(3), checkpoint=ckpt, progress=False)
        assert result.counts == {
            "ok": 1,
            "parse_error": 0,
            "model_error": 0,
            "pending": 2,
            "total": 3,
        }
        assert "2 pending" in result.summary()
        assert set(read_checkpoint(ckpt)) == {"q0"}
        assert [r.status for r in result.records] == ["ok", "pending", "pending"]
        assert len(srv.completions()) == 1


def test_round_trip_of_10000_requests_in_both_shapes(tmp_path: Path) -> None:
    n = 10_000
    with OpenAICompatServer(_echo, log_bodies=False) as srv:
        model = _model(srv)
        req = tmp_path / "requests.jsonl"
        with batch_export(req, max_requests=4000) as exp:
            first = run_batch_sync(_work(model), _items(n), progress=False, concurrency=64)
        assert first.counts["pending"] == n
        assert exp.result is not None
        files = [f.path for f in exp.result.files]
        assert [p.name for p in files] == [
            "requests.001.jsonl",
            "requests.002.jsonl",
            "requests.003.jsonl",
        ]
        assert [f.requests for f in exp.result.files] == [4000, 4000, 2000]
        assert not req.exists()
        assert latest_round(req) == (1, files)
        results = []
        for k, p in enumerate(files):
            shape = "vllm" if k == 1 else "openai"  # older vLLM's bare completions, too
            out = tmp_path / f"results{k}.jsonl"
            out.write_text(srv.answer_batch_file(p.read_text(), shape=shape))
            results.append(out)
        report = import_results(results, open_cache(), [req])
        assert (report.lines, report.imported, report.n_failed, report.unknown) == (n, n, 0, [])
        with batch_export(req) as again:
            second = run_batch_sync(_work(model), _items(n), progress=False, concurrency=64)
        assert again.result is not None and again.result.requests == 0
        assert not any(p.exists() for p in files)  # last round's request files are gone
        assert second.counts["ok"] == n
        assert srv.completions() == []
    online = [{"text": f"re: question number {i}", "tokens": 4} for i in range(n)]
    assert [r.result for r in second.records] == online


def test_imported_reply_is_the_entry_the_online_path_stores(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        batch_model = _model(srv, cache=tmp_path / "batch-cache")
        req = tmp_path / "req.jsonl"
        with batch_export(req):
            with pytest.raises(PendingCall):
                batch_model.generate_sync("q", max_tokens=40)
        out = tmp_path / "out.jsonl"
        out.write_text(srv.answer_batch_file(req.read_text()))
        import_results([out], batch_model.cache, [req])
        online_model = _model(srv, cache=tmp_path / "online-cache")
        online_model.generate_sync("q", max_tokens=40)
        key = batch_model.cache_key("q", max_tokens=40)
        assert batch_model.cache.get(key) == online_model.cache.get(key)
        rows = [
            online_model.cache._connect().execute("SELECT model, value FROM responses").fetchall(),
            batch_model.cache._connect().execute("SELECT model, value FROM responses").fetchall(),
        ]
        assert rows[0] == rows[1]
        replayed = batch_model.generate_sync("q", max_tokens=40)
        assert (
            replayed.cached and replayed.text == "re: q" and replayed.usage.completion_tokens == 2
        )


def _export_three(srv: OpenAICompatServer, tmp_path: Path) -> tuple[Any, Path, list[str]]:
    model = _model(srv)
    req = tmp_path / "req.jsonl"
    with batch_export(req):
        run_batch_sync(_work(model), _items(3), progress=False)
    ids = [line["custom_id"] for line in read_requests(req)]
    return model, req, ids


def test_failed_lines_are_counted_and_asked_again(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        model, req, ids = _export_three(srv, tmp_path)
        srv.line_faults = {ids[0]: Fault.status_code(400), ids[1]: Fault.drop()}
        out = tmp_path / "out.jsonl"
        out.write_text(srv.answer_batch_file(req.read_text()))
        with out.open("a") as fh:  # a reply for a request nobody made
            fh.write(json.dumps({"custom_id": "f" * 64, "response": None, "error": None}) + "\n")
        rc = main(["batch", "import", str(out), "--export", str(req)])
        assert rc == 0
        report = import_results([out], open_cache(), [req])  # the same file again
        assert (report.imported, report.already_cached) == (0, 1)  # kept, not overwritten
        assert (report.n_failed, report.unknown) == (2, ["f" * 64])
        assert report.failed == {"HTTP 400: server: error 400": 1, "server_error: drop": 1}
        assert "1 custom_id(s) match no exported request" in report.summary()
        with batch_export(req) as exp:
            result = run_batch_sync(_work(model), _items(3), progress=False)
        assert exp.result is not None and exp.result.requests == 2
        assert {line["custom_id"] for line in read_requests(req)} == {ids[0], ids[1]}
        assert result.counts["ok"] == 1 and result.counts["pending"] == 2


def test_empty_and_malformed_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAICompatServer(lambda body: " ") as srv:
        _, req, _ = _export_three(srv, tmp_path)
        out = tmp_path / "out.jsonl"
        out.write_text(srv.answer_batch_file(req.read_text()))
        report = import_results([out], open_cache(), [req])
        assert report.imported == 0 and report.failed == {
            "empty completion (finish_reason=stop)": 3
        }
        bad = tmp_path / "bad.jsonl"
        bad.write_text(out.read_text().splitlines()[0] + "\n{not json\n")
        report = import_results([bad], open_cache(), [req])  # a bad line is skipped, counted
        assert len(report.bad_lines) == 1 and "bad.jsonl, row 2: not JSON" in report.bad_lines[0]
        assert report.n_failed == 1 and "1 unreadable" in report.summary()
        bad.write_text(json.dumps({"response": {}}) + "\n")
        report = import_results([bad], open_cache(), [req])
        assert "row 1, field 'custom_id'" in report.bad_lines[0]
        assert main(["batch", "import", str(bad), "--export", str(req)]) == 1  # nothing usable
        assert "bad.jsonl, row 1" in capsys.readouterr().out
        # no --export: the manifest beside the results is found
        assert main(["batch", "import", str(out)]) == 1  # nothing usable in it
        assert "3 failed" in capsys.readouterr().out
        lonely = tmp_path / "elsewhere" / "r.jsonl"
        lonely.parent.mkdir()
        lonely.write_text(out.read_text())
        assert main(["batch", "import", str(lonely)]) == 2
        assert "--export" in capsys.readouterr().err


def test_files_are_split_by_model_and_bytes(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        a, b = _model(srv), get_model("openai/other", base_url=srv.base_url)

        async def work(item: dict[str, Any]) -> str:
            out = await (a if item["n"] % 2 else b).generate(item["prompt"])
            return out.text

        items = [{"id": f"i{n}", "n": n, "prompt": f"p{n} " + "x" * 200} for n in range(10)]
        req = tmp_path / "req.jsonl"
        with batch_export(req, max_bytes=1500) as exp:
            run_batch_sync(work, items, progress=False)
    assert exp.result is not None
    files = exp.result.files
    assert sum(f.requests for f in files) == 10 and all(f.bytes <= 1500 for f in files)
    for f in files:
        models = {line["body"]["model"] for line in read_requests(f.path)}
        assert models == {f.model}
    assert {f.model for f in files} == {"test-model", "other"}


def test_export_needs_a_cache_and_an_openai_provider(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        model = _model(srv, cache=False)
        with pytest.raises(ConflictEvalError, match="no response cache"):
            with batch_export(tmp_path / "r.jsonl"):
                run_batch_sync(_work(model), _items(1), progress=False)
    scripted = get_model("scripted", replies=["x"], cache=tmp_path / "c")
    with pytest.raises(ConflictEvalError, match="cannot write batch requests"):
        with batch_export(tmp_path / "r.jsonl"):
            asyncio.run(scripted.generate("q"))


def test_cut_off_replies_are_stored_and_reported(tmp_path: Path) -> None:
    with OpenAICompatServer(_echo) as srv:
        model, req, ids = _export_three(srv, tmp_path)
        srv.line_faults = {ids[0]: Fault.truncate()}
        out = tmp_path / "out.jsonl"
        out.write_text(srv.answer_batch_file(req.read_text()))
        report = import_results([out], open_cache(), [req])
        assert (report.imported, report.cut_off) == (3, 1)
        assert "1 replies were cut off by max_tokens" in report.summary()
        with batch_export(req) as exp:
            result = run_batch_sync(_work(model), _items(3), progress=False)
        assert exp.result is not None and exp.result.requests == 0  # the run can finish
        assert result.counts["ok"] == 3 and result.usage.truncated == 1
