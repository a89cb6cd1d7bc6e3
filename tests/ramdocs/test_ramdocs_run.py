"""Resumable method runs, the CLI (run, report, batch export rounds, AmbigDocs) and reports."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.files import read_requests
from conflicteval.cli import main
from conflicteval.errors import CheckpointMismatch
from conflicteval.models import get_model
from conflicteval.ramdocs import load_ramdocs, questions, ramdocs_report, run_method
from conflicteval.testing import OpenAICompatServer


def _doc(text: str, kind: str, answer: str) -> dict[str, str]:
    return {"text": text, "type": kind, "answer": answer}


RECORDS = [
    {
        "question": "What is the population of Broken Bow?",
        "documents": [
            _doc("Broken Bow, Nebraska: the answer is 3559.", "correct", "3559"),
            _doc("Broken Bow, Oklahoma: the answer is 4120.", "correct", "4120"),
            _doc("Broken Bow, Nebraska: the answer is 9999.", "misinfo", "9999"),
        ],
        "disambig_entity": ["Broken Bow, Nebraska", "Broken Bow, Oklahoma"],
        "gold_answers": ["3559", "4120"],
        "wrong_answers": ["9999"],
    },
    {
        "question": "Who founded Acme?",
        "documents": [
            _doc("Acme: the answer is Ann Lee.", "correct", "Ann Lee"),
            _doc("A page about rivers.", "noise", "unknown"),
        ],
        "disambig_entity": ["Acme"],
        "gold_answers": ["Ann Lee"],
        "wrong_answers": [],
    },
]


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "ramdocs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return path


def test_run_resumes_without_repeating_a_call(
    tmp_path: Path, data: Path, madam_replies: Any
) -> None:
    model = get_model("scripted", replies=madam_replies("stable"))
    items = questions(load_ramdocs(data))
    first = asyncio.run(run_method(items, "madam", model, tmp_path / "run", progress=False))
    assert first.counts == {"ok": 2, "parse_error": 0, "model_error": 0, "total": 2}
    calls = len(model.provider.requests)
    assert calls == (2 * 3 + 1) + (2 * 2 + 1)  # both debates stop after round 2
    again = asyncio.run(run_method(items, "madam", model, tmp_path / "run", progress=False))
    assert again.resumed == 2 and len(model.provider.requests) == calls
    rep = ramdocs_report(tmp_path / "run")
    # item 0 lists the misinformation answer 9999 too (the scripted aggregator keeps it)
    assert [i["em"] for i in rep["items"]] == [0, 1]
    assert rep["exact_match"]["value"] == 50.0
    assert rep["published"]["figures"]["GPT-4o-mini"] == 28.00
    with pytest.raises(CheckpointMismatch):  # another method into the same run is refused
        asyncio.run(run_method(items, "rag", model, tmp_path / "run", progress=False))


def test_an_edited_item_is_answered_again_and_only_that_item(
    tmp_path: Path, data: Path, madam_replies: Any
) -> None:
    replies = madam_replies()
    model = get_model("scripted", replies=replies)
    items = questions(load_ramdocs(data))
    asyncio.run(run_method(items, "rag", model, tmp_path / "run", progress=False))
    assert len(replies.prompts) == 2
    edited = [items[0], dataclasses.replace(items[1], rag_prompt=items[1].rag_prompt + " ")]
    again = asyncio.run(run_method(edited, "rag", model, tmp_path / "run", progress=False))
    assert again.resumed == 1 and again.changed == 1
    assert len(replies.prompts) == 3 and replies.prompts[-1] == edited[1].rag_prompt


def test_a_report_says_when_it_counts_more_questions_than_the_last_run_asked(
    tmp_path: Path, data: Path, madam_replies: Any
) -> None:
    """An earlier, larger run into the same directory: its answers are counted, and said so."""
    from conflicteval.ramdocs.report import format_ramdocs

    model = get_model("scripted", replies=madam_replies())
    items = questions(load_ramdocs(data))
    asyncio.run(run_method(items, "rag", model, tmp_path / "run", progress=False))
    assert ramdocs_report(tmp_path / "run")["note"] is None
    asyncio.run(run_method(items[:1], "rag", model, tmp_path / "run", progress=False))
    rep = ramdocs_report(tmp_path / "run")
    assert rep["questions"] == 2 and rep["note"] is not None
    assert "holds 2 questions; the last run into this directory asked 1" in format_ramdocs(rep)


def test_baselines_send_one_prompt_each(tmp_path: Path, data: Path, madam_replies: Any) -> None:
    replies = madam_replies()
    model = get_model("scripted", replies=replies)
    items = questions(load_ramdocs(data))
    asyncio.run(run_method(items, "rag", model, tmp_path / "rag", progress=False))
    assert len(replies.prompts) == 2
    assert "Document 1: Broken Bow, Nebraska" in replies.prompts[0]
    assert ramdocs_report(tmp_path / "rag")["exact_match"]["value"] == 50.0
    asyncio.run(run_method(items, "no-rag", model, tmp_path / "norag", progress=False))
    assert "Document" not in replies.prompts[-1]
    assert "Question: Who founded Acme?" in replies.prompts[-1]


def _cli(srv: OpenAICompatServer, *args: str) -> int:
    return main(
        ["ramdocs", *args, "--model", "openai/test-model", "--base-url", srv.base_url, "--quiet"]
    )


def test_cli_batch_rounds_equal_the_online_run(
    tmp_path: Path,
    data: Path,
    reply_fn: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run = ["run", "--method", "madam", "--data", str(data)]
    with OpenAICompatServer(reply_fn) as srv:
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "online-cache"))
        assert _cli(srv, *run, "--out", str(tmp_path / "online")) == 0
        online_calls = len(srv.completions())
        assert online_calls == 12
        assert _cli(srv, *run, "--out", str(tmp_path / "online")) == 0  # resumed: no call
        assert len(srv.completions()) == online_calls

        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "batch-cache"))
        req = tmp_path / "batch" / "requests.jsonl"
        exported = []
        for n in range(1, 8):
            rc = _cli(srv, *run, "--out", str(tmp_path / "bat"), "--batch-export", str(req))
            if rc == 0:
                break
            assert rc == 3
            exported.append(len(list(read_requests(req))))
            results = tmp_path / "batch" / f"results{n}.jsonl"
            results.write_text(srv.answer_batch_file(req.read_text()))
            assert main(["batch", "import", str(results)]) == 0
        # round 1: the agents; round 2: aggregation 1 beside the round-2 agents; then done
        assert exported == [5, 2 + 5]
        assert len(srv.completions()) == online_calls  # no online call in any batch round
    capsys.readouterr()
    assert main(["ramdocs", "report", "--run", str(tmp_path / "online"), "--json"]) == 0
    online = json.loads(capsys.readouterr().out)
    assert main(["ramdocs", "report", "--run", str(tmp_path / "bat"), "--json"]) == 0
    batch = json.loads(capsys.readouterr().out)
    assert online["items"] == batch["items"]
    assert online["exact_match"]["value"] == 50.0


def test_cli_report_text_with_conflictscore(
    tmp_path: Path, data: Path, reply_fn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAICompatServer(reply_fn) as srv:
        assert (
            _cli(srv, "run", "--method", "rag", "--data", str(data), "--out", str(tmp_path / "r"))
            == 0
        )
    capsys.readouterr()
    rc = main(["ramdocs", "report", "--run", str(tmp_path / "r"), "--conflictscore", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "RAMDocs · method rag · model openai/test-model · 2 questions" in out
    # two questions: a Wilson interval, said to be too small to mean much
    assert "exact match: 50.0% [95% CI 9.5-90.5] (n=2 questions); interval over 2 questions" in out
    assert "Table 1, Prompt-based, EM %): Llama3.3-70B-Inst 32.60" in out
    assert "ConflictScore (sentence decomposer, lexical labeler): CS-C" in out
    assert (tmp_path / "r" / "conflictscore.jsonl").exists()
    with OpenAICompatServer(reply_fn) as srv:
        args = ["run", "--method", "no-rag", "--data", str(data), "--out", str(tmp_path / "n")]
        assert _cli(srv, *args) == 0
    capsys.readouterr()
    runs = ["--run", str(tmp_path / "r"), "--run", str(tmp_path / "n")]
    assert main(["ramdocs", "report", *runs, "--conflictscore", "--quiet", "--wide"]) == 0
    table = capsys.readouterr().out.split("| benchmark | method |", 1)[1].splitlines()
    assert table[2].startswith("| ramdocs | rag | openai/test-model | 2 | EM 50.0 [9.5, 90.5] |")
    assert table[2].endswith("| 32.60 / 20.60 / 25.00 |")
    # 0 of 2 right: the interval no longer collapses to [0.0, 0.0]
    assert table[3].startswith("| ramdocs | no-rag | openai/test-model | 2 | EM 0.0 [0.0, 65.8] |")


def test_cli_runs_ambigdocs_through_its_loader(
    tmp_path: Path, reply_fn: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    record = {
        "qid": 7,
        "ambiguous_entity": "Cleveland",
        "question": "What is the population of Cleveland?",
        "documents": [
            {
                "title": "Cleveland, Ohio",
                "text": "Ohio: the answer is 372624.",
                "pid": "p1",
                "answer": "372624",
            },
            {
                "title": "Cleveland, Texas",
                "text": "Texas: the answer is 7675.",
                "pid": "p2",
                "answer": "7675",
            },
        ],
    }
    path = tmp_path / "ambigdocs.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    with OpenAICompatServer(reply_fn) as srv:
        rc = _cli(
            srv,
            "run",
            "--dataset",
            "ambigdocs",
            "--data",
            str(path),
            "--method",
            "madam",
            "--out",
            str(tmp_path / "a"),
        )
    assert rc == 0
    capsys.readouterr()
    assert main(["ramdocs", "report", "--run", str(tmp_path / "a"), "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["benchmark"] == "ambigdocs" and rep["exact_match"]["value"] == 100.0
    assert rep["published"]["figures"]["Qwen2.5-72B-Inst"] == 52.70


def test_cli_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "Q", "documents": [], "gold_answers": ["a"]}\n')
    rc = main(
        [
            "ramdocs",
            "run",
            "--method",
            "rag",
            "--model",
            "scripted",
            "--data",
            str(bad),
            "--out",
            str(tmp_path / "o"),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2 and str(bad) in err and "documents" in err and "Traceback" not in err
    assert main(["ramdocs", "report", "--run", str(tmp_path / "nothing")]) == 2


def test_real_sample_runs_offline(shared_data: Path, tmp_path: Path, madam_replies: Any) -> None:
    items = questions(load_ramdocs(shared_data / "ramdocs" / "RAMDocs_test_first30.jsonl"))[:3]
    model = get_model("scripted", replies=madam_replies("stable"))
    result = asyncio.run(run_method(items, "madam", model, tmp_path / "s", progress=False))
    assert result.counts["ok"] == 3
    docs = sum(len(i.documents) for i in items)
    assert len(model.provider.requests) == 2 * docs + 3  # every debate stops after round 2


@pytest.mark.slow
def test_cli_madam_on_ray_matches_the_local_run(
    tmp_path: Path, data: Path, reply_fn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray", reason="needs the ray extra")
    monkeypatch.setenv("RAY_DISABLE_USAGE_STATS", "1")
    run = ["run", "--method", "madam", "--data", str(data)]
    with OpenAICompatServer(reply_fn) as srv:
        assert _cli(srv, *run, "--out", str(tmp_path / "local"), "--no-cache") == 0
        ray = ["--executor", "ray", "--ray-num-cpus", "1", "--ray-actors", "1"]
        assert _cli(srv, *run, "--out", str(tmp_path / "ray"), "--no-cache", *ray) == 0
        assert len(srv.completions()) == 2 * 12
    local = ramdocs_report(tmp_path / "local")
    on_ray = ramdocs_report(tmp_path / "ray")
    assert local["items"] == on_ray["items"]


def test_sync_entry_point(tmp_path: Path, data: Path, madam_replies: Any) -> None:
    from conflicteval.ramdocs import run_method_sync

    model = get_model("scripted", replies=madam_replies("stable"))
    result = run_method_sync(questions(load_ramdocs(data)), "no-rag", model, tmp_path / "n")
    assert result.counts["ok"] == 2 and len(model.provider.requests) == 2


def test_conflictscore_counts_an_answer_without_documents(tmp_path: Path) -> None:
    """An answered question without documents cannot be scored: it is counted, not dropped."""
    from conflicteval._sync import run_sync
    from conflicteval.conflictscore import ConflictScorer
    from conflicteval.ramdocs.conflict import conflict_scores, format_conflict
    from conflicteval.runs import Record

    records = [
        Record(
            id="1",
            status="ok",
            result={"output": "It opened in 1932.", "documents": ["It opened in 1932."]},
        ),
        Record(id="2", status="ok", result={"output": "It opened in 1934.", "documents": []}),
    ]
    cs = run_sync(conflict_scores(tmp_path, records, ConflictScorer(), progress=False))
    assert cs["counts"]["total"] == 2 and cs["counts"]["no_documents"] == 1
    assert "1 of 2 responses scored" in format_conflict(cs)
    assert "1 without documents" in format_conflict(cs)


@pytest.mark.parametrize("field", ["method", "benchmark", "model"])
def test_a_run_description_edited_into_another_shape_is_one_line(
    tmp_path: Path, data: Path, madam_replies: Any, field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    model = get_model("scripted", replies=madam_replies())
    asyncio.run(run_method(questions(load_ramdocs(data)), "rag", model, tmp_path / "r"))
    info = json.loads((tmp_path / "r" / "run.json").read_text(encoding="utf-8"))
    info[field] = ["rag"]
    (tmp_path / "r" / "run.json").write_text(json.dumps(info), encoding="utf-8")
    assert main(["ramdocs", "report", "--run", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "run.json" in err and field in err
