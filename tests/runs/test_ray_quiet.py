"""Ray is quiet by default: a run that succeeded prints no Ray chatter (start-up lines, dataset
plans, C++ core-worker lines); ``-v`` shows Ray's own logs again."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HAVE_RAY = all(importlib.util.find_spec(m) is not None for m in ("ray", "pyarrow"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (extra: pip install '.[ray]')"),
]

RAY_NOISE = ("core_worker.cc", "Started a local Ray instance", "streaming_executor", "worker.py")


def _score(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    items = tmp_path / "items.jsonl"
    row = {
        "id": "a",
        "response": "The canal opened in 1847. It is 38 km long.",
        "documents": [{"id": "d1", "text": "The canal opened in 1847 and is 38 km long."}],
    }
    items.write_text(json.dumps(row) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env.pop("RAY_BACKEND_LOG_LEVEL", None)
    env["RAY_DISABLE_USAGE_STATS"] = "1"
    args = ["score", "--input", str(items), "--out", str(tmp_path / "out"), "--quiet"]
    args += ["--executor", "ray", "--ray-num-cpus", "1"]
    return subprocess.run(
        [sys.executable, "-m", "conflicteval", *flags, *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_ray_is_quiet_by_default_and_talks_with_v(tmp_path: Path) -> None:
    quiet = _score(tmp_path / "quiet")
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    noise = [line for line in quiet.stderr.splitlines() if any(n in line for n in RAY_NOISE)]
    assert noise == [], noise
    assert "1 responses: 1 ok" in quiet.stdout and "executor ray" in quiet.stdout
    verbose = _score(tmp_path / "verbose", "-v")
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert "Started a local Ray instance" in verbose.stderr
