"""Registry names through the inspect_ai entry-point group, and re-scoring stored logs."""

from __future__ import annotations

import importlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai", reason="needs the inspect extra")

from inspect_ai import eval, score
from inspect_ai.log import read_eval_log

from conflicteval import get_model
from conflicteval.adapters.inspect import conflict_score
from conflicteval.conflictscore import (
    ConflictScorer,
    LexicalLabeler,
    LLMDecomposer,
    PerDocumentLLMLabeler,
    SentenceDecomposer,
)

REPO = Path(__file__).resolve().parents[3]
REGISTRY_MODULE = "conflicteval.adapters.inspect._registry"
NAMES = {
    "task": ["wikicontradict", "conflictbench"],
    "scorer": ["wikicontradict_judge", "conflict_score"],
    "metric": ["verdict_shares", "conflict_detection"],
}


def _declaration() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")
    return dict(tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"])


@pytest.fixture()
def installed_env(tmp_path: Path) -> dict[str, str]:
    """Environment for a fresh process that sees the pyproject's entry point as installed.

    The shared development install may predate the declaration (or come from
    another checkout), so the test writes the distribution metadata pip
    writes for an editable install of this pyproject -- ``entry_points.txt``
    from ``[project.entry-points]``, and ``direct_url.json`` marking it
    editable -- into a directory put first on ``PYTHONPATH``. Inspect then
    finds ``conflicteval`` through ``importlib.metadata`` exactly as after
    ``pip install -e '.[inspect]'``.
    """
    project = _declaration()
    dist = tmp_path / "site" / f"{project['name']}-0.0.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: 0.0.0\n", "utf-8"
    )
    lines = []
    for group, eps in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in eps.items()]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n", "utf-8")
    url = {"url": REPO.as_uri(), "dir_info": {"editable": True}}
    (dist / "direct_url.json").write_text(json.dumps(url), "utf-8")
    paths = [str(tmp_path / "site"), os.environ.get("PYTHONPATH", ""), str(REPO / "src")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    return env


def test_pyproject_declares_the_entry_point_and_extra() -> None:
    project = _declaration()
    assert project["entry-points"]["inspect_ai"] == {"conflicteval": REGISTRY_MODULE}
    [spec] = project["optional-dependencies"]["inspect"]
    assert spec.startswith("inspect-ai>=") and spec.endswith(",<0.4")


def test_registry_module_registers_the_names() -> None:
    from inspect_ai._util.registry import registry_info

    module = importlib.import_module(REGISTRY_MODULE)
    for names in NAMES.values():
        for name in names:
            registered = registry_info(getattr(module, name)).name
            # Inspect prefixes the package name only for an installed package; an in-tree
            # build's src/conflicteval.egg-info first on the path hides the install from it
            assert registered == f"conflicteval/{name}", (
                f"{registered!r}: Inspect does not see conflicteval as installed "
                "(a stale src/conflicteval.egg-info?)"
            )


CHECK_NAMES = """
import json, sys
from importlib.metadata import entry_points
from inspect_ai._util.registry import registry_lookup
eps = {e.name: e.value for e in entry_points(group="inspect_ai")}
loaded_before = "conflicteval.adapters.inspect" in sys.modules
names = json.loads(sys.argv[1])
found = {f"{k}:{n}": registry_lookup(k, "conflicteval/" + n) is not None
         for k, ns in names.items() for n in ns}
print(json.dumps({"eps": eps, "loaded_before": loaded_before, "found": found}))
"""


def test_names_resolve_through_the_entry_point(
    installed_env: dict[str, str], tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK_NAMES, json.dumps(NAMES)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=installed_env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["eps"].get("conflicteval") == REGISTRY_MODULE
    assert report["loaded_before"] is False  # Inspect loaded it on demand
    assert all(report["found"].values()), report["found"]


def test_rescore_a_stored_log_with_the_python_api(
    bench_file: Path, inspect_env: Path, mock_model: Any, scripted_reply: Any
) -> None:
    # the task by its registry name, scored offline (sentence claims, lexical labels)
    [log] = eval(
        "conflicteval/conflictbench",
        task_args={"path": str(bench_file), "decomposer": "sentence", "labeler": "lexical"},
        model=mock_model,
        display="none",
    )
    assert log.status == "success", log.error
    stored = read_eval_log(log.location)
    offline = ConflictScorer(SentenceDecomposer(), LexicalLabeler())

    # re-score the stored log with the LLM decomposer and the per-document labeler
    rescored = score(
        stored,
        scorers=[conflict_score(labeler="llm-per-document")],
        model_roles={"grader": mock_model},
        action="overwrite",
        display="none",
    )
    library = ConflictScorer(
        LLMDecomposer(get_model("scripted", replies=scripted_reply)),
        PerDocumentLLMLabeler(get_model("scripted", replies=scripted_reply)),
    )
    assert rescored.samples
    for before, after in zip(stored.samples or [], rescored.samples, strict=True):
        report, docs = after.output.completion, after.metadata["documents"]
        _check(before.scores["conflict_score"], offline.score(report, docs))
        _check(after.scores["conflict_score"], library.score(report, docs))


def _check(score_: Any, expected: Any) -> None:
    if expected.cs_c is None:
        assert isinstance(score_.value, float) and math.isnan(score_.value)
        return
    assert score_.value["cs_c"] == pytest.approx(expected.cs_c)
    if expected.cs_r is None:
        assert math.isnan(score_.value["cs_r"])
    else:
        assert score_.value["cs_r"] == pytest.approx(expected.cs_r)


def test_inspect_score_command_rescores_a_log(
    bench_file: Path,
    tmp_path: Path,
    inspect_env: Path,
    mock_model: Any,
    installed_env: dict[str, str],
) -> None:
    [log] = eval(
        "conflicteval/conflictbench",
        task_args={"path": str(bench_file), "decomposer": "whole", "labeler": "lexical"},
        model=mock_model,
        display="none",
        limit=6,
    )
    assert log.status == "success", log.error
    out = tmp_path / "rescored.eval"
    args = [
        "score",
        str(log.location),
        "--scorer",
        "conflicteval/conflict_score",
        "-S",
        "decomposer=sentence",
        "-S",
        "labeler=lexical",
        "--action",
        "overwrite",
        "--output-file",
        str(out),
        "--display",
        "none",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=installed_env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rescored = read_eval_log(str(out))
    offline = ConflictScorer(SentenceDecomposer(), LexicalLabeler())
    assert rescored.samples and len(rescored.samples) == 6
    for sample in rescored.samples:
        expected = offline.score(sample.output.completion, sample.metadata["documents"])
        _check(sample.scores["conflict_score"], expected)
