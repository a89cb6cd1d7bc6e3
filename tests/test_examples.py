"""Every example script runs offline, as its docstring says, and exits 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
OFFLINE_EXAMPLES = [
    "quickstart_models.py",
    "conflictscore_report.py",
    "conflictbench_detect.py",
    "conflictbench_reports.py",
    "regenerate_truthfulqa.py",
    "feverous_score.py",
    "batch_roundtrip.py",
    "harness_metrics.py",  # ragas / deepeval parts skip themselves when the extra is absent
    "inspect_eval.py",
]


def run_example(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env
    )


@pytest.mark.parametrize("name", OFFLINE_EXAMPLES)
def test_example_runs_offline(name: str, tmp_path: Path) -> None:
    before = _checkout_files()
    # run from a temporary directory: an example's default output (runs/...) lands there,
    # never in the checkout, where a later run would resume it
    out = run_example([str(REPO / "examples" / name)], cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip(), "an example should show its results"
    assert _checkout_files() == before, "an example left files in the checkout"


def _checkout_files() -> set[str]:
    return {
        str(p.relative_to(REPO))
        for top in ("runs", "examples")
        if (REPO / top).exists()
        for p in (REPO / top).rglob("*")
        if "__pycache__" not in p.parts
    }


def test_wikicontradict_example_against_local_server(tmp_path: Path, shared_data: Path) -> None:
    data = shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    out = run_example(
        [
            str(REPO / "examples" / "wikicontradict_eval.py"),
            "--data",
            str(data),
            "--local-test-server",
            "--judge",
            "lexical",
            "--out",
            str(tmp_path / "run"),
            "--limit",
            "5",
        ],
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "run" / "generations.jsonl").exists()
    assert (tmp_path / "run" / "judgements.jsonl").exists()
