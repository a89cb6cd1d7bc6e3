"""WikiContradict generate → judge by batch export/import rounds ends as the online run does."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch.files import read_requests
from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer

VERDICTS = ("correct", "partially correct", "incorrect")


def reply(body: dict[str, Any]) -> str:
    prompt = str(body["messages"][-1]["content"])
    if prompt.startswith("Please evaluate the response"):
        found = re.search(r"\nresponse: (.*)\ncomment:$", prompt)
        assert found is not None
        n = int(found.group(1).split()[-1])
        return f"comment: graded {n}.\nevaluation: {VERDICTS[n % 3]}"
    return f"answer number {len(prompt)}"


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    for r in rows:  # the batch run replays every call from the cache; nothing else differs
        for key in ("cached_calls", "cached_prompt_tokens", "cached_completion_tokens"):
            r["usage"].pop(key)
        # a replay sends nothing: no cost, and no model calls were sent to
        r["usage"].pop("cost_usd")
        r["usage"].pop("models")
        r["result"].pop("cached", None)
        for call in r.get("calls", []):  # the same replies, replayed (no time taken)
            call.pop("cached")
            call.pop("latency_s")
    return sorted(rows, key=lambda r: r["id"])


def test_generate_then_judge_by_batch_equals_online(
    wc_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OpenAICompatServer(reply) as srv:
        gen = ["wikicontradict", "generate", "--data", str(wc_csv), "--limit", "3"]
        gen += ["--templates", "2,5", "--model", "openai/tested", "--base-url", srv.base_url]
        judge = ["wikicontradict", "judge", "--model", "openai/judge", "--base-url", srv.base_url]

        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "online-cache"))
        assert main([*gen, "--out", str(tmp_path / "online"), "--quiet"]) == 0
        assert main([*judge, "--run", str(tmp_path / "online"), "--quiet"]) == 0
        online_calls = len(srv.completions())
        assert online_calls == 12

        monkeypatch.setenv("CONFLICTEVAL_CACHE_DIR", str(tmp_path / "batch-cache"))
        req = tmp_path / "requests.jsonl"
        run = str(tmp_path / "bat")
        rounds = []
        for command in ([*gen, "--out", run], [*judge, "--run", run]):
            while (rc := main([*command, "--quiet", "--batch-export", str(req)])) == 3:
                rounds.append(len(list(read_requests(req))))
                res = tmp_path / f"results-{len(rounds)}.jsonl"
                res.write_text(srv.answer_batch_file(req.read_text()))
                assert main(["batch", "import", str(res)]) == 0
            assert rc == 0
        assert rounds == [6, 6]
        assert len(srv.completions()) == online_calls  # nothing online in the batch rounds

    for name in ("generations.jsonl", "judgements.jsonl"):
        assert _rows(tmp_path / "bat" / name) == _rows(tmp_path / "online" / name)
    labels = [r["result"]["judge_label"] for r in _rows(tmp_path / "bat" / "judgements.jsonl")]
    assert len(labels) == 6 and set(labels) <= set(VERDICTS)
