"""The StrategyQA sample end to end against the local test server: run, resume, report,
elicited memory, batch export and dry run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.conflictqa import conflictqa_report
from conflicteval.testing import OpenAICompatServer

SAMPLE = "conflictQA-strategyQA-chatgpt_first30.json"


@pytest.fixture()
def sample(shared_data: Path) -> Path:
    return shared_data / "conflictqa" / SAMPLE


def _cli(srv: OpenAICompatServer, *args: str) -> int:
    return main(
        ["conflictqa", *args, "--model", "openai/test-model", "--base-url", srv.base_url, "--quiet"]
    )


def _reply_by_memory(items_memory: set[str]) -> Any:
    def fn(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("The first paragaph answers"):
            return "True.\n\nMY OWN EVIDENCE: it is so."
        if " and your knowledge" in prompt:
            return "A"
        first = prompt.split("Information: \n1. ", 1)[1].split("\n2. ", 1)[0]
        if first in items_memory or first.startswith("MY OWN EVIDENCE"):
            return "B."
        return "I cannot tell which one is right."

    return fn


def test_release_memory_run_resume_and_report(
    tmp_path: Path, sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    rows = [json.loads(line) for line in sample.read_text().splitlines()]
    memories = {r["parametric_memory"] for r in rows}
    out = tmp_path / "run"
    with OpenAICompatServer(_reply_by_memory(memories)) as srv:
        assert _cli(srv, "run", "--data", str(sample), "--out", str(out)) == 0
        calls = len(srv.completions())
        assert calls == 29 * 3  # one sample item's polarity cannot be read: no call for it
        assert _cli(srv, "run", "--data", str(sample), "--out", str(out)) == 0
        assert len(srv.completions()) == calls  # resumed: no call
    rep = conflictqa_report(out)
    assert rep["questions"] == 30 and rep["left_out"]["polarity_unknown"] == 1
    counter = rep["experiments_scored"]["counter"]
    # "A" is True: the memory answer for the 8 True-memory items, the counter answer for 21
    assert counter["counts"] == {"memory": 8, "counter": 21, "uncertain": 0, "unreadable": 0}
    assert counter["memorization_ratio"]["value"] == pytest.approx(8 / 29)
    low, high = counter["memorization_ratio"]["ci"]
    assert low < 8 / 29 < high
    mc = rep["experiments_scored"]["memory-counter"]  # "B." is False: memory for 21 items
    assert mc["counts"]["memory"] == 21 and mc["counts"]["counter"] == 8
    cm = rep["experiments_scored"]["counter-memory"]  # unreadable replies: counted, no ratio
    assert cm["counts"]["unreadable"] == 29 and cm["memorization_ratio"]["value"] is None
    assert cm["shares"]["unreadable"]["value"] == 1.0
    capsys.readouterr()
    assert main(["conflictqa", "report", "--run", str(out), "--wide"]) == 0
    text = capsys.readouterr().out
    assert "counter | 29 | 27.6% [" in text and "published: none recovered" in text


def test_elicited_memory_is_the_models_own(
    tmp_path: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with OpenAICompatServer(_reply_by_memory(set())) as srv:
        args = ["run", "--data", str(sample), "--out", str(out), "--memory", "elicit"]
        assert _cli(srv, *args, "--experiments", "counter", "memory-counter") == 0
        prompts = [r.body["messages"][-1]["content"] for r in srv.completions()]
    elicit = [p for p in prompts if p.startswith("The first paragaph answers")]
    assert len(elicit) == 30
    mc = [p for p in prompts if "\n1. MY OWN EVIDENCE: it is so.\n2. " in p]
    assert len(mc) == 29  # the model's own evidence is the memory side
    rep = conflictqa_report(out)
    assert rep["elicited_memory_answers"] == {"True": 30}
    # the model answered True everywhere; "A" (True) is its memory answer in every item
    assert rep["experiments_scored"]["counter"]["counts"]["memory"] == 29
    assert rep["experiments_scored"]["memory-counter"]["counts"]["counter"] == 29


def test_batch_export_rounds_and_dry_run(
    tmp_path: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conflicteval.batch.files import read_requests

    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    req = tmp_path / "batch" / "requests.jsonl"
    run = ["run", "--data", str(sample), "--out", str(tmp_path / "bat"), "--memory", "elicit"]
    with OpenAICompatServer(_reply_by_memory(set())) as srv:
        exported = []
        for n in range(1, 5):
            rc = _cli(srv, *run, "--limit", "3", "--batch-export", str(req))
            if rc == 0:
                break
            assert rc == 3
            exported.append(len(list(read_requests(req))))
            results = tmp_path / "batch" / f"results{n}.jsonl"
            results.write_text(srv.answer_batch_file(req.read_text()))
            assert main(["batch", "import", str(results)]) == 0
        # round 1: the three elicitations; round 2: three experiments for each question but
        # the third, whose file memory's polarity cannot be read (no call for it)
        assert exported == [3, 6]
        assert srv.completions() == []  # no online call
        dry = tmp_path / "dry"
        assert _cli(srv, "run", "--data", str(sample), "--out", str(dry), "--dry-run") == 0
        assert srv.completions() == [] and not dry.exists()  # a dry run calls and writes nothing
    rep = conflictqa_report(tmp_path / "bat")
    assert rep["experiments_scored"]["counter"]["counts"]["memory"] == 2
    assert rep["left_out"]["polarity_unknown"] == 1


def test_an_unreadable_memory_is_counted_and_gets_no_experiment(
    tmp_path: Path, sample: Path
) -> None:
    import asyncio

    from conflicteval import get_model
    from conflicteval.conflictqa import load_conflictqa, run_conflictqa

    model = get_model("scripted", replies=lambda messages: "Hard to say.\n\nIt depends.")
    items = load_conflictqa(sample)[:4]
    asyncio.run(run_conflictqa(items, model, tmp_path / "r", memory="elicit", progress=False))
    assert len(model.provider.requests) == 4  # the elicitations only
    rep = conflictqa_report(tmp_path / "r")
    assert rep["left_out"]["elicitation_unreadable"] == 4
    assert all(m["replies"] == 0 for m in rep["experiments_scored"].values())
    assert rep["experiments_scored"]["counter"]["memorization_ratio"]["value"] is None


def test_multi_source_settings_by_option(
    tmp_path: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with OpenAICompatServer(_reply_by_memory(set())) as srv:
        args = ["run", "--data", str(sample), "--out", str(out), "--limit", "4"]
        assert _cli(srv, *args, "--multi-source") == 0
        prompts = [r.body["messages"][-1]["content"] for r in srv.completions()]
    assert len(prompts) == 3 * 6  # item 2's polarity cannot be read
    multi = [p for p in prompts if "Options:\nA: True\nB: False\nC: Uncertain." in p]
    assert len(multi) == 3 * 3
    assert sum("\n4. " in p for p in multi) == 3  # 2m2c shows all four pieces
    assert set(conflictqa_report(out)["experiments_scored"]) == {
        "counter",
        "memory-counter",
        "counter-memory",
        "2m1c",
        "1m2c",
        "2m2c",
    }


def test_the_viewer_reads_a_conflictqa_run(
    tmp_path: Path, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conflicteval.view import render_report

    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    with OpenAICompatServer(_reply_by_memory(set())) as srv:
        assert _cli(srv, "run", "--data", str(sample), "--out", str(out), "--limit", "5") == 0
    html = render_report(out)
    assert "memorization ratio (counter)" in html
    assert "ConflictQA: which answer each experiment" in html
