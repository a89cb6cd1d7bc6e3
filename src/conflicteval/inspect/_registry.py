"""The Inspect AI entry point under its earlier path (``conflicteval.inspect._registry``).

An install whose entry-point metadata was written before the adapter moved still names this
module; importing it registers the components through
:mod:`conflicteval.adapters.inspect._registry`, the module ``pyproject.toml`` declares.
"""

from __future__ import annotations

from conflicteval.adapters.inspect._registry import *  # noqa: F403
from conflicteval.adapters.inspect._registry import __all__ as __all__
