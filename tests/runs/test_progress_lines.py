"""Progress when standard error is not a terminal: plain lines at intervals, never a bar."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conflicteval.runs.progress import LineProgress, line_interval, progress_bar


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_lines_at_intervals_and_a_last_one() -> None:
    clock, out = Clock(), io.StringIO()
    bar = LineProgress(10_000, 0, "score", interval=30.0, stream=out, clock=clock)
    for _ in range(1_981):
        bar.update(1)
    assert out.getvalue() == ""  # no time has passed: nothing yet
    clock.now += 192.0
    bar.update(1)
    assert out.getvalue() == "score: 1,982 of 10,000 items done (19.8 %), 3m12s elapsed\n"
    clock.now += 10.0
    bar.update(18)  # within the interval: no new line
    assert out.getvalue().count("\n") == 1
    clock.now += 3600.0
    bar.close()
    assert out.getvalue().splitlines()[-1] == (
        "score: 2,000 of 10,000 items done (20.0 %), 1h03m elapsed"
    )


def test_a_short_run_prints_nothing() -> None:
    clock, out = Clock(), io.StringIO()
    bar = LineProgress(5, 2, "x", interval=30.0, stream=out, clock=clock)
    bar.update(3)
    bar.close()
    assert out.getvalue() == ""


def test_the_interval_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFLICTEVAL_PROGRESS_SECONDS", "5")
    assert line_interval() == 5.0
    monkeypatch.setenv("CONFLICTEVAL_PROGRESS_SECONDS", "soon")
    assert line_interval() == 30.0
    monkeypatch.delenv("CONFLICTEVAL_PROGRESS_SECONDS")
    assert line_interval() == 30.0


def test_not_a_terminal_gives_lines_and_quiet_gives_nothing() -> None:
    # under pytest standard error is captured: not a terminal
    assert isinstance(progress_bar(3, 0, "x", None), LineProgress)
    quiet = progress_bar(3, 0, "x", False)
    assert not isinstance(quiet, LineProgress) and quiet.disable
    quiet.close()


def test_a_run_piped_to_a_file_says_how_far_it_is(tmp_path: Path) -> None:
    rows = [
        {
            "id": f"r{i}",
            "response": "The bridge opened in 1932.",
            "documents": ["It opened in 1934."],
        }
        for i in range(3)
    ]
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    env = {**os.environ, "CONFLICTEVAL_PROGRESS_SECONDS": "0"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "conflicteval",
            "score",
            "--input",
            str(data),
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if " items done " in line]
    assert lines and lines[-1].split(":", 1)[1].startswith(" 3 of 3 items done (100.0 %)")
    assert "\r" not in proc.stderr  # no bar redrawn in the file
