"""Every example script runs with no arguments, as its docstring says, and exits 0.

Each says in its first lines what it needs and where it writes (one output directory, a new
temporary one unless ``--out`` is given). An example whose optional extra or sample data is
missing is skipped here with the reason; run by hand, it says so in one line and exits 2.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# name -> (the extra's import name or None, the shared sample data it reads or None)
EXAMPLES: dict[str, tuple[str | None, str | None]] = {
    "quickstart_models.py": (None, None),
    "conflictscore_report.py": (None, None),
    "conflictbench_detect.py": (None, "macnoise"),
    "conflictbench_reports.py": (None, None),
    "regenerate_truthfulqa.py": (None, None),
    "feverous_score.py": (None, None),
    "batch_roundtrip.py": (None, None),
    "batch_rounds.py": (None, None),
    "harness_metrics.py": (None, None),  # ragas / deepeval parts skip themselves when absent
    "inspect_eval.py": ("inspect_ai", "wikicontradict"),
    "results_pandas.py": ("pandas", "ramdocs"),  # also wikicontradict, feverous, conflictqa
}
# examples/viewer_screenshots.py is run by hand to refresh the docs' pictures, not here: inside
# this suite its Chromium aborted on start (exit -6) in two full runs while it passes run alone
# (not yet diagnosed); the pages it photographs are tested in a real Chromium by tests/view.
WC_CSV = "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv"


def run_example(
    args: list[str], cwd: Path, *, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    # a new temporary output directory lands under the test's own directory
    base["TMPDIR"] = str(cwd)
    base.update(env or {})
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=base
    )


def _requirements(name: str, request: pytest.FixtureRequest) -> None:
    extra, data = EXAMPLES[name]
    if extra is not None:
        pytest.importorskip(extra, reason=f"{name} needs the optional extra that has {extra}")
    if data is not None:
        shared = request.getfixturevalue("shared_data")  # skips when ../shared/data is absent
        if not (shared / data).exists():
            pytest.skip(f"{name} needs {shared / data}")


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_example_runs_with_no_arguments(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    _requirements(name, request)
    before = _checkout_files()
    out = run_example([str(REPO / "examples" / name)], cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
    assert out.stdout.strip(), "an example should show its results"
    _check_header(out, tmp_path)
    assert _checkout_files() == before, "an example left files in the checkout"
    assert {p.name for p in tmp_path.iterdir()} <= _allowed(out), "wrote outside its output"


def _check_header(out: subprocess.CompletedProcess[str], tmp_path: Path) -> None:
    """The first lines say what the example needs and where it writes."""
    head = (out.stdout.splitlines()[:3], out.stderr.splitlines()[:3])
    lines = [line for part in head for line in part]
    assert any(line.startswith("needs") for line in lines), lines
    where = [line.split(":", 1)[1].strip() for line in lines if line.startswith("output:")]
    assert where, lines
    path = Path(where[0])
    if path.is_absolute():  # an output directory: the new temporary one, under TMPDIR
        assert path.is_dir() and tmp_path in path.parents, where


def _allowed(out: subprocess.CompletedProcess[str]) -> set[str]:
    # the example's own output directory (and Python's or matplotlib's caches)
    names = set(re.findall(r"output: \S*/([^/\s]+)\s*$", out.stdout, flags=re.M))
    names |= set(re.findall(r"output: \S*/([^/\s]+)\s*$", out.stderr, flags=re.M))
    return names | {"__pycache__", "matplotlib", ".cache", ".deepeval"}


def _checkout_files() -> set[str]:
    return {
        str(p.relative_to(REPO))
        for top in ("runs", "examples")
        if (REPO / top).exists()
        for p in (REPO / top).rglob("*")
        if "__pycache__" not in p.parts
    }


def test_inspect_example_without_the_extra_says_so_in_one_line(tmp_path: Path) -> None:
    """Run as if inspect_ai were not installed (it may well be, in this environment)."""
    script = str(REPO / "examples" / "inspect_eval.py")
    code = (
        "import runpy, sys; sys.modules['inspect_ai'] = None; "
        f"sys.argv = [{script!r}]; runpy.run_path({script!r}, run_name='__main__')"
    )
    out = run_example(["-c", code], cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip() == "needs the inspect extra: pip install '.[inspect]'"
    assert "Traceback" not in out.stderr


def test_detect_example_without_the_sample_data_says_so_in_one_line(tmp_path: Path) -> None:
    """A copy of the example with no ``shared`` folder beside its checkout."""
    copy = tmp_path / "checkout" / "examples"
    copy.mkdir(parents=True)
    shutil.copy(REPO / "examples" / "conflictbench_detect.py", copy)
    out = run_example([str(copy / "conflictbench_detect.py")], cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs the MacNoise sample files" in lines[0], lines
    assert "--source" in lines[0] and "Traceback" not in out.stderr
    assert not list(tmp_path.glob("conflicteval-*")), "nothing is written before the check"


def test_wikicontradict_example_offline_without_the_dataset_fails_fast(tmp_path: Path) -> None:
    """No arguments, offline, the release not cached: one line naming the way out, exit 2."""
    out = run_example([str(REPO / "examples" / "wikicontradict_eval.py")], cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert "Retrying" not in out.stderr  # the reason, not a duration: no retries
    assert out.stdout.startswith("needs: the WikiContradict release")
    assert "Traceback" not in out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert "wikicontradict" in last and "--data PATH" in last


def test_wikicontradict_example_against_local_server(tmp_path: Path, shared_data: Path) -> None:
    data = shared_data / WC_CSV
    out = run_example(
        [
            str(REPO / "examples" / "wikicontradict_eval.py"),
            "--data",
            str(data),
            "--judge-model",
            "lexical",
            "--out",
            str(tmp_path / "run"),
            "--limit",
            "5",
        ],
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"output: {tmp_path / 'run'}" in out.stdout
    assert (tmp_path / "run" / "generations.jsonl").exists()
    assert (tmp_path / "run" / "judgements.jsonl").exists()
    # the default report fits a 100-column terminal
    report = out.stdout[out.stdout.index("### Template") :]
    assert max(len(line) for line in report.splitlines()) <= 100
