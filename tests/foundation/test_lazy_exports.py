"""Packages state their public names once (``__all__ = _lazy.exports(...)``), imported on first use.

The ``if TYPE_CHECKING:`` imports of each package tell type checkers the same
names; these tests check that the two never drift apart, that every name is the
object its module defines, and that ``import conflicteval`` stays a fast start.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

from conflicteval import _lazy

LAZY_PACKAGES = [
    "conflicteval",
    "conflicteval.batch",
    "conflicteval.bench",
    "conflicteval.clasheval",
    "conflicteval.conflictbench",
    "conflicteval.conflictqa",
    "conflicteval.conflictscore",
    "conflicteval.data",
    "conflicteval.faitheval",
    "conflicteval.feverous",
    "conflicteval.ramdocs",
    "conflicteval.runs",
    "conflicteval.wikicontradict",
]


def _type_checking_imports(package: str) -> dict[str, tuple[str, str]]:
    """Public name -> (module, attribute) from the package's ``if TYPE_CHECKING:`` block."""
    module = importlib.import_module(package)
    tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
    found: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
                source = "." * statement.level + (statement.module or "")
                resolved = importlib.util.resolve_name(source, package)
                for alias in statement.names:
                    found[alias.asname or alias.name] = (resolved, alias.name)
    return found


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_type_checking_imports_and_all_name_the_same_objects(package: str) -> None:
    module = importlib.import_module(package)
    declared = _type_checking_imports(package)
    assert declared, f"{package} has no TYPE_CHECKING imports"
    assert set(module.__all__) - {"__version__"} == set(declared)
    assert len(module.__all__) == len(set(module.__all__))
    for name, (source, attribute) in declared.items():
        expected = getattr(importlib.import_module(source), attribute)
        assert getattr(module, name) is expected, f"{package}.{name}"
    assert set(module.__all__) <= set(dir(module))


def test_import_conflicteval_loads_no_area() -> None:
    code = (
        "import json, sys, conflicteval; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('conflicteval'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == [
        "conflicteval",
        "conflicteval._lazy",
        "conflicteval._version",
    ]


def test_exports_renames_and_imports_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    package = types.ModuleType("lazy_demo_pkg")
    monkeypatch.setitem(sys.modules, "lazy_demo_pkg", package)
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)
    names = _lazy.exports(
        "lazy_demo_pkg", {"colorsys": "rgb_to_hsv to_hls=rgb_to_hls", "json": ("dumps", "loads")}
    )
    assert names == ["rgb_to_hsv", "to_hls", "dumps", "loads"]
    assert "colorsys" not in sys.modules  # stating a name imports nothing
    assert package.to_hls is importlib.import_module("colorsys").rgb_to_hls
    assert package.loads is json.loads
    assert {"rgb_to_hsv", "to_hls", "dumps", "loads"} <= set(dir(package))
    with pytest.raises(AttributeError, match="rgb_to_hls"):
        _ = package.rgb_to_hls  # only the public name is exported


def test_a_name_stated_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lazy_demo_twice", types.ModuleType("lazy_demo_twice"))
    with pytest.raises(ValueError, match="'dumps' is stated twice"):
        _lazy.exports("lazy_demo_twice", {"json": "dumps", "pickle": "dumps"})


def test_submodule_import_does_not_hide_the_public_function() -> None:
    importlib.import_module("conflicteval.conflictscore.aggregate")
    from conflicteval.conflictscore import aggregate

    assert callable(aggregate) and not isinstance(aggregate, types.ModuleType)
