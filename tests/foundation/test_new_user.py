"""What a new user trips over: stale checkpoints, bare model names, missing keys, reports.

Every test here failed before the fixes it checks (issue 15, and item 4 of issue 16).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conflicteval import get_model, run_batch_sync
from conflicteval.cli import main
from conflicteval.errors import BatchAborted, CheckpointMismatch, UsageError
from conflicteval.runs import meta_path, read_checkpoint, read_identity
from conflicteval.testing import Fault, OpenAICompatServer

LABELS = json.dumps(
    {"labels": [{"index": 1, "answer": "SUPPORTS"}, {"index": 2, "answer": "CONTRADICTS"}]}
)


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _score_items(path: Path, n: int = 3) -> Path:
    rows = [
        {
            "id": f"q{k}",
            "response": "The canal opened in 1847. It is 38 kilometres long.",
            "documents": [
                {"id": "d1", "text": "The canal opened in 1847 and is 38 kilometres long."},
                {"id": "d2", "text": "The canal opened in 1851."},
            ],
        }
        for k in range(n)
    ]
    return _jsonl(path, rows)


# ----------------------------------------------------------------- 15.1 / 16.4 identity


def test_score_refuses_a_checkpoint_made_by_another_labeler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inp = _score_items(tmp_path / "items.jsonl")
    out = tmp_path / "out"
    assert main(["score", "--input", str(inp), "--out", str(out)]) == 0  # lexical
    capsys.readouterr()
    with OpenAICompatServer(replies=[LABELS]) as server:
        model_args = [
            "--model",
            "openai/m",
            "--base-url",
            server.base_url,
            "--decomposer",
            "sentence",
            "--labeler",
            "llm-per-document",
        ]
        assert main(["score", "--input", str(inp), "--out", str(out), *model_args]) == 2
        err = capsys.readouterr().err
        assert str(out / "checkpoint.jsonl") in err and "labeler" in err and "--restart" in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
        assert server.completions() == []  # refused before any call
        # --restart starts over and keeps the old checkpoint aside
        args = ["score", "--input", str(inp), "--out", str(out), *model_args, "--restart"]
        assert main(args) == 0
        assert len(server.completions()) == 6  # 3 responses x 2 documents... per document: 2
        text = capsys.readouterr().out
        assert "resumed" not in text
    old = read_checkpoint(out / "checkpoint.jsonl.old")
    new = read_checkpoint(out / "checkpoint.jsonl")
    assert old["q0"].result["labeler"] == "lexical"
    assert new["q0"].result["labeler"] == "llm-per-document"
    assert read_identity(out / "checkpoint.jsonl")["labeler"]["labeler"] == "llm-per-document"


def test_detect_refuses_a_checkpoint_made_by_another_labeler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = {
        "id": "x:1",
        "source": "conflictingqa",
        "question": "When did the canal open?",
        "claim": "The canal opened in 1847.",
        "documents": [
            {"id": "a", "text": "The canal opened in 1847.", "gold": "SUPPORTS"},
            {"id": "b", "text": "The canal opened in 1851.", "gold": "CONTRADICTS"},
        ],
        "conflict": True,
    }
    items = _jsonl(tmp_path / "bench.jsonl", [item])
    out = tmp_path / "det"
    assert main(["conflictbench", "detect", "--items", str(items), "--out", str(out)]) == 0
    capsys.readouterr()
    with OpenAICompatServer(replies=[json.dumps({"answer": "SUPPORTS"})]) as server:
        args = ["conflictbench", "detect", "--items", str(items), "--out", str(out)]
        args += ["--model", "openai/m", "--base-url", server.base_url]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert "checkpoint.jsonl" in err and "another configuration" in err
        assert server.completions() == []


def _model_batch(ck: Path, server: OpenAICompatServer, **settings: Any) -> Any:
    model = get_model("openai/m", base_url=server.base_url, cache=False)
    from conflicteval.runs.identity import describe

    async def work(item: str) -> str:
        return (await model.generate(item, **settings)).text

    identity = {"model": describe(model), "settings": settings}
    return run_batch_sync(work, ["a", "b"], key=str, checkpoint=ck, identity=identity)


@pytest.mark.parametrize(
    "change", [{"temperature": 0.7}, {"max_tokens": 10}, {"seed": 1}, "base_url"]
)
def test_every_setting_that_changes_the_answer_is_part_of_the_identity(
    tmp_path: Path, change: Any
) -> None:
    ck = tmp_path / "ck.jsonl"
    with OpenAICompatServer() as one, OpenAICompatServer() as two:
        base = {"temperature": 0.0, "max_tokens": 50, "seed": 5}
        assert _model_batch(ck, one, **base).counts["ok"] == 2
        assert _model_batch(ck, one, **base).resumed == 2  # same identity: resumed
        if change == "base_url":
            server, settings = two, base
        else:
            server, settings = one, {**base, **change}
        with pytest.raises(CheckpointMismatch) as info:
            _model_batch(ck, server, **settings)
        field = "model.base_url" if change == "base_url" else f"settings.{next(iter(change))}"
        assert field in str(info.value) and str(ck) in str(info.value)
        assert [f for f, _, _ in info.value.differences] == [field]


def test_score_many_records_its_identity_and_restart_moves_the_old_run_aside(
    tmp_path: Path,
) -> None:
    from conflicteval.conflictscore import ConflictScorer, LLMLabeler, SentenceDecomposer

    items = [{"id": "r", "response": "It opened in 1847.", "documents": ["It opened in 1847."]}]
    ck = tmp_path / "ck.jsonl"
    reply = json.dumps({"answer": "SUPPORTS"})
    with OpenAICompatServer(replies=[reply]) as server:
        model = get_model("openai/m", base_url=server.base_url, cache=False)
        ConflictScorer(SentenceDecomposer(), LLMLabeler(model)).score_many(items, checkpoint=ck)
        hotter = ConflictScorer(SentenceDecomposer(), LLMLabeler(model, temperature=1.0))
        with pytest.raises(CheckpointMismatch, match=r"labeler\.temperature"):
            hotter.score_many(items, checkpoint=ck)
        result = hotter.score_many(items, checkpoint=ck, restart=True)
    assert result.resumed == 0 and result.counts["ok"] == 1
    assert (tmp_path / "ck.jsonl.old").exists() and meta_path(tmp_path / "ck.jsonl.old").exists()
    assert read_identity(ck)["labeler"]["temperature"] == 1.0


def test_generate_may_add_models_but_not_move_one_to_another_server(
    tmp_path: Path, wc_csv: Path
) -> None:
    from conflicteval.wikicontradict import load_wikicontradict
    from conflicteval.wikicontradict.generate import generate_sync

    instances = load_wikicontradict(wc_csv)[:2]
    run = tmp_path / "run"
    with OpenAICompatServer() as one, OpenAICompatServer() as two:
        a = get_model("openai/a", base_url=one.base_url, cache=False)
        b = get_model("openai/b", base_url=one.base_url, cache=False)
        assert generate_sync(instances, ["1"], [a], run).counts["ok"] == 2
        # another model in the same run directory: its rows are its own
        assert generate_sync(instances, ["1"], [a, b], run).resumed == 2
        moved = get_model("openai/a", base_url=two.base_url, cache=False)
        with pytest.raises(CheckpointMismatch, match=r"models\.openai/a\.base_url"):
            generate_sync(instances, ["1"], [moved], run)
        assert two.completions() == []


@pytest.fixture()
def wc_csv(shared_data: Path) -> Path:
    return shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"


def test_lock_files_are_removed_after_a_run(tmp_path: Path) -> None:
    async def work(item: str) -> str:
        return item

    ck = tmp_path / "ck.jsonl"
    run_batch_sync(work, ["a", "b"], key=str, checkpoint=ck)
    assert not (tmp_path / "ck.jsonl.lock").exists()
    run_batch_sync(work, ["a", "b", "c"], key=str, checkpoint=ck)  # the lock is taken again
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck.jsonl"]  # no lock, no identity
    assert len(read_checkpoint(ck)) == 3


# ----------------------------------------------------------------- 15.2 model specs


def test_a_bare_model_name_means_the_openai_provider() -> None:
    model = get_model("gpt-4o-mini", base_url="http://127.0.0.1:9/v1", cache=False)
    assert model.name == "openai/gpt-4o-mini"
    assert get_model("scripted").name.startswith("scripted")


def test_an_unknown_provider_is_one_plain_line_listing_the_accepted_forms(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with pytest.raises(UsageError, match="accepted forms: 'openai/<model>'"):
        get_model("meta-llama/Llama-3-8B")
    docs = _jsonl(tmp_path / "docs.jsonl", ["The canal opened in 1847."])
    resp = tmp_path / "r.txt"
    resp.write_text("The canal opened in 1847.", encoding="utf-8")
    argv = ["score", "--response", str(resp), "--documents", str(docs), "--model", "nope/x"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown model provider 'nope'") and "openai/<model>" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ----------------------------------------------------------------- 15.3 keys


def test_no_key_for_openais_api_stops_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from conflicteval.models import core

    # any retry would wait 120 s: ending well before one wait could pass proves there was
    # none, however loaded the machine is
    monkeypatch.setattr(core.Model, "_wait", lambda self, state: 120.0)
    inp = _score_items(tmp_path / "items.jsonl", n=5)
    start = time.monotonic()
    argv = ["score", "--input", str(inp), "--out", str(tmp_path / "o"), "--model", "gpt-4o-mini"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and len(err.strip().splitlines()) == 1
    # the library path: the batch stops at the first item, no placeholder key is sent
    model = get_model("gpt-4o-mini", cache=False, max_attempts=6)

    async def work(item: str) -> str:
        return (await model.generate(item)).text

    with pytest.raises(BatchAborted, match="OPENAI_API_KEY"):
        run_batch_sync(work, [str(i) for i in range(5)], key=str, checkpoint=tmp_path / "ck")
    assert read_checkpoint(tmp_path / "ck") == {}
    assert time.monotonic() - start < 100  # no retries against an unreachable API


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_stops_the_batch_at_the_first_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], status: int
) -> None:
    item = {
        "id": "x:1",
        "source": "conflictingqa",
        "question": "q",
        "claim": "The canal opened in 1847.",
        "documents": [{"id": "a", "text": "The canal opened in 1847.", "gold": "SUPPORTS"}],
        "conflict": False,
    }
    items = _jsonl(tmp_path / "bench.jsonl", [{**item, "id": f"x:{k}"} for k in range(6)])
    with OpenAICompatServer(faults=lambda n, body: Fault.status_code(status)) as server:
        argv = ["conflictbench", "detect", "--items", str(items), "--out", str(tmp_path / "d")]
        argv += ["--model", "openai/m", "--base-url", server.base_url, "--concurrency", "1"]
        assert main(argv) == 2
        assert len(server.completions()) == 1  # not retried, and no further item was tried
    err = capsys.readouterr().err
    assert f"HTTP {status}" in err and "OPENAI_API_KEY" in err
    # nothing was written as a failure: a re-run with a working key does every item
    assert read_checkpoint(tmp_path / "d" / "checkpoint.jsonl") == {}


# ----------------------------------------------------------------- 15.4 failure reports


def test_score_with_every_pair_failed_says_why_and_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _jsonl(tmp_path / "docs.jsonl", [{"id": "d1", "text": "x"}, {"id": "d2", "text": "y"}])
    resp = tmp_path / "r.txt"
    resp.write_text("The canal opened in 1847. It is long.", encoding="utf-8")
    with OpenAICompatServer(replies=["no idea"]) as server:
        argv = ["score", "--response", str(resp), "--documents", str(docs), "--model", "openai/m"]
        argv += ["--base-url", server.base_url, "--decomposer", "sentence", "--no-cache"]
        assert main(argv) == 1
    out = capsys.readouterr().out
    assert "failed pairs: 4 of 4" in out and "nothing could be scored" in out
    assert "(e.g. claim 1 x d1)" in out  # a reason, with an example pair named by its id


def test_detect_with_every_item_failed_shows_reasons_and_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = {
        "id": "x:1",
        "source": "conflictingqa",
        "question": "q",
        "claim": "c",
        "documents": [{"id": "a", "text": "t", "gold": "SUPPORTS"}],
        "conflict": False,
    }
    items = _jsonl(tmp_path / "bench.jsonl", [item, {**item, "id": "x:2"}])
    with OpenAICompatServer(replies=["gibberish"]) as server:
        argv = ["conflictbench", "detect", "--items", str(items), "--out", str(tmp_path / "d")]
        argv += ["--model", "openai/m", "--base-url", server.base_url, "--no-cache"]
        argv += ["--max-attempts", "1"]
        assert main(argv) == 1
    out = capsys.readouterr().out
    assert "2 items: 0 ok, 2 failed" in out
    assert "2 x parse_error" in out and "(e.g. x:1)" in out
    assert "nothing could be scored" in out


def test_the_llm_decomposer_refuses_a_reply_that_is_no_claims_list() -> None:
    from conflicteval.conflictscore import LLMDecomposer

    model = get_model("scripted", replies=["OK", "Claims: The canal opened in 1847."])
    dec = LLMDecomposer(model)
    bad = dec.decompose_sync("The canal opened in 1847.")
    assert bad.claims == [] and "not a claims list" in (bad.error or "") and bad.raw == "OK"
    good = dec.decompose_sync("The canal opened in 1847.")
    assert good.claims == ["The canal opened in 1847."]


# ----------------------------------------------------------------- 15.9 small things


def test_every_model_calling_command_takes_the_same_model_options() -> None:
    from conflicteval.cli import build_parser

    parser = build_parser()
    commands = [
        ["demo"],
        ["score"],
        ["conflictbench", "build"],
        ["conflictbench", "detect"],
        ["reports"],
        ["regenerate"],
        ["wikicontradict", "generate"],
        ["wikicontradict", "judge"],
        ["wikicontradict", "calibrate"],
        ["feverous", "verify"],
    ]
    for path in commands:
        sub = _subparser(parser, path)
        options = {o for a in sub._actions for o in a.option_strings}
        for name in ("--base-url", "--timeout", "--max-attempts", "--no-cache", "--concurrency"):
            assert name in options, (path, name)
        assert "--quiet" in options or path == ["demo"], path
        for action in sub._actions:
            assert action.help, (path, action.option_strings)
            if "--model" in action.option_strings:
                assert action.metavar in ("SPEC", "[NAME=]SPEC", "SPEC|lexical"), path


def test_every_option_of_every_command_has_help_text() -> None:
    import argparse

    from conflicteval.cli import build_parser

    missing = []

    def walk(parser: Any, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])
            elif not action.help:
                missing.append((path, action.option_strings or action.dest))

    walk(build_parser(), [])
    assert missing == []


def test_ray_options_without_the_ray_executor_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.cli import main

    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a", "response": "x.", "documents": ["x."]}\n', encoding="utf-8")
    args = ["score", "--input", str(items), "--out", str(tmp_path / "run"), "--quiet"]
    assert main([*args, "--ray-actors", "2", "--ray-gpus-per-actor", "1"]) == 2
    assert "--ray-actors, --ray-gpus-per-actor only apply with --executor ray" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "run" / "checkpoint.jsonl").exists()  # refused before any item
    assert main(args) == 0


def test_every_command_help_says_what_the_command_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import argparse

    from conflicteval.cli import build_parser

    bare = []

    def walk(parser: Any, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    if not sub.description:
                        bare.append([*path, name])
                    walk(sub, [*path, name])

    walk(build_parser(), [])
    assert bare == []
    with pytest.raises(SystemExit):
        build_parser().parse_args(["wikicontradict", "stats", "--help"])
    assert "Table 1 counts of a data file." in capsys.readouterr().out


def _subparser(parser: Any, path: list[str]) -> Any:
    import argparse

    for name in path:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[name]
    return parser


def test_timeout_and_max_attempts_reach_the_model() -> None:
    from conflicteval.cli import build_parser
    from conflicteval.cli.common import model_from_args

    parser = build_parser()
    args = parser.parse_args(
        [
            *("score", "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1"),
            *("--timeout", "7.5", "--max-attempts", "2", "--no-cache"),
        ]
    )
    model = model_from_args(args)
    assert (model.timeout, model.max_attempts, model.cache) == (7.5, 2, None)
    assert model.provider.base_url == "http://127.0.0.1:9/v1"
    with pytest.raises(SystemExit):
        parser.parse_args(["score", "--timeout", "0"])


def test_the_test_server_module_runs_without_a_runpy_warning() -> None:
    code = (
        "import runpy, sys, warnings; warnings.simplefilter('error');"
        "sys.argv = ['server', '--help'];"
        "runpy.run_module('conflicteval.testing.server', run_name='__main__')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "RuntimeWarning" not in out.stderr, out.stderr[-2000:]


def test_feverous_score_without_gold_names_the_missing_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pred = _jsonl(
        tmp_path / "pred.jsonl", [{"predicted_label": "SUPPORTS", "predicted_evidence": []}]
    )
    assert main(["feverous", "score", "--pred", str(pred)]) == 2
    err = capsys.readouterr().err
    assert "--gold" in err and str(pred) in err and "row 1" in err


def test_progress_bar_without_ipywidgets_is_the_plain_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    import tqdm.std

    from conflicteval.runs import progress

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "ipywidgets" else real(name, *a),
    )
    assert progress._tqdm_class() is tqdm.std.tqdm


def test_wikicontradict_report_with_every_judgement_failed_exits_non_zero(
    tmp_path: Path, wc_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = str(tmp_path / "run")
    with OpenAICompatServer(replies=["no verdict here"]) as server:
        common = ["--base-url", server.base_url, "--quiet", "--no-cache"]
        gen = ["wikicontradict", "generate", "--data", str(wc_csv), "--model", "openai/t"]
        assert main([*gen, "--templates", "1", "--limit", "2", "--out", run, *common]) == 0
        judge = ["wikicontradict", "judge", "--run", run, "--model", "openai/j", *common]
        assert main(judge) == 1
    capsys.readouterr()
    assert main(["wikicontradict", "report", "--run", run]) == 1
    err = capsys.readouterr().err
    assert "2 generated rows: 0 ok, 2 failed" in err and "judge failed" in err
    assert "nothing could be scored" in err


def test_an_unknown_template_is_one_line_not_a_traceback(
    wc_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["wikicontradict", "generate", "--data", str(wc_csv), "--templates", "9"]
    argv += ["--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1"]
    assert main([*argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "\nerror: unknown template '9'; available: 1, 2" in err and "Traceback" not in err


def test_batch_report_groups_reasons_and_names_an_example() -> None:
    from conflicteval.runs import BatchResult, Record

    records = [Record(id="a", status="ok")]
    records += [
        Record(id=f"t{k}", status="model_error", error=f"HTTP 500 on try {k}") for k in range(3)
    ]
    records.append(Record(id="p", status="parse_error", error="no label in 'xyz'"))
    text = BatchResult(records=records).report("claims")
    lines = text.splitlines()
    assert lines[0] == "5 claims: 1 ok, 4 failed (1 parse errors, 3 model errors)"
    assert lines[1] == "  3 x model_error: HTTP 500 on try 0  (e.g. t0)"
    assert lines[2] == "  1 x parse_error: no label in 'xyz'  (e.g. p)"
    assert lines[3].startswith("this run: 0 model calls")
