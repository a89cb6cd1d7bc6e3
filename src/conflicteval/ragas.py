"""The ragas adapter under its earlier import path: :mod:`conflicteval.adapters.ragas`.

Kept so ``from conflicteval.ragas import conflict_score_metrics`` keeps working; it adds nothing.
"""

from __future__ import annotations

from conflicteval.adapters.ragas import *  # noqa: F403
from conflicteval.adapters.ragas import __all__ as __all__
