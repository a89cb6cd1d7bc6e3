"""Deprecated path of :mod:`conflicteval.runs`; kept for one release.

``from conflicteval.runner import run_batch, BatchResult, Record, ...`` keeps working
and warns with :class:`DeprecationWarning`; import the same names from
:mod:`conflicteval.runs` instead.
"""

from __future__ import annotations

import warnings
from typing import Any

import conflicteval.runs as _new

__all__ = list(_new.__all__)

warnings.warn(
    "conflicteval.runner is deprecated: import the same names from conflicteval.runs; "
    "this path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    return getattr(_new, name)
