"""The Inspect AI adapter under its earlier import path: :mod:`conflicteval.adapters.inspect`.

Kept so ``from conflicteval.inspect import wikicontradict`` keeps working; it adds nothing.
"""

from __future__ import annotations

from conflicteval.adapters.inspect import *  # noqa: F403
from conflicteval.adapters.inspect import __all__ as __all__
