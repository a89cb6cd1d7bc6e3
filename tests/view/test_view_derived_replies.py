"""FEVEROUS and labeler-bench pages read their derived ``records.jsonl``; each item also
shows the model replies its checkpoint record kept (joined by id)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.view import load_run, render_report

from .test_view_contract import _ramdocs_data


def _label(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    answer = "CONTRADICTS" if "Harrier Shing" in prompt or "1850" in prompt else "SUPPORTS"
    return json.dumps({"answer": answer, "document_snippet": "x", "reasoning": "<i>why</i>"})


def _model(server: Any, model: str) -> list[str]:
    return ["--model", model, "--base-url", server.base_url, "--quiet"]


def _replies(run: Any, model: str) -> dict[str, list[list[Any]]]:
    out = {}
    for it in run.items:
        assert it.get("calls"), f"item {it['id']} shows no reply"
        assert all(c[0] == model and '"answer"' in c[1] for c in it["calls"])
        out[it["id"]] = it["calls"]
    return out


def test_a_feverous_item_shows_its_labelers_replies(
    tmp_path: Path, shared_data: Path, openai_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("conflicteval.conflictscore")
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    claims = shared_data / "feverous" / "feverous_s_dev_first5.json"
    if not claims.exists():
        pytest.skip(f"{claims} not found")
    openai_server.set_replies(_label)
    out = tmp_path / "fev"
    argv = ["feverous", "verify", "--claims", str(claims), "--limit", "2", "--out", str(out)]
    assert main([*argv, *_model(openai_server, "openai/test")]) == 0
    run = load_run(out)
    assert run.kind == "feverous" and len(run.items) == 2
    replies = _replies(run, "openai/test")
    # one call per claim x evidence pair: as many replies as the pair labels the row lists
    for it in run.items:
        pairs = next(v for k, v in it["fields"] if k == "pair labels").split()
        assert len(replies[it["id"]]) == len(pairs)
    assert '"<i>why</i>"' not in render_report(out)  # replies are data, escaped in the page


@pytest.fixture()
def bench_run(tmp_path: Path, openai_server: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A labeler-bench run (LLM labeler on the local test server, three RAMDocs items)."""
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    openai_server.set_replies(_label)
    out = tmp_path / "bench"
    argv = ["bench", "labeler", "--gold", "ramdocs", "--data", str(_ramdocs_data(tmp_path))]
    argv += ["--labeler", "llm", "--no-save", "--out", str(out)]
    assert main([*argv, *_model(openai_server, "openai/test-model")]) == 0
    return out


def test_a_labeler_bench_item_shows_its_labelers_replies(bench_run: Path) -> None:
    run = load_run(bench_run)
    assert run.kind == "bench" and len(run.items) == 3
    replies = _replies(run, "openai/test-model")
    assert all(len(calls) == 2 for calls in replies.values())  # one call per document
    assert any("CONTRADICTS" in c[1] for calls in replies.values() for c in calls)


def test_a_derived_run_without_its_checkpoint_shows_its_rows_without_replies(
    bench_run: Path,
) -> None:
    (bench_run / "checkpoint.jsonl").unlink()
    run = load_run(bench_run)
    assert len(run.items) == 3 and not any("calls" in it for it in run.items)
