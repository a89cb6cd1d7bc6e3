"""Inspect AI integration: conflicteval's tasks and scorers inside ``inspect eval``.

Needs the ``inspect`` extra (``pip install '.[inspect]'``). The
components are registered through the ``inspect_ai`` entry-point group, so
they resolve as ``conflicteval/<name>`` from the ``inspect`` command line and
from :func:`inspect_ai.eval`:

* tasks :func:`wikicontradict`, :func:`conflictbench`, :func:`ramdocs`, :func:`faitheval` and
  :func:`conflictqa` (scorer :func:`conflictqa_choice`, metric :func:`conflictqa_shares`);
* scorers :func:`wikicontradict_judge`, :func:`conflict_score`, :func:`ramdocs_exact_match`
  and :func:`faitheval_accuracy`; the solver :func:`ramdocs_method` (MADAM-RAG);
* metrics :func:`verdict_shares` and :func:`conflict_detection`.

The adapter only translates between Inspect's types and the library's prompt
builders, reply parsers and metrics; model calls go through Inspect's model
(its cache, batch mode and connection limits). See ``docs/inspect.md``.
"""

from __future__ import annotations

from conflicteval.errors import require

require("inspect_ai", "inspect")

from conflicteval.adapters.inspect._conflictqa import (  # noqa: E402
    conflictqa,
    conflictqa_choice,
    conflictqa_shares,
)
from conflicteval.adapters.inspect._conflictscore import (  # noqa: E402
    conflict_detection,
    conflict_score,
    conflictbench,
    conflictbench_dataset,
)
from conflicteval.adapters.inspect._ramdocs import (  # noqa: E402
    faitheval,
    faitheval_accuracy,
    ramdocs,
    ramdocs_exact_match,
    ramdocs_method,
)
from conflicteval.adapters.inspect._wikicontradict import (  # noqa: E402
    verdict_shares,
    wikicontradict,
    wikicontradict_dataset,
    wikicontradict_judge,
)

__all__ = [
    "conflict_detection",
    "conflict_score",
    "conflictbench",
    "conflictbench_dataset",
    "conflictqa",
    "conflictqa_choice",
    "conflictqa_shares",
    "faitheval",
    "faitheval_accuracy",
    "ramdocs",
    "ramdocs_exact_match",
    "ramdocs_method",
    "verdict_shares",
    "wikicontradict",
    "wikicontradict_dataset",
    "wikicontradict_judge",
]
