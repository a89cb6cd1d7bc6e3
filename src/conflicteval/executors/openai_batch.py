"""Deprecated path of :mod:`conflicteval.batch.openai_batch`; kept for one release.

Import from :mod:`conflicteval.batch.openai_batch` instead. Importing this module
warns with :class:`DeprecationWarning`; every name of the new module is reachable here.
"""

from __future__ import annotations

import warnings
from typing import Any

import conflicteval.batch.openai_batch as _new

__all__ = list(_new.__all__)

warnings.warn(
    "conflicteval.executors.openai_batch is deprecated: import from "
    "conflicteval.batch.openai_batch; this path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    return getattr(_new, name)
