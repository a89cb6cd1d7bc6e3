"""Deprecated path of :mod:`conflicteval.runs`; kept for one release.

``from conflicteval.runner import run_batch, BatchResult, Record, ...`` keeps working
and warns with :class:`DeprecationWarning`; import the same names from
:mod:`conflicteval.runs` instead.
"""

from conflicteval import _lazy

_lazy.moved(__name__, "conflicteval.runs", "import the same names from conflicteval.runs")
