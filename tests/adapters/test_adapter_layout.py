"""The adapters sit together under ``conflicteval.adapters``, on the top floor.

Nothing else in the package imports them (statically: every import statement and every
module-path string), the earlier import paths give the same objects, and importing the
``adapters`` package itself imports no harness.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
ALIASES = {
    "conflicteval.inspect": "conflicteval.adapters.inspect",
    "conflicteval.inspect._registry": "conflicteval.adapters.inspect._registry",
    "conflicteval.ragas": "conflicteval.adapters.ragas",
    "conflicteval.deepeval": "conflicteval.adapters.deepeval",
}
ADAPTER = re.compile(r"conflicteval\.(adapters|inspect|ragas|deepeval)(\.\w+)*")
EXTRA = {"inspect": "inspect_ai", "ragas": "ragas", "deepeval": "deepeval"}


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _targets(path: Path) -> set[str]:
    """Every conflicteval module the file names: imports (relative ones resolved) and strings."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return {t for t in found if ADAPTER.fullmatch(t)}


def _is_adapter(module: str) -> bool:
    return (
        module == "conflicteval.adapters"
        or module.startswith("conflicteval.adapters.")
        or (module in ALIASES)
    )


def test_nothing_below_the_adapters_imports_them() -> None:
    uses = {_module(p): _targets(p) for p in (SRC / "conflicteval").rglob("*.py")}
    # the walk sees the aliases' imports (a walker that found nothing would pass anyway)
    assert "conflicteval.adapters.ragas" in uses["conflicteval.ragas"]
    assert "conflicteval.adapters.inspect._registry" in uses["conflicteval.inspect._registry"]
    upward = sorted(f"{m} -> {sorted(t)}" for m, t in uses.items() if t and not _is_adapter(m))
    assert upward == []


def test_importing_the_adapters_package_imports_no_harness() -> None:
    code = (
        "import json, sys\nimport conflicteval.adapters\n"
        "print(json.dumps([m for m in ('inspect_ai', 'ragas', 'deepeval') if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize("old", sorted(ALIASES))
def test_the_earlier_import_paths_give_the_same_objects(old: str) -> None:
    new = ALIASES[old]
    pytest.importorskip(EXTRA[new.split(".")[2]], reason="needs the adapter's extra")
    before, after = importlib.import_module(old), importlib.import_module(new)
    assert before.__all__ == after.__all__ and before.__all__
    for name in after.__all__:
        assert getattr(before, name) is getattr(after, name), name
