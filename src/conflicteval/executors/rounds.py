"""Deprecated path of :mod:`conflicteval.batch.rounds`; kept for one release.

Import ``run_rounds`` from :mod:`conflicteval.batch` instead. Importing this module
warns with :class:`DeprecationWarning`; every name of the new module is reachable here.
"""

from conflicteval import _lazy

_lazy.moved(
    __name__,
    "conflicteval.batch.rounds",
    "import from conflicteval.batch (conflicteval.batch.run_rounds)",
)
