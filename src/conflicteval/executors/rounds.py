"""Deprecated path of :mod:`conflicteval.batch.rounds`; kept for one release.

Import ``run_rounds`` from :mod:`conflicteval.batch` instead. Importing this module
warns with :class:`DeprecationWarning`; every name of the new module is reachable here.
"""

from __future__ import annotations

import warnings
from typing import Any

from conflicteval.batch import rounds as _new
from conflicteval.batch.rounds import RoundsResult, export_round, run_rounds, wait_for_user

__all__ = ["RoundsResult", "export_round", "run_rounds", "wait_for_user"]

warnings.warn(
    "conflicteval.executors.rounds is deprecated: import from conflicteval.batch "
    "(conflicteval.batch.run_rounds); this path goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    return getattr(_new, name)
