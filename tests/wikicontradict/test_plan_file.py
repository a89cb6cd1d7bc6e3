"""``plan.jsonl`` is written whole (temporary file + rename); a torn last line never blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from conflicteval.errors import ConflictEvalError
from conflicteval.models import get_model
from conflicteval.wikicontradict import WikiContradictInstance, generate_sync
from conflicteval.wikicontradict.generate import PLAN_FILE


def test_a_torn_plan_resumes_and_is_rewritten_whole(
    wc_instances: list[WikiContradictInstance], tmp_path: Path
) -> None:
    insts = wc_instances[:3]
    run = tmp_path / "run"
    model = get_model("scripted", replies=["an answer"] * 3)
    assert generate_sync(insts, ["5"], [model], run, progress=False).counts["ok"] == 3
    plan = run / PLAN_FILE
    whole = plan.read_text(encoding="utf-8")
    assert whole.endswith("\n") and len(whole.splitlines()) == 3
    plan.write_text(whole[: len(whole) - 40], encoding="utf-8")  # disk full mid-rewrite
    again = generate_sync(insts, ["5"], [model], run, progress=False)
    assert again.resumed == 3
    assert plan.read_text(encoding="utf-8") == whole  # rewritten whole
    assert not list(run.glob(".plan.jsonl.*"))  # no temporary file left behind
    plan.write_text("{torn\n" + whole, encoding="utf-8")  # damage elsewhere is an error
    with pytest.raises(ConflictEvalError, match=r"plan.jsonl: line 1"):
        generate_sync(insts, ["5"], [model], run, progress=False)
