"""The runner: every item accounted for, checkpoints, resume, sync entry points, dry runs."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conflicteval import Count, ParseFailure, answer_with, get_model, run_batch, run_batch_sync
from conflicteval.errors import BatchAborted, ConflictEvalError, ModelError, PendingCall
from conflicteval.runs import read_checkpoint
from conflicteval.testing import Fault, OpenAICompatServer, random_faults

SCHEMA = {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}


def labeller(server: OpenAICompatServer, **opts: object):
    model = get_model(
        "openai/m",
        base_url=server.base_url,
        api_key="k",
        cache=False,
        backoff_initial=0.005,
        backoff_max=0.02,
        # generous: a reply of the local server must never time out on a loaded machine;
        # the slow faults below are far slower still, so they always do
        timeout=10.0,
        max_attempts=3,
        **opts,
    )

    async def work(item: dict[str, str]) -> dict[str, str]:
        out = await model.generate(item["prompt"], response_schema=SCHEMA)
        if out.parse_error:
            raise ParseFailure(out.parse_error, raw=out.text)
        return {"label": out.parsed["label"]}

    return model, work


def reply_for(body: dict) -> str:
    prompt = body["messages"][0]["content"]
    n = int(prompt.split()[-1])
    return "garbage without json" if n % 17 == 0 else json.dumps({"label": f"L{n}"})


def test_batch_with_faults_accounts_for_every_item(tmp_path: Path) -> None:
    items = [{"id": f"i{n}", "prompt": f"item {n}"} for n in range(300)]
    with OpenAICompatServer(replies=reply_for, faults=random_faults(0.2, seed=7, slow=60.0)) as s:
        _, work = labeller(s)
        result = run_batch_sync(work, items, checkpoint=tmp_path / "ck.jsonl", concurrency=32)
    c = result.counts
    assert c["total"] == 300
    assert c["ok"] + c["parse_error"] + c["model_error"] == 300
    assert c["parse_error"] >= 300 // 17  # the scripted garbage replies
    assert c["ok"] > 200
    for rec in result.records:
        if rec.status == "ok":
            assert rec.result == {"label": "L" + rec.id[1:]}
        else:
            assert rec.error
    for rec in result.records:
        if rec.status == "parse_error":
            assert rec.raw is not None
    ck = read_checkpoint(tmp_path / "ck.jsonl")
    assert set(ck) == {it["id"] for it in items}
    assert [r.id for r in result.records] == [it["id"] for it in items]
    assert "parse errors" in result.summary()


def test_resume_after_interruption_makes_no_request_for_finished_items(tmp_path: Path) -> None:
    import threading

    items = [{"id": f"i{n}", "prompt": f"item {n}"} for n in range(200)]
    ck = tmp_path / "ck.jsonl"
    # The server answers 40 requests, then holds the rest until the batch is interrupted
    # (once a few items are in the checkpoint): the interruption always lands mid-batch,
    # however slowly a loaded machine writes the checkpoint or runs this poll.
    gate = threading.Event()
    answered = [0]

    def held_after_40(body: dict) -> str:
        answered[0] += 1
        if answered[0] > 40 and not gate.is_set():
            gate.wait(300)
        return reply_for(body)

    with OpenAICompatServer(replies=held_after_40, latency=0.03) as s:
        _, work = labeller(s)

        async def interrupted() -> None:
            task = asyncio.ensure_future(run_batch(work, items, checkpoint=ck, concurrency=8))
            deadline = time.monotonic() + 240  # guards against a hang only
            while not task.done() and time.monotonic() < deadline:
                if ck.exists() and len(ck.read_bytes().splitlines()) >= 5:
                    break
                await asyncio.sleep(0.005)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        try:
            asyncio.run(interrupted())
        finally:
            gate.set()
        finished = read_checkpoint(ck)
        assert 0 < len(finished) <= 40
        before = len(s.completions())
        result = run_batch_sync(work, items, checkpoint=ck, concurrency=8)
        again = [(r.body or {})["messages"][0]["content"] for r in s.completions()[before:]]
    assert result.counts["total"] == 200
    assert result.resumed == len(finished)
    assert not {f"item {i[1:]}" for i in finished} & set(again)
    # every unfinished item is asked once more (twice when its reply needs a re-ask)
    assert len(set(again)) == 200 - len(finished)


def test_failed_items_never_stop_the_batch_and_unexpected_errors_are_recorded() -> None:
    async def work(item: int) -> int:
        if item == 3:
            raise ModelError("server gave up")
        if item == 4:
            raise ParseFailure("no label", raw="??")
        if item == 5:
            raise KeyError("bug")
        return item * 2

    result = run_batch_sync(work, range(8), key=str)
    assert result.counts == {"ok": 5, "parse_error": 1, "model_error": 2, "total": 8}
    statuses = {r.id: (r.status, r.error) for r in result.records}
    assert statuses["3"] == ("model_error", "server gave up")
    assert statuses["4"] == ("parse_error", "no label")
    assert statuses["5"][0] == "model_error" and "KeyError" in str(statuses["5"][1])


def test_duplicate_ids_are_rejected() -> None:
    async def work(item: int) -> int:
        return item

    with pytest.raises(ValueError, match="duplicate item id"):
        run_batch_sync(work, [1, 1], key=str)


def test_partial_last_checkpoint_line_is_ignored_other_damage_is_an_error(tmp_path: Path) -> None:
    ck = tmp_path / "ck.jsonl"
    ck.write_text('{"id": "a", "status": "ok", "result": 1}\n{"id": "b", "sta')
    assert set(read_checkpoint(ck)) == {"a"}

    async def work(item: str) -> str:
        return item

    result = run_batch_sync(work, ["a", "b"], key=str, checkpoint=ck)
    assert result.counts["ok"] == 2 and result.resumed == 1
    assert set(read_checkpoint(ck)) == {"a", "b"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('not json\n{"id": "a", "status": "ok"}\n')
    with pytest.raises(ConflictEvalError, match="line 1"):
        read_checkpoint(bad)


def test_run_batch_sync_inside_running_loop_and_usage_per_item() -> None:
    model = get_model("scripted", replies=lambda msgs: "word " * len(msgs[-1]["content"]))

    async def work(item: str) -> str:
        out = await model.generate(item)
        return out.text

    async def notebook_cell():
        return run_batch_sync(work, ["a", "bbbb"], key=str, progress=False)

    result = asyncio.run(notebook_cell())
    assert result.counts["ok"] == 2
    assert [r.usage.calls for r in result.records] == [1, 1]
    assert result.records[1].usage.completion_tokens > result.records[0].usage.completion_tokens
    assert result.usage.calls == 2


def test_to_pandas() -> None:
    pytest.importorskip("pandas")

    async def work(item: int) -> dict[str, int]:
        if item == 1:
            raise ParseFailure("bad")
        return {"value": item}

    df = run_batch_sync(work, [0, 1, 2], key=str).to_pandas()
    assert list(df["status"]) == ["ok", "parse_error", "ok"]
    assert df.loc[2, "value"] == 2


def test_dry_run_counts_calls_cache_hits_and_tokens(tmp_path: Path) -> None:
    with OpenAICompatServer() as s:
        model = get_model("openai/m", base_url=s.base_url, api_key="k", cache=tmp_path)
        model.generate_sync("already asked")
        with answer_with(Count()) as count:
            assert model.generate_sync("already asked").cached
            with pytest.raises(PendingCall):
                model.generate_sync("new one")
        report = count.report()
        assert len(s.completions()) == 1  # the dry run made no request
        assert not model.is_cached("new one")  # and stored nothing
    assert report.calls == 2 and report.cached == 1 and report.uncached == 1
    assert report.prompt_tokens > 0
    assert ("estimated" in report.summary()) == report.tokens_estimated


def test_api_key_appears_nowhere(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    secret = "sk-test-VERY-SECRET-0123456789"
    caplog.set_level(logging.DEBUG)
    cache_dir = tmp_path / "cache"
    ck = tmp_path / "ck.jsonl"
    with OpenAICompatServer(faults=[None, Fault.status_code(401)]) as s:
        model = get_model("openai/m", base_url=s.base_url, api_key=secret, cache=cache_dir)

        async def work(item: str) -> str:
            return (await model.generate(item)).text

        # a 401 stops the batch at once (every call would be refused alike)
        with pytest.raises(BatchAborted) as info:
            run_batch_sync(work, ["one", "two"], key=str, checkpoint=ck, concurrency=1)
        assert s.completions()[0].headers["authorization"] == f"Bearer {secret}"
    errors = [str(info.value)] + [r.error or "" for r in read_checkpoint(ck).values()]
    assert "401" in errors[0]
    texts = [
        (cache_dir / "responses.sqlite3").read_bytes().decode("latin-1"),
        ck.read_text(),
        caplog.text,
        " ".join(errors),
        repr(model),
        repr(model.provider),
    ]
    for path in cache_dir.glob("*"):
        texts.append(path.read_bytes().decode("latin-1"))
    for text in texts:
        assert secret not in text


KILL_SCRIPT = textwrap.dedent(
    """
    import sys
    from conflicteval import get_model, run_batch_sync
    base_url, ck = sys.argv[1], sys.argv[2]
    model = get_model("openai/m", base_url=base_url, api_key="k", cache=False)
    async def work(item):
        return (await model.generate(item)).text
    items = [f"item {i}" for i in range(120)]
    r = run_batch_sync(work, items, key=str, checkpoint=ck, concurrency=4, progress=False)
    print(r.counts["ok"])
    """
)


def test_sigkill_and_resume_repeats_no_finished_request(tmp_path: Path) -> None:
    import threading

    script = tmp_path / "job.py"
    script.write_text(KILL_SCRIPT)
    ck = tmp_path / "ck.jsonl"
    # The server answers 40 requests, then holds the rest until the job is killed: the kill
    # always lands mid-batch, however slowly this process gets to see the checkpoint grow.
    gate = threading.Event()
    answered = [0]

    def reply(body: dict) -> str:
        answered[0] += 1
        if answered[0] > 40:
            gate.wait(300)
        return "done " + body["messages"][-1]["content"]

    with OpenAICompatServer(replies=reply) as s:
        proc = subprocess.Popen([sys.executable, str(script), s.base_url, str(ck)])
        try:
            deadline = time.monotonic() + 240  # guards against a hang only
            while time.monotonic() < deadline and proc.poll() is None:
                if ck.exists() and ck.read_text().count("\n") >= 30:
                    break
                time.sleep(0.02)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
        finally:
            gate.set()
        finished = read_checkpoint(ck)
        assert 0 < len(finished) <= 40
        before = len(s.completions())
        out = subprocess.run(
            [sys.executable, str(script), s.base_url, str(ck)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == "120"
        later = [r.prompt for r in s.completions()[before:]]
    assert not set(finished) & set(later)
    final = read_checkpoint(ck)
    assert len(final) == 120
    assert all(r.result == "done " + r.id for r in final.values())


def test_a_checkpoint_in_use_by_another_batch_is_refused(tmp_path: Path) -> None:
    ck = tmp_path / "ck.jsonl"

    async def two_at_once() -> None:
        # the first batch holds its items until the second has been refused (events, not
        # sleeps: however slowly either starts, the first is still running at the check)
        started, release = asyncio.Event(), asyncio.Event()

        async def held(item: str) -> str:
            started.set()
            await release.wait()
            return item

        first = asyncio.create_task(run_batch(held, ["a", "b"], key=str, checkpoint=ck))
        await started.wait()
        try:
            with pytest.raises(ConflictEvalError, match="in use by another running batch"):
                await run_batch(held, ["a", "b"], key=str, checkpoint=ck)
        finally:
            release.set()
        result = await first
        assert result.counts["ok"] == 2

    async def quick(item: str) -> str:
        return item

    asyncio.run(two_at_once())
    # once the first batch is done the checkpoint is free again, and resumes
    again = run_batch_sync(quick, ["a", "b", "c"], key=str, checkpoint=ck)
    assert again.resumed == 2 and again.counts["ok"] == 3


def test_a_batch_that_fails_stops_all_its_workers_before_freeing_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conflicteval.runs import checkpoint

    ck = tmp_path / "ck.jsonl"
    calls: list[int] = []
    original = checkpoint._Writer.write
    failed: list[bool] = []

    def disk_full_once(self: object, *args: object) -> None:
        if not failed:
            failed.append(True)
            raise OSError(28, "No space left on device")
        original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(checkpoint._Writer, "write", disk_full_once)

    async def work(item: int) -> int:
        calls.append(item)
        await asyncio.sleep(0.0 if item == 0 else 0.05)
        return item

    async def scenario() -> None:
        with pytest.raises(OSError, match="No space left"):
            await run_batch(work, list(range(40)), key=str, checkpoint=ck, concurrency=4)
        made, lines = len(calls), ck.read_text().count("\n") if ck.exists() else 0
        await asyncio.sleep(0.3)
        # no worker carries on behind the caller's back, calling models and writing
        # to a checkpoint whose lock was already released
        assert len(calls) == made
        assert (ck.read_text().count("\n") if ck.exists() else 0) == lines
        assert len(asyncio.all_tasks()) == 1

    asyncio.run(scenario())


def test_results_are_the_same_in_a_fresh_and_a_resumed_run(tmp_path: Path) -> None:
    from pydantic import BaseModel

    class Verdict(BaseModel):
        label: str
        score: float

    async def work(item: int) -> object:
        if item == 0:
            return Verdict(label="SUPPORTS", score=0.5)
        if item == 1:
            return ("a", 1)
        return {1: "int key"}

    ck = tmp_path / "ck.jsonl"
    fresh = run_batch_sync(work, [0, 1, 2], key=str, checkpoint=ck)
    resumed = run_batch_sync(work, [0, 1, 2], key=str, checkpoint=ck)
    assert resumed.resumed == 3
    assert [r.result for r in fresh.records] == [r.result for r in resumed.records]
    assert fresh.records[0].result == {"label": "SUPPORTS", "score": 0.5}


def test_a_result_that_is_not_json_serialisable_fails_with_or_without_checkpoint(
    tmp_path: Path,
) -> None:
    async def work(item: str) -> object:
        return object() if item == "bad" else item

    for checkpoint in (None, tmp_path / "ck.jsonl"):
        result = run_batch_sync(work, ["ok", "bad"], key=str, checkpoint=checkpoint)
        statuses = {r.id: (r.status, r.error) for r in result.records}
        assert statuses["ok"] == ("ok", None)
        assert statuses["bad"][0] == "model_error"
        assert "JSON-serialisable" in str(statuses["bad"][1])


def test_dry_run_counts_text_that_spells_a_special_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    class Encoding:  # tiktoken's behaviour: special-token text is refused unless allowed
        name = "fake_base"

        def encode(self, text: str, *, disallowed_special: object = "all") -> list[int]:
            if disallowed_special == "all" and "<|endoftext|>" in text:
                raise ValueError("Encountered text corresponding to disallowed special token")
            return list(range(len(text.split())))

    fake = types.ModuleType("tiktoken")
    fake.encoding_for_model = lambda name: Encoding()  # type: ignore[attr-defined]
    fake.get_encoding = lambda name: Encoding()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tiktoken", fake)
    model = get_model("scripted", replies=[])
    scraped = "a web page ending in <|endoftext|> and more"
    with answer_with(Count()) as count, pytest.raises(PendingCall):
        model.generate_sync(scraped)
    report = count.report()
    assert not report.tokens_estimated
    assert report.calls == 1 and report.prompt_tokens == len(scraped.split()) + 4


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Task.cancelling() is new in 3.11")
def test_a_cancellation_raised_inside_an_item_is_that_items_failure(tmp_path: Path) -> None:
    async def work(item: int) -> int:
        if item == 1:  # e.g. awaiting a helper task that something else cancelled
            helper = asyncio.ensure_future(asyncio.sleep(10))
            await asyncio.sleep(0)
            helper.cancel()
            await helper
        await asyncio.sleep(0.01)
        return item

    result = run_batch_sync(work, range(6), key=str, checkpoint=tmp_path / "ck.jsonl")
    assert result.counts == {"ok": 5, "parse_error": 0, "model_error": 1, "total": 6}
    assert "CancelledError" in str(result.records[1].error)


def test_an_enclosing_usage_scope_still_sees_the_calls_of_a_batch_inside_it() -> None:
    from conflicteval.models import usage_scope

    model = get_model("scripted", replies=lambda msgs: "one two")

    async def work(item: str) -> str:
        return (await model.generate(item)).text

    async def stage() -> tuple[int, int]:
        with usage_scope() as total:  # e.g. the usage of one stage of a pipeline
            result = await run_batch(work, ["a", "b", "c"], key=str)
        return total.calls, result.usage.calls

    assert asyncio.run(stage()) == (3, 3)


@pytest.mark.timeout(120)
def test_an_item_past_its_bound_is_a_recorded_failure_and_the_batch_finishes(
    tmp_path: Path,
) -> None:
    # A model without a per-attempt limit on a server that drips for ever: without a
    # bound on the item, the batch would never finish and the item get no record. The
    # drip announces a length under the reply bound, so the only way the item can end
    # is its bound, however long a loaded machine takes (the pytest limit guards a hang).
    with OpenAICompatServer(
        replies=lambda body: "ok",
        faults=lambda n, body: (
            Fault.drip(0.1, endless=True) if body["messages"][-1]["content"] == "stuck" else None
        ),
    ) as server:
        model = get_model(
            "openai/m", base_url=server.base_url, api_key="k", cache=False, timeout=None
        )

        async def work(item: str) -> str:
            return (await model.generate(item)).text

        ck = tmp_path / "ck.jsonl"
        result = run_batch_sync(work, ["a", "stuck", "b"], key=str, checkpoint=ck, item_timeout=3.0)
    assert result.counts == {"ok": 2, "parse_error": 0, "model_error": 1, "total": 3}
    failed = result.records[1]
    assert failed.id == "stuck" and "timed out" in str(failed.error) and "3s" in str(failed.error)
    assert [r.fault for r in server.completions()].count("drip") == 1  # never retried
    assert read_checkpoint(ck)["stuck"].status == "model_error"


def test_the_item_bound_of_run_options_applies_and_inf_switches_it_off() -> None:
    from conflicteval.runs import RunOptions

    async def work(item: float) -> float:
        if item < 0:
            await asyncio.Event().wait()  # never ends: only the bound can stop it
        await asyncio.sleep(item)
        return item

    # the bound is generous for the item that ends at once, on however loaded a machine
    options = RunOptions(item_timeout=3.0)
    result = run_batch_sync(work, [0.0, -1.0], key=str, options=options)
    assert [r.status for r in result.records] == ["ok", "model_error"]
    assert "timed out" in str(result.records[1].error)
    # a keyword that is set wins over the options
    short = RunOptions(item_timeout=0.01)
    result = run_batch_sync(work, [0.0, 0.5], key=str, options=short, item_timeout=float("inf"))
    assert [r.status for r in result.records] == ["ok", "ok"]
    with pytest.raises(ValueError, match="item_timeout"):
        run_batch_sync(work, [0.0], key=str, item_timeout=0)


def test_run_options_combine_keeps_what_the_caller_did_not_set() -> None:
    from conflicteval.runs import RunOptions

    base = RunOptions(concurrency=3, restart=True, item_timeout=5.0, adopt=True)
    same = RunOptions.combine(base, concurrency=16)
    assert same == base
    mine = RunOptions.combine(None, concurrency=8, progress=False, executor="local")
    assert (mine.concurrency, mine.progress, mine.executor, mine.adopt) == (
        8,
        False,
        "local",
        False,
    )
    assert RunOptions.combine(base, concurrency=8, retry_failed=True).retry_failed is True


def test_a_timeout_raised_by_the_item_itself_is_not_called_the_bound() -> None:
    async def work(item: int) -> int:
        raise asyncio.TimeoutError("the item's own wait")

    result = run_batch_sync(work, [1], key=str, item_timeout=30)
    assert result.records[0].status == "model_error"
    assert "item timed out" not in str(result.records[0].error)


def _disk_fills_after(monkeypatch: pytest.MonkeyPatch, target: Path, lines: int) -> None:
    """The file at ``target`` takes ``lines`` writes, then fails as a full disk does."""
    import errno

    real_open = Path.open

    class Full:
        def __init__(self, fh: object) -> None:
            self.fh = fh
            self.writes = 0

        def write(self, text: str) -> int:
            if self.writes >= lines:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.writes += 1
            return self.fh.write(text)  # type: ignore[attr-defined]

        def __getattr__(self, name: str) -> object:
            return getattr(self.fh, name)

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()  # type: ignore[attr-defined]

    def fake_open(self: Path, *args: object, **kwargs: object) -> object:
        fh = real_open(self, *args, **kwargs)  # type: ignore[call-overload]
        # the file itself, or the temporary file an atomic write fills before renaming it
        temporary = self.parent == target.parent and self.name.startswith(f".{target.name}.")
        return Full(fh) if self == target or temporary else fh

    monkeypatch.setattr(Path, "open", fake_open)


def test_a_full_disk_stops_the_batch_with_a_clear_message_and_keeps_what_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ck = tmp_path / "ck.jsonl"
    _disk_fills_after(monkeypatch, ck, 2)

    async def work(item: str) -> str:
        return item

    with pytest.raises(ConflictEvalError) as info:
        run_batch_sync(work, ["a", "b", "c", "d"], key=str, checkpoint=ck, concurrency=1)
    message = str(info.value)
    assert str(ck) in message and "no space left" in message
    assert "2 items" in message and "safe" in message
    monkeypatch.undo()
    again = run_batch_sync(work, ["a", "b", "c", "d"], key=str, checkpoint=ck)
    assert again.resumed == 2 and again.counts["ok"] == 4


def test_a_full_disk_while_writing_an_output_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conflicteval.runs import write_json_lines

    out = tmp_path / "out.jsonl"
    _disk_fills_after(monkeypatch, out, 1)
    out.write_text('{"old": 1}\n', encoding="utf-8")
    with pytest.raises(ConflictEvalError, match=r"out\.jsonl: could not write the output"):
        write_json_lines(out, [{"a": 1}, {"b": 2}])
    # written atomically: the earlier file is left whole, and no half-written one beside it
    assert out.read_text(encoding="utf-8") == '{"old": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_the_cli_reports_a_full_disk_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import errno

    from conflicteval.cli import app as cli

    def full(args: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", "report.csv")

    monkeypatch.setattr(cli, "_cache_info", full)
    assert cli.main(["cache", "info"]) == 2
    err = capsys.readouterr().err
    assert "report.csv" in err and "no space left" in err and "safe" in err


def test_an_item_failing_as_its_batch_is_cancelled_leaves_no_unread_exception(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An item whose cleanup raises while the batch is cancelled is not logged as lost."""
    import gc

    from conflicteval.runs.bounds import _bounded

    async def work() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise ValueError("cleanup failed") from None

    async def main() -> None:
        outer = asyncio.ensure_future(_bounded(work(), 5.0))
        await asyncio.sleep(0.01)
        outer.cancel()
        with pytest.raises((asyncio.CancelledError, ValueError)):
            await outer

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(main())
        gc.collect()
    assert "never retrieved" not in caplog.text
