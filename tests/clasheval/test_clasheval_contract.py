"""``clasheval run`` writes the result contract: the report's baseline figures with their
intervals and the notebook's Table 3 beside them; every question's status."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import conflicteval as ce
from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer


def _reply(body: dict[str, Any]) -> str:
    """Prior: always 1900; with context: the context's answer ("The answer is X.")."""
    user = body["messages"][-1]["content"]
    if "Context:" not in user:
        return " 1900\n"
    return re.search(r"The answer is (.+)\.", user).group(1)  # type: ignore[union-attr]


def test_clasheval_run_writes_its_contract(
    tmp_path: Path, responses: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    args = ["clasheval", "run", "--data", str(responses), "--out", str(out), "--quiet"]
    with OpenAICompatServer(_reply) as srv:
        assert main([*args, "--model", "openai/test-model", "--base-url", srv.base_url]) == 0
    s = ce.load_run(out).summary
    assert s.kind == "clasheval" and s.status == "finished"
    assert s.counts.total == 4 and s.counts.scored == 4  # the synthetic file's four questions
    # as the report's test computes by hand: 4 kept rows, all following the context
    acc, ctx, prior = (s.metric(f) for f in ("accuracy", "context_bias", "prior_bias"))
    assert acc is not None and (acc.value, acc.n) == (0.5, 4) and not acc.lower_is_better
    assert ctx is not None and ctx.value == 0.5 and ctx.lower_is_better
    assert prior is not None and prior.value == 0.0
    assert acc.published["Table 3 (baseline), GPT-4o"] == pytest.approx(0.615224)
    assert acc.items is None  # ratios of the balanced table: not paired item by item
