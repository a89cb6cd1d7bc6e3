"""Under --executor ray the closing lines carry the same calls, tokens and cost as locally.

The driver's call ledger travels to the actors with the answerer (an empty copy per
batch) and comes back filled.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

from .test_ray_answerers import _items, reply

HAVE_RAY = all(importlib.util.find_spec(m) is not None for m in ("ray", "pyarrow"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (extra: pip install '.[ray]')"),
]


def _cost_lines(text: str) -> list[str]:
    return [
        # the one difference the closing lines should show, and each run's own duration
        re.sub(r"; took [0-9.e+-]+ s$", "", line).removesuffix("; executor ray")
        for line in text.splitlines()
        if line.startswith(("openai/gpt-4o-mini:", "cost:", "this run:"))
    ]


@pytest.mark.timeout(300)
def test_a_ray_score_run_prints_the_cost_line_of_a_local_one(
    ray_session: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    items = _items(tmp_path)
    printed = {}
    with OpenAICompatServer(reply) as srv:
        for executor in ("ray", "local"):
            # a cache of its own per run: both send every call (the actors get the
            # driver's cache with the model)
            monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / f"cache-{executor}"))
            capsys.readouterr()
            argv = ["score", "--input", str(items), "--out", str(tmp_path / executor),
                    "--model", "openai/gpt-4o-mini", "--base-url", srv.base_url,
                    "--decomposer", "llm", "--labeler", "llm", "--executor", executor]  # fmt: skip
            assert main(argv) in (0, 1)
            captured = capsys.readouterr()
            printed[executor] = _cost_lines(captured.out + captured.err)
    local = printed["local"]
    assert any("online" in line and "est. $" in line for line in local), local
    assert printed["ray"] == local
