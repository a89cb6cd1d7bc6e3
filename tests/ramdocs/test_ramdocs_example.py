"""The RAMDocs example runs offline with no arguments and writes only under its temp dir."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_example_runs_offline(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env["TMPDIR"] = str(tmp_path)
    before = sorted(p.name for p in (REPO / "examples").iterdir())
    out = subprocess.run(
        [sys.executable, str(REPO / "examples" / "ramdocs_madam.py")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    first = out.stdout.splitlines()[0]
    assert first.startswith("runs: ") and first[6:].startswith(str(tmp_path))
    assert "RAMDocs · method madam" in out.stdout
    assert "exact match: 66.7%" in out.stdout and "ConflictScore (sentence decomposer" in out.stdout
    assert (Path(first[6:]) / "madam" / "answers.jsonl").exists()
    assert sorted(p.name for p in (REPO / "examples").iterdir()) == before
