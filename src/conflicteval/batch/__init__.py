"""How calls leave as files: export, request files and manifests, import, Batch API clients, rounds.

A workflow run under the :class:`~conflicteval.models.answerers.Export` answerer
writes its cache misses as request lines (:mod:`~conflicteval.batch.export`,
:mod:`~conflicteval.batch.writer`, :mod:`~conflicteval.batch.manifest`); the
replies come back into the response cache (:mod:`~conflicteval.batch.importer`,
:mod:`~conflicteval.batch.files`); the providers' batch APIs send the files and
fetch the replies (:mod:`~conflicteval.batch.openai_batch` for OpenAI and Azure,
:mod:`~conflicteval.batch.anthropic_batch`); and :func:`run_rounds` repeats
export → answer → import until nothing is pending.

Where items run is the neighbouring package :mod:`conflicteval.runs`.
"""

from typing import TYPE_CHECKING

from conflicteval import _lazy

if TYPE_CHECKING:
    from conflicteval.batch.export import BatchExport, batch_export, export_calls
    from conflicteval.batch.files import import_results
    from conflicteval.batch.rounds import RoundsResult, export_round, run_rounds, wait_for_user

# Public names, each stated once by module, imported on first use (see conflicteval._lazy).
__all__ = _lazy.exports(
    __name__,
    {
        ".export": "BatchExport batch_export export_calls",
        ".files": "import_results",
        ".rounds": "RoundsResult export_round run_rounds wait_for_user",
    },
)
