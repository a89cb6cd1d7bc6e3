"""Each item's model calls in the report, in a real browser (headless Chromium)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer
from conflicteval.view import write_report

from .chromium import check_ran, dump_dom, require_chromium


def test_an_item_shows_every_reply_its_calls_got(
    tmp_path: Path, profile: Path, monkeypatch: pytest.MonkeyPatch, score_replies: Any
) -> None:
    require_chromium()
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    docs = [{"id": "d0", "text": "The canal opened in 1847."}, {"id": "d1", "text": "Long."}]
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "r0", "response": "It opened.", "documents": docs}) + "\n")
    out = tmp_path / "run"
    with OpenAICompatServer(replies=score_replies) as server:
        argv = ["score", "--input", str(items), "--out", str(out), "--quiet",
                "--model", "openai/t", "--base-url", server.base_url,
                "--decomposer", "llm", "--labeler", "llm"]  # fmt: skip
        assert main(argv) == 0
    page = write_report(out, tmp_path / "report.html")
    dom = dump_dom(page, "tab=items&item=r0", profile)
    check_ran(dom)
    assert "model calls (5)" in dom
    assert dom.count('class="call-head"') == 5 and "#1 openai/t" in dom
    assert "&lt;b&gt;38 km&lt;/b&gt;" in dom  # a reply is text, never markup
    assert "<b>38 km</b>" not in dom
