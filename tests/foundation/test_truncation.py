"""Replies cut off by the token limit (finish_reason "length"): counted, never cached, and
never a result where a structured answer was asked for."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from conflicteval import ParseFailure, get_model, run_batch_sync
from conflicteval.conflictscore import LLMDecomposer, LLMLabeler
from conflicteval.testing import Fault, OpenAICompatServer
from conflicteval.types import CUT_OFF, Document
from conflicteval.wikicontradict.judge import Judge


def model_for(server: OpenAICompatServer, **opts: object):
    options: dict[str, object] = {"base_url": server.base_url, "api_key": "k", "cache": False}
    options.update(opts)
    return get_model("openai/m", **options)


def test_a_cut_off_reply_is_counted_and_never_cached(tmp_path: Path) -> None:
    with OpenAICompatServer(replies=["OK then, all fine"], faults=[Fault.truncate()]) as s:
        model = model_for(s, cache=tmp_path)
        first = model.generate_sync("q")
        assert first.truncated and first.finish_reason == "length"
        assert first.usage.truncated == 1 and model.usage.truncated == 1
        again = model.generate_sync("q")  # not served from the cache: asked again
        assert not again.cached and not again.truncated and again.text == "OK then, all fine"
        assert model.generate_sync("q").cached  # the complete reply is cached
        assert len(s.completions()) == 2


class Label(BaseModel):
    answer: str


def test_a_cut_off_structured_reply_is_a_parse_error_without_a_re_ask() -> None:
    reply = '{"answer": "SUPPORTS"}                                         '
    with OpenAICompatServer(replies=[reply], faults=[Fault.truncate()]) as s:
        out = model_for(s).generate_sync("q", response_schema=Label)
        assert out.parsed is None and out.parse_error == CUT_OFF
        assert len(s.completions()) == 1


def test_batch_summary_shows_cut_off_replies() -> None:
    with OpenAICompatServer(replies=["a long enough plain answer"]) as s:
        s.set_faults([Fault.truncate(), None, Fault.truncate()])
        model = model_for(s)

        async def work(item: str) -> str:
            return (await model.generate(item)).text  # plain text: cut off stays ok

        result = run_batch_sync(work, ["a", "b", "c"], key=str, concurrency=1)
    assert result.counts["ok"] == 3
    assert result.usage.truncated == 2
    assert "2 replies cut off by max_tokens" in result.summary()


def test_a_cut_off_label_reply_fails_the_pair() -> None:
    # the answer comes first, so half the reply still names it: it must not count
    reply = '{"answer": "SUPPORTS", "reasoning": "the document states it in plain words"}'
    with OpenAICompatServer(replies=[reply], faults=[Fault.truncate()]) as s:
        labeler = LLMLabeler(model_for(s), structured=False)
        result = labeler.label_sync(["claim"], [Document(id="d", text="text")])
    pair = result.pairs[0][0]
    assert pair.label is None and pair.error == CUT_OFF and pair.raw


def test_a_cut_off_claim_list_is_no_decomposition() -> None:
    reply = "Claims:\nThe sky is blue.\nGrass is green.\nWater is wet.\nFire is hot."
    with OpenAICompatServer(replies=[reply], faults=[Fault.truncate()]) as s:
        result = LLMDecomposer(model_for(s)).decompose_sync("Some report.")
    assert result.claims == [] and result.error == CUT_OFF


def test_a_cut_off_judge_reply_is_a_parse_failure() -> None:
    reply = "evaluation: correct\n" + "and then the judge went on " * 6
    with OpenAICompatServer(replies=[reply], faults=[Fault.truncate()]) as s:
        judge = Judge(model_for(s))
        with pytest.raises(ParseFailure) as info:
            judge.grade_sync("q?", ["a"], "a")
    assert info.value.reason == CUT_OFF
