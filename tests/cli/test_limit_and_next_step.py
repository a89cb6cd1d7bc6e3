"""A --limit larger than the data is said; WikiContradict generate names the next step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conflicteval.cli import main


def _bench_items(path: Path, n: int) -> Path:
    rows = [
        {
            "id": f"s:{i}",
            "source": "macnoise-nq",
            "question": "q",
            "claim": "The Steelers have the most titles.",
            "documents": [
                {
                    "id": "d1",
                    "title": "t",
                    "text": "The Steelers have the most titles.",
                    "gold": "SUPPORTS",
                },
                {
                    "id": "d2",
                    "title": "u",
                    "text": "The Patriots have the most titles.",
                    "gold": "CONTRADICTS",
                },
            ],
            "conflict": True,
            "kind": "conflict",
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_a_limit_larger_than_the_data_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _bench_items(tmp_path / "b.jsonl", 3)
    out = tmp_path / "d"
    argv = ["conflictbench", "detect", "--items", str(items), "--out", str(out), "--quiet"]
    assert main([*argv, "--limit", "500"]) in (0, 1)
    err = capsys.readouterr().err
    assert "note: --limit 500 is more than the 3 items the data holds: all 3 are used" in err
    assert main([*argv, "--limit", "2", "--restart"]) in (0, 1)
    assert "--limit" not in capsys.readouterr().err


def test_generate_names_the_judge_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shared_data: Path, openai_server: Any
) -> None:
    data = shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    openai_server.set_replies(["Yes."])
    run = tmp_path / "wc run"
    argv = ["wikicontradict", "generate", "--data", str(data), "--model", "openai/t"]
    argv += ["--base-url", openai_server.base_url, "--templates", "2", "--out", str(run)]
    assert main([*argv, "--limit", "1", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"conflicteval wikicontradict judge --run '{run}' --model SPEC" in err
    assert f"conflicteval wikicontradict report --run '{run}'" in err
