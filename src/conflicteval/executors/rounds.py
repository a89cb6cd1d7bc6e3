"""Deprecated path of :mod:`conflicteval.batch.rounds`; kept for one release.

Import ``run_rounds`` from :mod:`conflicteval.batch` instead. Importing this module
warns with :class:`DeprecationWarning`; every name of the new module is reachable here.
"""

from __future__ import annotations

import warnings
from typing import Any

import conflicteval.batch.rounds as _new

__all__ = list(_new.__all__)

warnings.warn(
    "conflicteval.executors.rounds is deprecated: import from conflicteval.batch "
    "(conflicteval.batch.run_rounds); this path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    return getattr(_new, name)
