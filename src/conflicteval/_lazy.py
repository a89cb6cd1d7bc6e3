"""Public names of a package imported on first use (PEP 562), for a fast start.

``import conflicteval`` and ``conflicteval --help`` should not pay for pydantic
models, numpy, HTTP clients and every area at start-up. A package lists its
public names once, by the module each lives in, with :func:`exports`, which
makes the package import a name's module only when the name is first looked
up and returns the names for ``__all__``::

    __all__ = _lazy.exports(__name__, {".scorer": "ConflictScorer score=run"})

The package's ``if TYPE_CHECKING:`` imports say the same for type checkers; a
test checks that the two agree.

One subtlety: importing a submodule binds it on its package under its own
name (``conflicteval.conflictscore.aggregate`` the module), which would hide a
public name of the same name (``aggregate`` the function). Eager imports in
``__init__`` rebound the name right after; here the package refuses that one
binding instead, so ``from conflicteval.conflictscore import aggregate`` is the
function either way, as before.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["exports", "install", "moved"]


class _LazyPackage(types.ModuleType):
    """A package module whose public names are imported when first looked up."""

    _lazy_exports: Mapping[str, tuple[str, str]]

    def __getattr__(self, name: str) -> Any:
        target = self.__dict__.get("_lazy_exports", {}).get(name)
        if target is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        module_name, attr = target
        value = getattr(importlib.import_module(module_name, self.__name__), attr)
        types.ModuleType.__setattr__(self, name, value)  # later look-ups are plain
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        exports = self.__dict__.get("_lazy_exports", {})
        if (
            name in exports
            and isinstance(value, types.ModuleType)
            and value.__name__ == f"{self.__name__}.{name}"
        ):
            return  # a submodule import must not hide the public name it shares
        types.ModuleType.__setattr__(self, name, value)

    def __dir__(self) -> list[str]:
        return sorted(set(self.__dict__) | set(self.__dict__.get("_lazy_exports", {})))


def install(package: str, exports: Mapping[str, tuple[str, str]]) -> None:
    """Make ``package`` import each of ``exports`` (name -> (module, attribute)) on first use.

    Relative module names (``".scorer"``) are resolved against ``package``.
    """
    module = sys.modules[package]
    types.ModuleType.__setattr__(module, "_lazy_exports", dict(exports))
    module.__class__ = _LazyPackage


def exports(package: str, names_by_module: Mapping[str, str | Sequence[str]]) -> list[str]:
    """Install ``package``'s public names, stated once by module; return them for ``__all__``.

    ``names_by_module`` maps a module (relative names such as ``".scorer"`` are
    resolved against ``package``) to its public names, separated by white space
    and given as one string or several (for lines of readable length). A name
    written ``public=attribute`` is the module's ``attribute`` exported as
    ``public``. A name stated twice is a mistake and raises ``ValueError``.
    """
    table: dict[str, tuple[str, str]] = {}
    for module_name, names in names_by_module.items():
        for entry in (names if isinstance(names, str) else " ".join(names)).split():
            public, _, attr = entry.partition("=")
            if public in table:
                raise ValueError(f"{package}: public name {public!r} is stated twice")
            table[public] = (module_name, attr or public)
    install(package, table)
    return list(table)


def moved(old: str, new: str, hint: str) -> None:
    """Make module ``old`` a deprecated path of module ``new`` (kept for one release).

    Importing ``old`` warns with :class:`DeprecationWarning` (its text names ``old`` and
    ``hint``); every name of ``new`` is reachable from ``old``.
    """
    warnings.warn(
        f"{old} is deprecated: {hint}; this path goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )
    target = importlib.import_module(new)
    module = sys.modules[old]
    module.__all__ = list(getattr(target, "__all__", ()))  # type: ignore[attr-defined]
    module.__getattr__ = lambda name: getattr(target, name)  # type: ignore[method-assign]
