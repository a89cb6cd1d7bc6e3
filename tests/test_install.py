"""`pip install .` in a fresh virtual environment, then the CLI works offline with no key."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

_SKIP = ("build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".git", ".venv*")


def _copy_ignore(directory: str, names: list[str]) -> set[str]:
    """What a copy of the checkout leaves out: caches, builds, and ``./runs`` (run outputs).

    Only the checkout's own ``runs`` folder: ``src/conflicteval/runs`` is a package.
    """
    skipped = set(shutil.ignore_patterns(*_SKIP)(directory, names))
    return skipped | ({"runs"} & set(names) if Path(directory) == REPO else set())


REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_fresh_install_runs_help_version_and_demo(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / "python"
    # install from a copy: building in the checkout would leave build/ and
    # src/conflicteval.egg-info behind (the latter shadows the development install's metadata)
    source = tmp_path / "source"
    shutil.copytree(
        REPO,
        source,
        ignore=_copy_ignore,
    )
    install = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", str(source)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env["CONFLICTEVAL_CACHE_DIR"] = str(tmp_path / "cache")
    # no network for the commands themselves: point every proxy at a closed port
    env.update({"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"})
    exe = bindir / "conflicteval"
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "conflict" in out.stdout.lower()
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, env=env)
    import conflicteval

    assert version.stdout.strip() == f"conflicteval {conflicteval.__version__}"
    demo = subprocess.run(
        [str(exe), "demo"], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "CS-C" in demo.stdout and "CS-R" in demo.stdout
    assert sys.executable  # the test ran under the suite's interpreter
