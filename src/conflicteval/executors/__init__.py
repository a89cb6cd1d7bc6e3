"""Deprecated package: the execution layer is now in :mod:`conflicteval.runs` and
:mod:`conflicteval.batch`.

Only the two public paths users had stay, for one release, as re-exports that warn
with :class:`DeprecationWarning` when imported:
:mod:`conflicteval.executors.rounds` (now :mod:`conflicteval.batch.rounds`, with
``run_rounds`` also at :func:`conflicteval.batch.run_rounds`) and
:mod:`conflicteval.executors.openai_batch` (now :mod:`conflicteval.batch.openai_batch`).
"""
