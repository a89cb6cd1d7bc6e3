"""The suite's guard names a test that leaves a SIGINT handler behind, and only such a test."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

TESTS = """
import signal


def test_quiet():
    pass


def test_leaves_a_handler():
    signal.signal(signal.SIGINT, lambda *args: None)


def test_quiet_again():
    pass
"""


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_a_run_started_with_sigint_ignored_names_only_the_test_that_changed_it(
    tmp_path: Path,
) -> None:
    # A run started in the background by a non-interactive shell has SIGINT ignored from the
    # start; the guard once took that for the first test's doing (naming a test that never
    # touched a signal) and replaced it with Python's default handler.
    (tmp_path / "conftest.py").write_text(CONFTEST.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "test_handlers.py").write_text(TESTS, encoding="utf-8")
    options = ["-q", "-p", "no:cacheprovider", "-p", "no:deepeval", "-W", "always"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,  # guards against a hang only
        preexec_fn=_ignore_sigint,
    )
    assert "3 passed" in done.stdout, done.stdout + done.stderr
    named = [line for line in done.stdout.splitlines() if "UserWarning: " in line]
    assert len(named) == 1 and "test_leaves_a_handler" in named[0], done.stdout
