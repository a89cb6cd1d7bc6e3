"""Entry point of the ``inspect_ai`` group: importing it registers conflicteval's components.

Declared in ``pyproject.toml`` as ``[project.entry-points.inspect_ai]
conflicteval = "conflicteval.adapters.inspect._registry"``; Inspect loads it when it
meets a ``conflicteval/<name>`` task, scorer or metric.
"""

from __future__ import annotations

from conflicteval.adapters.inspect import (
    conflict_detection,
    conflict_score,
    conflictbench,
    faitheval,
    faitheval_accuracy,
    ramdocs,
    ramdocs_exact_match,
    ramdocs_method,
    verdict_shares,
    wikicontradict,
    wikicontradict_judge,
)

__all__ = [
    "conflict_detection",
    "conflict_score",
    "conflictbench",
    "faitheval",
    "faitheval_accuracy",
    "ramdocs",
    "ramdocs_exact_match",
    "ramdocs_method",
    "verdict_shares",
    "wikicontradict",
    "wikicontradict_judge",
]
