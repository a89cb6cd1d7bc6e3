"""``--item-timeout``: the command line's bound on one item, retries included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conflicteval.cli import main
from conflicteval.testing import Fault, OpenAICompatServer


def test_an_item_past_its_bound_is_a_recorded_failure(
    tmp_path: Path, shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    out = tmp_path / "run"
    # Every attempt is slower than its own deadline and is retried: only the item bound ends it.
    with OpenAICompatServer(replies=lambda body: "x", faults=lambda n, b: Fault.slow(600)) as srv:
        code = main(
            [
                "wikicontradict", "generate", "--data", str(data), "--model", "openai/test",
                "--base-url", srv.base_url, "--templates", "1", "--limit", "1", "--quiet",
                "--timeout", "0.3", "--max-attempts", "50", "--item-timeout", "1.5",
                "--out", str(out),
            ]
        )  # fmt: skip
    assert code == 1
    (row,) = [json.loads(line) for line in (out / "generations.jsonl").read_text().splitlines()]
    assert row["status"] == "model_error" and "item timed out" in row["error"]
    assert "item timed out" in capsys.readouterr().err


def test_the_default_bound_is_an_hour_and_must_be_positive(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from conflicteval.cli import build_parser
    from conflicteval.cli.common import run_options

    args = build_parser().parse_args(["wikicontradict", "judge", "--run", "r", "--model", "x"])
    assert args.item_timeout == 3600.0
    assert run_options(args)["options"].item_timeout == 3600.0
    with pytest.raises(SystemExit):
        build_parser().parse_args(
            ["wikicontradict", "judge", "--run", "r", "--model", "x", "--item-timeout", "0"]
        )


def test_score_applies_the_item_bound_too(tmp_path: Path) -> None:
    docs = [{"id": "d1", "text": "The tower is 300 metres tall."}]
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "r1", "response": "The tower is tall.", "documents": docs}))
    out = tmp_path / "out"
    with OpenAICompatServer(replies=lambda body: "x", faults=lambda n, b: Fault.slow(600)) as srv:
        code = main(
            [
                "score", "--input", str(items), "--out", str(out), "--model", "openai/test",
                "--base-url", srv.base_url, "--timeout", "0.3", "--max-attempts", "50",
                "--item-timeout", "1.5", "--quiet",
            ]
        )  # fmt: skip
    assert code == 1
    (row,) = [json.loads(line) for line in (out / "checkpoint.jsonl").read_text().splitlines()]
    assert row["status"] == "model_error" and "item timed out" in row["error"]
