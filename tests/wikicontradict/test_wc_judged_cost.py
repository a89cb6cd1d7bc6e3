"""A judged WikiContradict run's contract carries the money of its answers and of its grades."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing import OpenAICompatServer


def test_judged_contract_keeps_the_generations_money_beside_the_judges(
    wc_csv: Path,
    openai_server: OpenAICompatServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openai_server.set_replies(lambda body: "One source says yes; however, another passage says no.")
    run = tmp_path / "run"
    common = ["--data", str(wc_csv), "--base-url", openai_server.base_url]
    gen = ["wikicontradict", "generate", *common, "--model", "openai/gpt-4o-mini"]
    assert main([*gen, "--templates", "4", "--limit", "3", "--out", str(run), "--quiet"]) == 0
    generated = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    answering_usd = generated["cost"]["usd"]
    assert answering_usd is not None and answering_usd > 0
    assert generated["cost"]["sent"]["calls"] == 3

    # graded by a model that costs money too: the contract holds both stages and their total
    openai_server.set_replies(lambda body: "explanation: both named.\nevaluation: correct")
    judge = ["--model", "openai/gpt-4o-mini", "--base-url", openai_server.base_url, "--quiet"]
    assert main(["wikicontradict", "judge", "--run", str(run), *judge]) == 0
    judged = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    roles = {row["role"]: row for row in judged["cost"]["per_model"]}
    assert set(roles) == {"answering", "judge"}
    assert roles["answering"]["usd"] == pytest.approx(answering_usd)
    assert roles["judge"]["usd"] > 0
    # the answers' row says which command made its calls (a profile counts the judge's alone)
    assert roles["answering"]["made_by"] == "wikicontradict generate"
    assert roles["judge"]["made_by"] is None
    assert all(r.get("made_by") is None for r in generated["cost"]["per_model"])
    assert judged["cost"]["usd"] == pytest.approx(answering_usd + roles["judge"]["usd"])
    assert judged["cost"]["sent"]["calls"] == 6
    assert {m["role"] for m in judged["models"]} == {"answering", "judge"}

    # judging again replaces the grades' money, never adds a second copy of the answers'
    lexical = ["--model", "lexical", "--output", str(run / "lexical.jsonl"), "--quiet"]
    assert main(["wikicontradict", "judge", "--run", str(run), *lexical]) == 0
    again = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert [r["role"] for r in again["cost"]["per_model"]] == ["answering"]
    assert again["cost"]["per_model"][0]["made_by"] == "wikicontradict generate"
    assert again["cost"]["usd"] == pytest.approx(answering_usd)
