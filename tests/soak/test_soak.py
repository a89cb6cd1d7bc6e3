"""Small, fast versions of ``benchmarks/soak.py``: fault soak and SIGKILL-and-resume.

The jobs run as child processes against a faulty local server in this process
(see the benchmark's docstring for how faults stay deterministic across kills).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"


def _load_soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("conflicteval_bench_soak", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


soak = _load_soak()

# A client timeout, and slow replies far beyond it. A normal reply that a loaded machine delays
# past the timeout shifts that call's attempt number, and with it the seeded faults it meets,
# so a run can then differ from the reference for reasons of load, not of the library: 8 s
# keeps that out of reach beside two CPU hogs on a busy 2-core machine (1 s did not, and 2 s
# left it a matter of luck); a slow reply (30 s) can only ever end by the timeout.
FAST = {"timeout": 8.0, "slow": 30.0, "concurrency": 16}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    """One uninterrupted 300-item run against the faulty server (shared by both tests)."""
    cfg = soak.SoakConfig(items=300, seed=11, **FAST)
    return soak.soak(cfg, tmp_path_factory.mktemp("soak"))


def test_soak_loses_nothing_and_never_repeats_a_success(uninterrupted: tuple[dict, dict]) -> None:
    summary, records = uninterrupted
    assert summary["problems"] == []
    assert summary["repeated_after_success"] == 0, summary["repeat_examples"]
    assert summary["checkpoint_lines"] == 300 and len(records) == 300
    counts = summary["counts"]
    assert counts["ok"] + counts["parse_error"] + counts["model_error"] == counts["total"] == 300
    # the scripted permanent failures are recorded with their reasons
    assert counts["model_error"] >= 6 and counts["parse_error"] >= 8
    assert all(r.error for r in records.values() if r.status != "ok")
    # faults really were injected on about a fifth of the requests, of every kind
    faults = summary["faults"]
    assert 0.1 < faults["random_fault_share"] < 0.35
    assert {"rate_limit", "status", "slow", "drop", "malformed", "truncate"} <= set(
        faults["by_fault"]
    )
    assert summary["passed"]


def test_sigkill_three_times_and_resume_equals_uninterrupted(
    uninterrupted: tuple[dict, dict], tmp_path: Path
) -> None:
    _, reference = uninterrupted
    cfg = soak.SoakConfig(items=300, seed=11, **FAST)
    summary = soak.kill_and_resume(cfg, tmp_path, reference, kills=3, seed=3)
    assert all(k["killed"] for k in summary["kills"]), summary["kills"]
    finished = [k["finished"] for k in summary["kills"]]
    assert 0 < finished[0] <= finished[1] <= finished[2] < 300
    assert summary["problems"] == []
    assert summary["records_differing_from_uninterrupted"] == 0, summary["differing_examples"]
    assert summary["finished_items_requested_again"] == 0, summary["repeat_examples"]
    assert summary["passed"]
