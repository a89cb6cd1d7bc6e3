"""Entry point of the ``inspect_ai`` group: importing it registers conflicteval's components.

Declared in ``pyproject.toml`` as ``[project.entry-points.inspect_ai]
conflicteval = "conflicteval.adapters.inspect._registry"``; Inspect loads it when it
meets a ``conflicteval/<name>`` task, scorer or metric.
"""

from __future__ import annotations

# Importing the package defines (and so registers) every component; its names are this
# module's too, as Inspect's entry point expects.
from conflicteval.adapters.inspect import *  # noqa: F403
from conflicteval.adapters.inspect import __all__ as __all__
