"""Every model call's reply is kept with its item's record: in the order the calls were made,
bounded, marked when replayed from the cache, dropped on request, and carried to the report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval import ParseFailure, get_model, run_batch_sync
from conflicteval.cli import main
from conflicteval.models.usage_scopes import KEPT_CALLS, KEPT_REPLY
from conflicteval.results.load import load_run as load_results
from conflicteval.testing import OpenAICompatServer
from conflicteval.view import load_run


def _racing_model(lengths: dict[str, int] | None = None) -> Any:
    """A scripted model whose later prompts reply first (each waits 5 ms less than the one
    before), so the replies arrive in the reverse of the order the calls were made."""

    async def reply(messages: list[Any]) -> str:
        prompt = messages[-1]["content"]
        k = int(prompt.split()[-1])
        await asyncio.sleep(0.005 * (10 - k % 10))
        n = (lengths or {}).get(prompt)
        return "x" * n if n else f"reply to {prompt}"

    return get_model("scripted", replies=reply, cache=False)


def _ask(model: Any, n: int) -> Any:
    async def work(item: dict[str, Any]) -> int:
        outs = await asyncio.gather(
            *(model.generate(f"item {item['id']} call {k}") for k in range(n))
        )
        if item["id"] == "bad":
            raise ParseFailure("could not read it", raw=outs[0].text)
        return len(outs)

    return work


def test_replies_are_kept_in_the_order_the_calls_were_made(tmp_path: Path) -> None:
    model = _racing_model()
    items = [{"id": "a"}, {"id": "bad"}]
    result = run_batch_sync(_ask(model, 6), items, checkpoint=tmp_path / "ck.jsonl", progress=False)
    ok, bad = result.records
    assert [c.reply for c in ok.calls] == [f"reply to item a call {k}" for k in range(6)]
    assert all(c.model == model.name and not c.cached and c.left_out == 0 for c in ok.calls)
    assert all(c.latency_s is not None and c.latency_s >= 0 for c in ok.calls)
    # a failed item keeps its replies too, beside the one it could not read
    assert bad.status == "parse_error" and bad.raw == "reply to item bad call 0"
    assert [c.reply for c in bad.calls][-1] == "reply to item bad call 5"
    # the checkpoint holds them: a resumed run reads back the same records
    again = run_batch_sync(_ask(model, 6), items, checkpoint=tmp_path / "ck.jsonl", progress=False)
    assert again.resumed == 2 and again.records == result.records


def test_long_replies_and_many_calls_are_bounded() -> None:
    long_prompt = "item a call 1"
    model = _racing_model({long_prompt: KEPT_REPLY + 123})
    result = run_batch_sync(_ask(model, KEPT_CALLS + 5), [{"id": "a"}], progress=False)
    (rec,) = result.records
    assert len(rec.calls) == KEPT_CALLS and rec.more_calls == 5
    assert len(rec.calls[1].reply) == KEPT_REPLY and rec.calls[1].left_out == 123
    # the first calls made are the ones kept, whichever replied first
    assert rec.calls[-1].reply == f"reply to item a call {KEPT_CALLS - 1}"
    assert rec.usage.calls == KEPT_CALLS + 5  # every call still counts


def test_keep_replies_false_keeps_none(tmp_path: Path) -> None:
    model = _racing_model()
    ck = tmp_path / "ck.jsonl"
    items = [{"id": "a"}, {"id": "bad"}]
    result = run_batch_sync(
        _ask(model, 3), items, checkpoint=ck, progress=False, keep_replies=False
    )
    assert [r.calls for r in result.records] == [[], []]
    assert result.records[1].raw == "reply to item bad call 0"  # a failure's raw reply stays
    lines = [json.loads(line) for line in ck.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 2 and all("calls" not in rec for rec in lines)


def test_a_reply_from_the_cache_says_so(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    items = [{"id": "a"}]
    with OpenAICompatServer(replies=lambda body: "a reply") as server:
        first = get_model("openai/t", base_url=server.base_url, api_key="k", cache=cache)
        run_batch_sync(_ask(first, 2), items, checkpoint=tmp_path / "1.jsonl", progress=False)
        again = get_model("openai/t", base_url=server.base_url, api_key="k", cache=cache)
        res = run_batch_sync(_ask(again, 2), items, checkpoint=tmp_path / "2.jsonl", progress=False)
    calls = res.records[0].calls
    assert [(c.reply, c.cached, c.latency_s) for c in calls] == [("a reply", True, None)] * 2


def _score_items(tmp: Path) -> Path:
    docs = [{"id": "d0", "text": "The canal opened in 1847."}, {"id": "d1", "text": "It is long."}]
    path = tmp / "items.jsonl"
    rows = [{"id": f"r{k}", "response": f"The canal opened in 18{40 + k}.", "documents": docs}
            for k in range(2)]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("drop", [False, True])
def test_the_cli_keeps_replies_unless_told_and_the_report_shows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drop: bool, score_replies: Any
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with OpenAICompatServer(replies=score_replies) as server:
        argv = ["score", "--input", str(_score_items(tmp_path)), "--out", str(out), "--quiet",
                "--model", "openai/t", "--base-url", server.base_url,
                "--decomposer", "llm", "--labeler", "llm"]  # fmt: skip
        assert main(argv + (["--drop-replies"] if drop else [])) == 0
    lines = [json.loads(x) for x in (out / "checkpoint.jsonl").read_text().splitlines()]
    items = {it["id"]: it for it in load_run(out).items}
    latency = {it.id: it.latency_s for it in load_results(out).items()}  # the result contract
    if drop:
        assert all("calls" not in rec for rec in lines)
        assert all("calls" not in it for it in items.values())
        assert latency == {"r0": None, "r1": None}
        return
    for rec in lines:  # the item's calls, added up (a reply from the cache took no time: two
        # items asking the same label question may share a reply, whichever asked first)
        took = round(sum(c["latency_s"] or 0.0 for c in rec["calls"]), 4)
        assert latency[rec["id"]] == took and took > 0  # each item's decomposition was sent
    # one decomposition and 2 claims x 2 documents labelled: five replies per item, in order
    for rec in lines:
        replies = [c["reply"] for c in rec["calls"]]
        assert replies[0].startswith("Claims:") and len(replies) == 5
        assert all(json.loads(r)["answer"] == "SUPPORTS" for r in replies[1:])
    shown = items["r0"]["calls"]
    assert [c[1] for c in shown] == [c["reply"] for c in lines[0]["calls"]]
    assert all(c[0] == "openai/t" and c[2] is False for c in shown)
