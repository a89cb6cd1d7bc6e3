"""`conflicteval demo` and `conflicteval score`, offline and against the local server."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.conflictscore.demo import load_demo_items, run_demo


def test_demo_subprocess_runs_offline_in_seconds(tmp_path: Path) -> None:
    env = {"PATH": "", "HOME": str(tmp_path), "CONFLICTEVAL_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "conflicteval", "demo"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for title in (
        "Takes a side despite conflicting documents",
        "Hedges correctly",
        "Documents that agree",
    ):
        assert title in out
    assert "CS-C 0.33 (1 of 3 claims conflicted)   CS-R 0.17" in out
    assert out.count("CS-C 0.00") == 2
    assert "--model openai/" in out and "--base-url" in out


def test_run_demo_scores_the_three_kinds() -> None:
    buf = io.StringIO()
    assert run_demo(out=buf) == 0
    text = buf.getvalue()
    assert re.findall(r"CS-C (\d\.\d\d) \(", text) == ["0.33", "0.00", "0.00"]
    assert re.findall(r"CS-R (\d\.\d\d) \(", text) == ["0.17", "0.00", "0.00"]
    items = load_demo_items()
    assert [it["id"] for it in items] == ["takes-a-side", "hedges", "documents-agree"]


def test_run_demo_with_an_llm_uses_the_paper_prompts(openai_server: Any) -> None:
    def reply(body: dict[str, Any]) -> str:
        prompt = body["messages"][0]["content"]
        if prompt.startswith("Instruction: Break down"):
            return "Claims:\n- A claim."
        return json.dumps(
            {
                "claim": "A claim.",
                "document_snippet": "s",
                "reasoning": "r",
                "answer": "CONTRADICTS" if "1851" in prompt else "SUPPORTS",
            }
        )

    openai_server.set_replies(reply)
    buf = io.StringIO()
    status = run_demo(model="openai/demo-model", base_url=openai_server.base_url, out=buf)
    assert status == 0
    text = buf.getvalue()
    # three responses: 1 decomposition + 3 documents each; the second response repeats the
    # first one's three label prompts (same claim, same documents): served by the cache
    assert "12 model calls (3 from cache)" in text
    assert len(openai_server.completions()) == 9
    assert text.count("CS-C 1.00") == 2 and text.count("CS-C 0.00") == 1


def test_run_demo_whose_replies_cannot_be_read_exits_1(openai_server: Any) -> None:
    openai_server.set_replies(["OK"])  # no claims list: nothing can be scored
    buf = io.StringIO()
    status = run_demo(model="openai/demo-model", base_url=openai_server.base_url, out=buf)
    assert buf.getvalue().count("not scored: the decomposition reply") == 3
    assert status == 1


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_score_one_response_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    item = load_demo_items()[0]
    response = tmp_path / "response.txt"
    response.write_text(item["response"], encoding="utf-8")
    docs = _write(tmp_path / "docs.jsonl", item["documents"])
    assert main(["score", "--response", str(response), "--documents", str(docs)]) == 0
    out = capsys.readouterr().out
    assert "CS-C 0.33" in out and "0 model calls" in out
    assert main(["score", "--response", str(response), "--documents", str(docs), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cs_c"] == pytest.approx(1 / 3) and data["labeler"] == "lexical"
    assert data["labels"][0][1]["label"] == "CONTRADICTS"


def test_score_reads_stdin_and_plain_string_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _write(
        tmp_path / "docs.jsonl", ["The bridge opened in 1932.", "The bridge opened in 1936."]
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO("The bridge opened in 1932."))
    assert (
        main(["score", "--response", "-", "--documents", str(docs), "--decomposer", "whole"]) == 0
    )
    assert "CS-C 1.00" in capsys.readouterr().out


def test_score_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score"]) == 2
    docs = _write(tmp_path / "docs.jsonl", ["x"])
    assert (
        main(["score", "--response", str(docs), "--documents", str(docs), "--labeler", "llm"]) == 2
    )
    assert "need --model" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\nnot json\n', encoding="utf-8")
    assert main(["score", "--response", str(docs), "--documents", str(bad)]) == 2
    assert "row 2" in capsys.readouterr().err


def test_score_batch_offline_writes_scores_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [
        {"id": it["id"], "response": it["response"], "documents": it["documents"]}
        for it in load_demo_items()
    ]
    items.append({"id": "empty", "response": "   ", "documents": ["x"]})
    inp = _write(tmp_path / "items.jsonl", items)
    out = tmp_path / "out"
    assert main(["score", "--input", str(inp), "--out", str(out)]) == 1  # one item failed
    text = capsys.readouterr().out
    assert "4 responses: 3 ok, 1 failed (1 parse errors, 0 model errors)" in text
    assert "1 x parse_error: no sentence in response  (e.g. empty)" in text
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["ok", "ok", "ok", "parse_error"]
    assert rows[0]["cs_c"] == pytest.approx(1 / 3)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mean_cs_c"] == pytest.approx(1 / 9)
    assert summary["counts"]["failed"]["parse"] == 1  # the run contract's counts
    assert main(["score", "--input", str(inp), "--out", str(out), "--dry-run"]) == 0
    assert "no model calls" in capsys.readouterr().out


def test_score_batch_with_model_resumes_and_counts_tokens(
    tmp_path: Path, openai_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_server.set_replies(
        lambda body: json.dumps(
            {"labels": [{"index": 1, "answer": "SUPPORTS"}, {"index": 2, "answer": "CONTRADICTS"}]}
        )
    )
    rows = [
        {
            "id": f"q{k}",
            "response": "One claim here. Another claim here.",
            "documents": ["first document", "second document"],
        }
        for k in range(2)
    ]
    inp = _write(tmp_path / "items.jsonl", rows)
    args = [
        "score",
        "--input",
        str(inp),
        "--out",
        str(tmp_path / "o"),
        "--model",
        "openai/m",
        "--base-url",
        openai_server.base_url,
        "--decomposer",
        "sentence",
        "--labeler",
        "llm-per-document",
    ]
    assert main([*args, "--dry-run"]) == 0
    assert "4 model calls" in capsys.readouterr().out
    assert openai_server.completions() == []
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "2 responses: 2 ok, 0 failed" in text and "4 model calls" in text and "prompt" in text
    assert len(openai_server.completions()) == 4
    assert main(args) == 0
    assert "2 resumed from the checkpoint" in capsys.readouterr().out
    assert len(openai_server.completions()) == 4
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    # every document call says claim 1 SUPPORTS, claim 2 CONTRADICTS: no conflict,
    # ratios 0 and 1 per response
    assert summary["mean_cs_c"] == 0.0
    assert summary["mean_cs_r"] == pytest.approx(0.5)
    assert summary["usage"]["prompt_tokens"] > 0 and summary["usage"]["calls"] == 4
    assert summary["usage_this_run"]["calls"] == 0


def test_example_report_script_runs_offline(tmp_path: Path) -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "examples" / "conflictscore_report.py"
    spec = importlib.util.spec_from_file_location("conflictscore_report_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "report.md"
    assert module.main(["--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "CS-C **0.33** (1 of 3 claims conflicted)" in text
    assert "`regional-guide` contradicts: The Halden Canal only opened in 1851" in text
    assert text.count("No conflicted claim.") == 2


def test_score_one_response_dry_run_calls_nothing(
    tmp_path: Path, openai_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    response = tmp_path / "r.txt"
    response.write_text("The canal opened in 1847.", encoding="utf-8")
    docs = _write(tmp_path / "d.jsonl", ["The canal opened in 1851."])
    args = ["score", "--response", str(response), "--documents", str(docs), "--dry-run"]
    model = ["--model", "openai/m", "--base-url", openai_server.base_url]
    assert main([*args, *model]) == 0
    out = capsys.readouterr().out
    assert "dry run for openai/m: 1 model calls, 0 already cached" in out
    assert openai_server.completions() == []  # --dry-run: nothing sent
    assert main(args) == 0  # offline: counts pairs, no scoring table
    out = capsys.readouterr().out
    assert "dry run: no model calls" in out and "CS-C" not in out
