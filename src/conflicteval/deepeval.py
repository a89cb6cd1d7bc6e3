"""The deepeval adapter under its earlier import path: :mod:`conflicteval.adapters.deepeval`.

Kept so ``from conflicteval.deepeval import conflict_score_metrics`` keeps working; it adds nothing.
"""

from __future__ import annotations

from conflicteval.adapters.deepeval import *  # noqa: F403
from conflicteval.adapters.deepeval import __all__ as __all__
