"""feverous verify by batch export/import rounds ends as the online run does."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

RECORDS = [
    {"id": 1, "claim": "Alpha was founded in 1901.", "label": "supports",
     "evidence": "Alpha\tAlpha was founded in 1901."},
    {"id": 2, "claim": "Alpha was founded in 1905.", "label": "refutes",
     "evidence": "Alpha\tAlpha was founded in 1901."},
]  # fmt: skip


def reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    claim = prompt.split("\nClaim to evaluate\n", 1)[1].split(
        "\nDocument to evaluate against\n", 1
    )[0]
    doc = prompt.split("\nDocument to evaluate against\n", 1)[1].split("\nOutput format\n")[0]
    year = re.search(r"19\d\d", claim)
    answer = "SUPPORTS" if year and year.group(0) in doc else "CONTRADICTS"
    return json.dumps({"claim": "", "document_snippet": "", "reasoning": "", "answer": answer})


def test_verify_by_batch_equals_online(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    claims = tmp_path / "s.json"
    claims.write_text(json.dumps(RECORDS))
    with OpenAICompatServer(reply) as srv:
        argv = ["feverous", "verify", "--claims", str(claims), "--json"]
        argv += ["--model", "openai/test-model", "--base-url", srv.base_url]
        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "online-cache"))
        capsys.readouterr()
        assert main(argv) == 0
        online = json.loads(capsys.readouterr().out)
        assert online["label_accuracy"] == 1.0 and len(srv.completions()) == 2

        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "batch-cache"))
        req = tmp_path / "requests.jsonl"
        assert main([*argv, "--batch-export", str(req)]) == 3
        captured = capsys.readouterr()
        assert json.loads(captured.out)["pending"] == 2  # stdout stays JSON; notes on stderr
        assert "2 requests in 1 file" in captured.err
        res = tmp_path / "results.jsonl"
        res.write_text(srv.answer_batch_file(req.read_text()))
        assert main(["batch", "import", str(res)]) == 0
        capsys.readouterr()
        assert main([*argv, "--batch-export", str(req)]) == 0
        batch = json.loads(capsys.readouterr().out)
        assert len(srv.completions()) == 2
    assert batch == online
