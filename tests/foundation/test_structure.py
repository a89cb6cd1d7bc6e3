"""The import structure of the package: no cycles, the documented layers, the command line on top.

Every ``import`` and ``from … import`` of a ``conflicteval`` module counts, at module level
or inside a function (a lazy import is still a dependency); imports under
``if TYPE_CHECKING:`` do not run and do not count. Three checks: no cycle between
modules, no cycle between top-level packages (a folder-level cycle hides in lazy
imports even when the modules do not form one), and every import stays in its own
layer or goes below it (:data:`LAYERS`, the table docs/architecture.md draws).
"""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, except those under ``if TYPE_CHECKING:`` (not run)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append(child)
            visit(child)

    visit(tree)
    return found


def _parse(path: Path) -> ast.Module:
    # CPython 3.11 can raise "AST constructor recursion depth mismatch" when a garbage
    # collection runs Python finalizers (left by earlier tests) in the middle of
    # ast.parse; keep the collector off while parsing (no collection: with every extra
    # loaded a full collection per file is slow).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    finally:
        if was_enabled:
            gc.enable()


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in (SRC / "conflicteval").rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in _imports(_parse(path)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" for a in node.names]
            for target in targets:
                while target and target not in files:  # an attribute: its module
                    target = target.rpartition(".")[0]
                if target and target != mod and target.startswith("conflicteval"):
                    graph[mod].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
    return out


def _is_cli(module: str) -> bool:
    # the command line is the conflicteval.cli package (and ``python -m conflicteval``)
    parts = module.split(".")
    return parts[1:2] == ["cli"] or module == "conflicteval.__main__"


def test_the_walker_finds_a_cycle_and_an_upward_import() -> None:
    graph = {"conflicteval.a": {"conflicteval.b"}, "conflicteval.b": {"conflicteval.a"}}
    assert _cycles(graph) == [["conflicteval.a", "conflicteval.b"]]
    assert _is_cli("conflicteval.cli.feverous") and not _is_cli("conflicteval.feverous.verify")
    assert _is_cli("conflicteval.cli") and not _is_cli("conflicteval.feverous.cli")


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return _graph()


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    # the walker reads real imports: module level, relative, and inside functions
    assert "conflicteval.runs.itemrun" in graph["conflicteval.runs.executor"]
    assert "conflicteval.view.registry" in graph["conflicteval.view"]
    assert "conflicteval.runs.executor" in graph["conflicteval.runs.runner"]  # a lazy import
    assert _cycles(graph) == []


def test_nothing_below_the_command_line_imports_it(graph: dict[str, set[str]]) -> None:
    upward = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        for t in targets
        if _is_cli(t) and not _is_cli(m)
    )
    assert upward == []


# The layers of docs/architecture.md, bottom to top: each top-level module or package of
# conflicteval imports only from its own layer or below. A new top-level name must be
# placed here (the test fails until it is).
LAYERS: list[set[str]] = [
    set(  # foundation
        "_atomic _calltimes _diskindex _fatal _filelock _lazy _sync _version cache cache_values"
        " confusables confusion data docs_pages errors exitcodes fingerprint formatting jsonio"
        " jsonparse"
        " pricing prompt_files readers record_errors stats stats_text suggest tables testing"
        " types".split()
    ),
    {"models"},
    {"runs", "batch"},
    {"measurements", "results"},
    set(  # protocols and the labeler bench
        "wikicontradict conflictscore conflictbench feverous ramdocs faitheval conflictqa"
        " clasheval bench".split()
    ),
    {"profiles", "view"},
    # the top floor; runner and executors are the deprecated re-export paths, and "" is the
    # package's own __init__ (its public names are imported lazily)
    set("cli adapters inspect ragas deepeval __main__ runner executors".split()) | {""},
]


def _top(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def _packages(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph between top-level modules and packages of conflicteval."""
    out: dict[str, set[str]] = {_top(m): set() for m in graph}
    for mod, targets in graph.items():
        out[_top(mod)] |= {_top(t) for t in targets} - {_top(mod)}
    return out


def test_the_package_walker_folds_modules_into_packages() -> None:
    graph = {
        "conflicteval.a.x": {"conflicteval.b.y"},
        "conflicteval.b.y": set(),
        "conflicteval.b.z": {"conflicteval.a"},
        "conflicteval.a": set(),
    }
    assert _cycles(graph) == []  # no cycle between modules ...
    assert _cycles(_packages(graph)) == [["a", "b"]]  # ... but one between their packages


def test_no_cycle_between_top_level_packages(graph: dict[str, set[str]]) -> None:
    packages = _packages(graph)
    assert "measurements" in packages["conflictscore"]  # an import inside a function counts
    assert _cycles(packages) == []


def test_imports_follow_the_documented_layers(graph: dict[str, set[str]]) -> None:
    layer = {name: i for i, names in enumerate(LAYERS) for name in names}
    packages = _packages(graph)
    assert sorted(set(packages) - set(layer)) == []  # every top-level name has a layer
    upward = sorted(
        f"{a} -> {b}" for a, targets in packages.items() for b in targets if layer[b] > layer[a]
    )
    assert upward == []
    # nothing imports upward to learn the version
    assert not any("conflicteval" in targets for targets in graph.values())


MAX_FILE_LINES = 500
MAX_FUNCTION_LINES = 80
# the real-format loaders: each follows its source's own file layout branch by branch,
# which reads best in one place
LONG_LOADERS = {
    "conflicteval/conflictbench/sources/ambigdocs.py:load_ambigdocs",
    "conflicteval/conflictbench/sources/conflictingqa.py:load_conflictingqa",
    "conflicteval/conflictbench/sources/contraqa.py:load_contraqa",
    "conflicteval/conflictbench/sources/macnoise.py:load_macnoise",
}


def test_files_and_functions_stay_short() -> None:
    long_files, long_functions = [], []
    for path in sorted((SRC / "conflicteval").rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        lines = path.read_text(encoding="utf-8").count("\n")
        if lines > MAX_FILE_LINES:
            long_files.append(f"{name}: {lines} lines")
        for node in ast.walk(_parse(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                where = f"{name}:{node.name}"
                if length > MAX_FUNCTION_LINES and where not in LONG_LOADERS:
                    long_functions.append(f"{where}: {length} lines")
    assert long_files == [] and long_functions == []
