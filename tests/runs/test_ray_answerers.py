"""--batch-export and --dry-run under --executor ray: the answerer travels to the actors.

The same request lines (same set, same bytes) and the same counts as the local executor.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

DOCS = [
    {"id": "a", "text": "The canal opened in 1847 and is 38 km long."},
    {"id": "b", "text": "The canal opened in 1851; it is 38 km long."},
    {"id": "c", "text": "Boats pass 14 locks."},
]


def reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("Instruction: Break down"):
        # claims of their own per response: no two label calls are the same request, so
        # how many the real run sends does not depend on which finishes first
        tag = hashlib.sha256(prompt.encode()).hexdigest()[:8]
        return f"Claims:\n1. The canal {tag} opened in 1847.\n2. It is 38 km long ({tag})."
    doc = prompt.split("\nDocument to evaluate against\n", 1)[-1]
    answer = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")[len(doc) % 3]
    return json.dumps({"claim": "c", "document_snippet": "", "reasoning": "", "answer": answer})


def _items(tmp: Path) -> Path:
    rows = [
        {"id": f"r{k}", "response": f"The canal opened in 18{40 + k}. It has {k} locks.",
         "documents": DOCS}
        for k in range(6)
    ]  # fmt: skip
    path = tmp / "items.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _score(items: Path, out: Path, url: str, executor: str, *extra: str) -> list[str]:
    return ["score", "--input", str(items), "--out", str(out), "--model", "openai/m",
            "--base-url", url, "--decomposer", "llm", "--labeler", "llm",
            "--executor", executor, *extra]  # fmt: skip


def _dry(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main([*argv, "--dry-run"]) == 0
    # the library's own lines: Ray's driver may also print a note about an actor an earlier
    # test killed (its error listener), which is not this run's output
    lines = capsys.readouterr().out.splitlines()
    return "\n".join(line for line in lines if "ray.kill" not in line and "Actor" not in line)


def test_export_and_dry_run_on_ray_equal_local(
    ray_session: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    items = _items(tmp_path)
    with OpenAICompatServer(reply) as srv:
        url = srv.base_url
        dry = {ex: _dry(_score(items, tmp_path / ex, url, ex), capsys) for ex in ("local", "ray")}
        assert "dry run for openai/m: 6 model calls, 0 already cached" in dry["local"]
        assert dry["ray"] == dry["local"]  # the actors' counts came back to the driver
        lines = {}
        for ex in ("local", "ray"):
            req = tmp_path / f"export-{ex}" / "requests.jsonl"
            argv = _score(items, tmp_path / f"x-{ex}", url, ex, "--batch-export", str(req))
            assert main(argv) == 3
            lines[ex] = sorted(req.read_bytes().splitlines())
        assert len(lines["local"]) == 6 and lines["ray"] == lines["local"]  # same bytes
        assert srv.completions() == []  # neither sent anything
        # the real run (online, local) and then dry runs on a warm cache: all counted, cached
        assert main([*_score(items, tmp_path / "real", url, "local"), "--quiet"]) == 0
        sent = len(srv.completions())
        assert sent == 6 + 6 * 2 * 3  # decompositions, then 2 claims x 3 documents each
        warm = {ex: _dry(_score(items, tmp_path / ex, url, ex), capsys) for ex in ("local", "ray")}
        assert f"dry run for openai/m: {sent} model calls, {sent} already cached" in warm["ray"]
        assert warm["ray"] == warm["local"] and len(srv.completions()) == sent
    assert not (tmp_path / "local").exists() and not (tmp_path / "ray").exists()
