"""Which reader reads a run directory: one module per run kind, found by looking.

Every module in :mod:`conflicteval.view.kinds` that defines ``KIND`` (a :class:`RunKind`)
is a reader; nothing else lists them, so a new kind of run (a labeler bench, RAMDocs) is
one new module there. A run's kind is found from the files in its directory: each kind's
``detect`` looks at the directory and the first kind (by ``priority``, highest first) that
recognises it reads it.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conflicteval.errors import ConflictEvalError
from conflicteval.record_errors import reading_record

from .model import RunView

__all__ = ["RunKind", "detect_kind", "has_files", "known_kinds", "load_run"]


@dataclass(frozen=True)
class RunKind:
    """A kind of run directory and how to read it.

    Attributes:
        name: Short name (``conflictscore``).
        title: For people ("ConflictScore run (conflicteval score)").
        detect: True when a directory is of this kind (looks at file names, cheaply).
        read: Reads the directory into a :class:`RunView`.
        priority: Higher is tried first (a specific kind before a generic one).
    """

    name: str
    title: str
    detect: Callable[[Path], bool]
    read: Callable[[Path], RunView]
    priority: int = 0


def has_files(*names: str) -> Callable[[Path], bool]:
    """A ``detect`` for :class:`RunKind`: True for a directory that holds every one of
    ``names`` (the files only that kind of run writes)."""

    def detect(path: Path) -> bool:
        return all((path / name).exists() for name in names)

    return detect


def known_kinds() -> list[RunKind]:
    """Every registered kind, highest priority first."""
    package = importlib.import_module(f"{__package__}.kinds")
    found: list[RunKind] = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        kind = getattr(module, "KIND", None)
        if isinstance(kind, RunKind):
            found.append(kind)
    return sorted(found, key=lambda k: (-k.priority, k.name))


def detect_kind(path: str | Path) -> RunKind:
    """The kind of the run directory ``path``.

    Raises:
        ConflictEvalError: Not a directory, or no reader recognises it.
    """
    p = Path(path)
    if not p.is_dir():
        raise ConflictEvalError(f"{p}: not a run directory")
    for kind in known_kinds():
        if kind.detect(p):
            return kind
    names = ", ".join(k.name for k in known_kinds())
    raise ConflictEvalError(
        f"{p}: not a run directory of a known kind (known: {names}); "
        "expected e.g. checkpoint.jsonl or generations.jsonl"
    )


def load_run(path: str | Path, kind: str | None = None) -> RunView:
    """Read a run directory into a :class:`RunView`.

    Args:
        path: The run directory.
        kind: Force a kind by name (default: detected from the directory's files).

    Raises:
        ConflictEvalError: Unknown kind, a forced ``kind`` the directory is not a run of,
            or an unreadable run.
        DataError: A file of the run does not hold what conflicteval wrote there
            (edited by hand): names the file and record where the kind's reader
            knows them, else the run directory.
    """
    p = Path(path)
    if kind is None:
        chosen = detect_kind(p)
    else:
        by_name = {k.name: k for k in known_kinds()}
        if kind not in by_name:
            raise ConflictEvalError(f"unknown run kind {kind!r}; known: {', '.join(by_name)}")
        chosen = by_name[kind]
        if p.is_dir() and not chosen.detect(p):
            # a forced kind reads nothing of another kind's files: an empty report, refused
            try:
                found = f"a {detect_kind(p).name} run"
            except ConflictEvalError:
                found = "no run of a known kind"
            raise ConflictEvalError(
                f"{p}: not a {chosen.name} run ({found}; a {chosen.name} run holds other "
                "files); drop --kind to read it as what it is"
            )
    with reading_record(p):  # the last resort; kinds name the file and record themselves
        run = chosen.read(p)
    from .contract import apply_contract

    apply_contract(run, p)  # money, time, instruments and "not measured" from the contract
    return run
