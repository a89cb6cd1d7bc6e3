"""Deprecated path of :mod:`conflicteval.batch.openai_batch`; kept for one release.

Import from :mod:`conflicteval.batch.openai_batch` instead. Importing this module
warns with :class:`DeprecationWarning`; every name of the new module is reachable here.
"""

from conflicteval import _lazy

_lazy.moved(
    __name__, "conflicteval.batch.openai_batch", "import from conflicteval.batch.openai_batch"
)
