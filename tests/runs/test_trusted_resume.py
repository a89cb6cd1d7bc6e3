"""A resumed run never reuses a result made from other inputs, by another file's identity, from
no sources, or from a dead endpoint; every numeric option is checked (issue 24: 1, 2, 5, 13, 14).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from conflicteval import get_model, run_batch, run_batch_sync
from conflicteval.cli import main
from conflicteval.errors import BatchAborted, ConflictEvalError, UsageError
from conflicteval.runs import meta_path, read_checkpoint
from conflicteval.testing import Fault, OpenAICompatServer


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


async def _echo(item: dict[str, str]) -> str:
    return item["text"].upper()


def _items(*texts: str) -> list[dict[str, str]]:
    return [{"id": f"i{k}", "text": t} for k, t in enumerate(texts)]


def _inputs(item: dict[str, str]) -> str:
    return item["text"]


IDENTITY = {"task": "echo"}


# ------------------------------------------------------------------ 1. inputs in the identity


def test_a_changed_item_is_computed_again_and_only_that_item(tmp_path: Path) -> None:
    ck = tmp_path / "ck.jsonl"
    first = run_batch_sync(
        _echo, _items("a", "b", "c"), checkpoint=ck, identity=IDENTITY, inputs=_inputs
    )
    assert [r.result for r in first.records] == ["A", "B", "C"] and first.changed == 0
    seen: list[str] = []

    async def spy(item: dict[str, str]) -> str:
        seen.append(item["id"])
        return await _echo(item)

    again = run_batch_sync(
        spy, _items("a", "B2", "c"), checkpoint=ck, identity=IDENTITY, inputs=_inputs
    )
    assert seen == ["i1"] and again.changed == 1 and again.resumed == 2
    assert [r.result for r in again.records] == ["A", "B2", "C"]
    assert "1 recomputed because their inputs changed" in again.summary()
    assert "1 recomputed because their inputs changed" in again.report()
    # the new record wins on the next resume: nothing is computed again
    seen.clear()
    third = run_batch_sync(
        spy, _items("a", "B2", "c"), checkpoint=ck, identity=IDENTITY, inputs=_inputs
    )
    assert seen == [] and third.changed == 0 and read_checkpoint(ck)["i1"].result == "B2"


def test_records_without_input_fingerprints_are_refused_unless_adopted(tmp_path: Path) -> None:
    ck = tmp_path / "ck.jsonl"
    # an earlier version: identity recorded, records without fingerprints
    run_batch_sync(_echo, _items("a", "b"), checkpoint=ck, identity=IDENTITY)
    with pytest.raises(ConflictEvalError, match=r"do not record the inputs.*--restart"):
        run_batch_sync(_echo, _items("a", "b"), checkpoint=ck, identity=IDENTITY, inputs=_inputs)
    adopted = run_batch_sync(
        _echo, _items("a", "b"), checkpoint=ck, identity=IDENTITY, inputs=_inputs, adopt=True
    )
    assert adopted.resumed == 2 and adopted.changed == 0
    # stamped: the next resume needs no adoption, and a change is seen
    later = run_batch_sync(
        _echo, _items("a", "x"), checkpoint=ck, identity=IDENTITY, inputs=_inputs
    )
    assert later.changed == 1 and [r.result for r in later.records] == ["A", "X"]


def _score_rows(doc_text: str = "The canal opened in 1851.") -> list[dict[str, Any]]:
    return [
        {
            "id": f"q{k}",
            "response": "The canal opened in 1847. It is 38 kilometres long.",
            "documents": [
                {"id": "d1", "text": "The canal opened in 1847 and is 38 kilometres long."},
                {"id": "d2", "text": doc_text if k == 1 else "The canal opened in 1851."},
            ],
        }
        for k in range(3)
    ]


def test_score_input_with_an_edited_document_rescores_that_response_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inp, out = tmp_path / "items.jsonl", tmp_path / "out"
    _jsonl(inp, _score_rows())
    assert main(["score", "--input", str(inp), "--out", str(out)]) == 0
    before = read_checkpoint(out / "checkpoint.jsonl")
    capsys.readouterr()
    _jsonl(inp, _score_rows("A canal was dug somewhere else."))
    assert main(["score", "--input", str(inp), "--out", str(out), "--quiet"]) == 0
    report = " ".join(capsys.readouterr().out.split())  # a line over 100 columns wraps
    assert "2 resumed from the checkpoint; 1 recomputed because their inputs changed" in report
    after = read_checkpoint(out / "checkpoint.jsonl")
    assert after["q0"] == before["q0"] and after["q2"] == before["q2"]
    assert after["q1"].inputs != before["q1"].inputs
    assert after["q1"].result["labels"] != before["q1"].result["labels"]


# ------------------------------------------------------------------ 2. no sources, no score


@pytest.mark.parametrize(
    "rows, message",
    [
        ([], "items.jsonl: no items"),
        (
            [{"id": "a", "response": "It opened in 1847.", "documents": []}],
            "row 1, field 'documents'",
        ),
    ],
)
def test_score_input_without_sources_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list[Any], message: str
) -> None:
    inp = _jsonl(tmp_path / "items.jsonl", rows)
    assert main(["score", "--input", str(inp), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.parametrize("text", ["", "[]\n"])
def test_score_with_an_empty_documents_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text(text, encoding="utf-8")
    resp = tmp_path / "r.txt"
    resp.write_text("The canal opened in 1847.", encoding="utf-8")
    assert main(["score", "--response", str(resp), "--documents", str(docs)]) == 2
    captured = capsys.readouterr()
    assert "CS-C" not in captured.out
    assert "docs.jsonl: no documents" in captured.err


def test_the_scorer_refuses_to_score_against_no_documents() -> None:
    from conflicteval.conflictscore import ConflictScorer

    scorer = ConflictScorer()
    with pytest.raises(UsageError, match="no documents"):
        scorer.score("The canal opened in 1847.", [])
    with pytest.raises(UsageError, match=r"item 'b'.*no documents"):
        scorer.score_many(
            [
                {"id": "a", "response": "x.", "documents": ["The canal opened in 1847."]},
                {"id": "b", "response": "x.", "documents": []},
            ]
        )


def test_detect_and_verify_refuse_files_without_items(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert (
        main(["conflictbench", "detect", "--items", str(empty), "--out", str(tmp_path / "d")]) == 2
    )
    assert "empty.jsonl: no items" in capsys.readouterr().err
    array = tmp_path / "claims.json"
    array.write_text("[]", encoding="utf-8")
    assert main(["feverous", "verify", "--claims", str(array), "--labeler", "lexical"]) == 2
    assert "claims.json: no claims" in capsys.readouterr().err


# ------------------------------------------------------------------ 5. identity through aliases


def test_a_symlinked_checkpoint_finds_its_identity(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    run_batch_sync(_echo, _items("a"), checkpoint=real, identity={"base_url": "http://one"})
    assert meta_path(link) == meta_path(real)
    with pytest.raises(ConflictEvalError, match="another configuration"):
        run_batch_sync(_echo, _items("a"), checkpoint=link, identity={"base_url": "http://two"})
    assert not (tmp_path / "link.jsonl.meta.json").exists()


def test_a_hard_linked_checkpoint_finds_its_identity(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    run_batch_sync(_echo, _items("a"), checkpoint=real, identity={"base_url": "http://one"})
    alias = tmp_path / "alias.jsonl"
    os.link(real, alias)
    assert meta_path(alias) == meta_path(real)
    with pytest.raises(ConflictEvalError, match="another configuration"):
        run_batch_sync(_echo, _items("a"), checkpoint=alias, identity={"base_url": "http://two"})
    same = run_batch_sync(_echo, _items("a"), checkpoint=alias, identity={"base_url": "http://one"})
    assert same.resumed == 1


def test_a_checkpoint_without_its_identity_record_is_refused_unless_adopted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ck = tmp_path / "ck.jsonl"
    run_batch_sync(_echo, _items("a"), checkpoint=ck, identity={"base_url": "http://one"})
    meta_path(ck).unlink()
    with pytest.raises(ConflictEvalError, match=r"ck.jsonl.meta.json is missing.*--restart"):
        run_batch_sync(_echo, _items("a"), checkpoint=ck, identity={"base_url": "http://two"})
    taken = run_batch_sync(
        _echo, _items("a"), checkpoint=ck, identity={"base_url": "http://two"}, adopt=True
    )
    assert taken.resumed == 1 and meta_path(ck).exists()
    # on the command line: refused, then --adopt-checkpoint or --restart
    inp = _jsonl(tmp_path / "items.jsonl", _score_rows())
    out = tmp_path / "out"
    assert main(["score", "--input", str(inp), "--out", str(out)]) == 0
    meta_path(out / "checkpoint.jsonl").unlink()
    capsys.readouterr()
    assert main(["score", "--input", str(inp), "--out", str(out)]) == 2
    assert "--adopt-checkpoint" in capsys.readouterr().err
    assert main(["score", "--input", str(inp), "--out", str(out), "--adopt-checkpoint"]) == 0
    assert main(["score", "--input", str(inp), "--out", str(out)]) == 0  # recorded now


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_two_batches_on_one_checkpoint_through_a_link_do_not_both_run(
    tmp_path: Path, link: str
) -> None:
    real = tmp_path / "real.jsonl"
    alias = tmp_path / "alias.jsonl"
    if link == "symlink":
        alias.symlink_to(real)  # the checkpoint need not exist yet
    else:
        real.write_text("", encoding="utf-8")
        os.link(real, alias)
    ran: list[str] = []

    async def two_at_once() -> None:
        # the first batch holds its items until the second was refused (events, not sleeps)
        started, release = asyncio.Event(), asyncio.Event()

        async def held(item: str) -> str:
            ran.append(item)
            started.set()
            await release.wait()
            return item

        first = asyncio.create_task(run_batch(held, ["a", "b"], key=str, checkpoint=real))
        await started.wait()
        try:
            with pytest.raises(ConflictEvalError, match="in use by another running batch"):
                await run_batch(held, ["a", "b"], key=str, checkpoint=alias)
        finally:
            release.set()
        await first

    asyncio.run(two_at_once())
    assert sorted(ran) == ["a", "b"]
    assert len(real.read_text().splitlines()) == 2


# ------------------------------------------------------------------ 13. dead endpoints


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _detect_items(path: Path, n: int = 10) -> Path:
    item = {
        "source": "conflictingqa",
        "question": "q",
        "claim": "The canal opened in 1847.",
        "documents": [{"id": "a", "text": "The canal opened in 1847.", "gold": "SUPPORTS"}],
        "conflict": False,
    }
    return _jsonl(path, [{**item, "id": f"x:{k}"} for k in range(n)])


def test_an_unparseable_base_url_is_a_usage_error_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _detect_items(tmp_path / "bench.jsonl")
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(tmp_path / "d")]
    assert main([*argv, "--model", "openai/m", "--base-url", "not-a-url"]) == 2
    err = capsys.readouterr().err.strip()
    assert "'not-a-url'" in err and "http" in err and "\n" not in err
    assert not (tmp_path / "d" / "checkpoint.jsonl").exists()
    with pytest.raises(UsageError, match="no host name"):
        get_model("openai/m", base_url="http://:80/v1")


def test_a_closed_port_stops_the_run_at_once_and_the_fixed_url_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _detect_items(tmp_path / "bench.jsonl")
    out = tmp_path / "d"
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    argv += ["--model", "openai/m", "--no-cache"]
    # every retry would wait 120 s: ending well before one wait could pass proves that the
    # refused connection was not retried call by call, however loaded the machine is
    from conflicteval.models import core

    monkeypatch.setattr(core.Model, "_wait", lambda self, state: 120.0)
    start = time.monotonic()
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    assert main([*argv, "--base-url", dead]) == 2
    assert time.monotonic() - start < 100  # not retried call by call
    monkeypatch.undo()  # the fixed URL below retries as usual
    err = capsys.readouterr().err.strip()
    assert "connection refused at" in err.lower() and "--base-url" in err and "\n" not in err
    assert read_checkpoint(out / "checkpoint.jsonl") == {}  # nothing from the dead URL
    reply = json.dumps({"snippet": "opened in 1847", "reasoning": "same", "answer": "SUPPORTS"})
    with OpenAICompatServer(replies=[reply]) as server:
        # the fixed URL: the same output, no --restart
        code = main([*argv, "--base-url", server.base_url])
        assert code == 0, capsys.readouterr().err
        assert len(server.completions()) == 10
    records = read_checkpoint(out / "checkpoint.jsonl")
    assert len(records) == 10 and all(r.status == "ok" for r in records.values())


def test_a_404_on_the_first_call_stops_the_run_saying_what_to_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _detect_items(tmp_path / "bench.jsonl")
    out = tmp_path / "d"
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    argv += ["--model", "openai/nope", "--no-cache", "--concurrency", "1"]
    with OpenAICompatServer(faults=lambda n, body: Fault.status_code(404)) as server:
        assert main([*argv, "--base-url", server.base_url]) == 2
        assert len(server.completions()) == 1  # the model the server does not know: once
    err = capsys.readouterr().err.strip()
    assert "HTTP 404" in err and "check the model name" in err and "\n" not in err
    assert read_checkpoint(out / "checkpoint.jsonl") == {}


def test_failures_after_the_endpoint_answered_are_still_retried(tmp_path: Path) -> None:
    with OpenAICompatServer(replies=["ok"], faults=[None, Fault.status_code(404)]) as server:
        model = get_model(
            "openai/m", base_url=server.base_url, api_key="k", cache=False, max_attempts=2
        )

        async def work(item: str) -> str:
            return (await model.generate(item)).text

        result = run_batch_sync(work, ["a", "b", "c"], key=str, concurrency=1)
    # the 404 after an answer fails its item only (not retried: a 404 is not retryable)
    assert [r.status for r in result.records] == ["ok", "model_error", "ok"]


def test_a_dead_endpoint_in_the_library_raises_batch_aborted(tmp_path: Path) -> None:
    model = get_model(
        "openai/m", base_url=f"http://127.0.0.1:{_closed_port()}/v1", api_key="k", cache=False
    )

    async def work(item: str) -> str:
        return (await model.generate(item)).text

    with pytest.raises(BatchAborted, match=r"(?i)connection refused at"):
        run_batch_sync(work, ["a", "b"], key=str, checkpoint=tmp_path / "ck")
    assert read_checkpoint(tmp_path / "ck") == {}


# ------------------------------------------------------------------ 14. numeric options


@pytest.mark.parametrize(
    "argv",
    [
        ["wikicontradict", "generate", "--out", "o", "--model", "m", "--limit", "-1"],
        ["conflictbench", "detect", "--items", "x", "--out", "o", "--limit", "0"],
        ["regenerate", "--limit", "-3"],
        ["conflictbench", "build", "--seed", "-1"],
        ["reports", "--n", "-1"],
        ["feverous", "verify", "--claims", "x", "--limit", "-1"],
        ["feverous", "score", "--predictions", "x", "--max-cells", "0"],
        ["score", "--input", "x", "--out", "o", "--timeout", "inf"],
        ["score", "--input", "x", "--out", "o", "--item-timeout", "-5"],
        ["batch", "run", "--max-rounds", "0"],
    ],
)
def test_bad_numeric_options_are_refused(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "must be" in err or "must not be" in err or "not a" in err


def test_dead_endpoint_kinds_are_read_from_the_error_and_its_causes() -> None:
    from conflicteval.models.base import ProviderError
    from conflicteval.models.endpoint import base_url_problem, dead_endpoint, note_answered

    def chained(cause: BaseException) -> ProviderError:
        try:
            try:
                raise cause
            except BaseException as exc:
                raise ProviderError("connection error", retryable=True) from exc
        except ProviderError as err:
            return err

    url = "http://never-answered.example:8000/v1"
    dns = chained(socket.gaierror(-2, "Name or service not known"))
    assert "DNS lookup failed" in str(dead_endpoint(url, "m", dns))
    refused = chained(ConnectionRefusedError(111, "Connection refused"))
    assert "connection refused at" in str(dead_endpoint(url, "m", refused))
    assert "HTTP 404" in str(dead_endpoint(url, "m", ProviderError("x", status=404)))
    assert dead_endpoint(url, "m", ProviderError("HTTP 500", status=500, retryable=True)) is None
    assert dead_endpoint(url, "m", chained(TimeoutError("timed out"))) is None
    note_answered(url, "m")  # once it answered, the same failures are passing ones
    assert dead_endpoint(url, "m", refused) is None
    assert dead_endpoint(url, "other", refused) is not None
    for bad in ("not-a-url", "localhost:8000", "ftp://host/v1", "http:///v1", "http://h:99999"):
        assert base_url_problem(bad) is not None, bad
    for good in ("http://localhost:8000/v1", "https://api.openai.com/v1", "http://[::1]:8/v1"):
        assert base_url_problem(good) is None, good
