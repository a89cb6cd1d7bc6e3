"""The command line front end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import conflicteval
from conflicteval.cli import main


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"conflicteval {conflicteval.__version__}"
    assert main([]) == 0
    assert "cache" in capsys.readouterr().out


def test_python_dash_m_entry_point() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "conflicteval", "--help"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and "usage: conflicteval" in out.stdout


def test_unknown_command_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["no-such-command"])
    assert info.value.code == 2


def test_output_cut_short_by_the_reader_is_no_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    class ClosedPipe:
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            pass

    monkeypatch.setattr(sys, "stdout", ClosedPipe())  # `conflicteval cache info | head -1`
    assert main(["cache", "info", "--cache-dir", str(tmp_path)]) == 0  # the reader asked no more
    assert "error" not in capsys.readouterr().err
