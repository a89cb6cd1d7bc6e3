"""Batch rounds as one library function: :func:`run_rounds`.

A workflow (any Python callable: a scorer's ``score_many``, a judge's
``grade_run``, a whole command) runs in rounds: run it with its model calls
exported to a request file instead of sent, have the requests answered (the
OpenAI Batch API, or by you: ``vllm run-batch``, another machine), import the
replies into the response cache, and run it again, until a run finds every
call in the cache. Multi-stage workflows (decompose, then label) export their
next stage on the next run. The last run's return value is the workflow's
result, exactly as an online run would give it.

``conflicteval batch run -- COMMAND ...`` calls :func:`run_rounds` with the
parsed command run in this process.
"""

from __future__ import annotations

import inspect
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from conflicteval.batch import files as batchfile
from conflicteval.batch.openai_batch import BatchJob, BatchRunner
from conflicteval.cache import ResponseCache
from conflicteval.exitcodes import EXIT_PENDING

__all__ = ["RoundsResult", "export_round", "run_rounds", "wait_for_user"]

DEFAULT_EXPORT = "batch/requests.jsonl"

Answer = Callable[[list[Path]], None]
"""Answers one round's request files: returns once their replies are in the cache."""


@dataclass
class RoundsResult:
    """How :func:`run_rounds` ended.

    Attributes:
        value: What the workflow returned on its last run (the finished result when
            ``status`` is 0; a provisional one, with pending items, otherwise).
        status: 0 when the last run found every call answered; 3
            (:data:`~conflicteval.exitcodes.EXIT_PENDING`) when calls were still
            pending as the rounds stopped; 1 when a round brought no usable reply.
            For a command (``command=True``): the command's own exit status.
        runs: How many times the workflow ran.
    """

    value: Any
    status: int
    runs: int

    @property
    def pending(self) -> bool:
        """Calls were still waiting for batch results when the rounds stopped."""
        return self.status == EXIT_PENDING


def export_round(workflow: Callable[[], Any], export: Path) -> tuple[Any, bool]:
    """Run ``workflow`` once with the calls the cache cannot answer exported to ``export``.

    The one place that says how one round runs under batch export. A coroutine
    the workflow returns is run to its end (also inside a running event loop).

    Returns:
        What the workflow returned (None when a call made outside any batch of
        items was pending), and whether calls wait for batch results.
    """
    from conflicteval._sync import run_sync
    from conflicteval.batch.export import export_calls

    def run() -> Any:
        value = workflow()
        return run_sync(value) if inspect.iscoroutine(value) else value

    value, result = export_calls(run, export)  # the Export answerer answers this round
    return value, bool(result.requests)


def wait_for_user(files: list[Path], *, out: TextIO | None = None) -> None:
    """Say which request files to answer, and wait for Enter (a notebook or a terminal).

    Answer the files elsewhere (``vllm run-batch``, the OpenAI Batch API's web
    page, another machine), import the replies with
    :func:`conflicteval.batch.files.import_results` or
    ``conflicteval batch import``, then press Enter.
    """
    stream = out if out is not None else sys.stderr
    print("batch rounds: answer these request files and import the results:", file=stream)
    for path in files:
        print(f"  {path}", file=stream)
    input("press Enter once the results are imported ")


class _AnsweredElsewhere(BatchRunner):
    """Rounds whose request files are answered by a callable instead of the Batch API."""

    def __init__(self, answer: Answer, export: Path, cache: ResponseCache, **options: Any):
        super().__init__(None, export, cache, **options)
        self.answer = answer

    def submit(self) -> list[BatchJob]:
        """Hand the latest round's files to the answer callable (it imports the replies)."""
        round_no, files = batchfile.latest_round(self.export)
        files = [f for f in files if f.exists()]
        if files:
            self.answer(files)
        return [BatchJob(file=f.name, round=round_no, imported=True) for f in files]


def run_rounds(
    workflow: Callable[[], Any],
    export: str | os.PathLike[str] = DEFAULT_EXPORT,
    *,
    client: Any = None,
    answer: Answer | None = None,
    cache: ResponseCache | None = None,
    max_rounds: int = 20,
    poll_interval: float = 15.0,
    max_poll_interval: float = 300.0,
    served_models: tuple[str, ...] = (),
    sleep: Callable[[float], None] = time.sleep,
    out: TextIO | None = None,
    command: bool = False,
) -> RoundsResult:
    """Run ``workflow`` in batch rounds until every call it makes is answered from the cache.

    Args:
        workflow: A callable of no arguments (``lambda: scorer.score_many(items)``);
            it may return a coroutine (``lambda: scorer.ascore_many(items)``). It
            runs once a round, so it must be safe to run again: a checkpoint keeps
            what finished, the cache answers what was imported.
        export: The request file (numbered files beside it for later rounds, a
            manifest, the batch state and the downloaded results).
        client: An ``openai.OpenAI`` client for the Files and Batches endpoints
            (see :func:`~conflicteval.batch.openai_batch.make_client`), or a
            :class:`~conflicteval.batch.anthropic_batch.LazyBatchClient` (both APIs).
            None, without ``answer``: clients from the environment (``OPENAI_API_KEY`` /
            ``OPENAI_BASE_URL`` for OpenAI request files, ``ANTHROPIC_API_KEY`` /
            ``ANTHROPIC_BASE_URL`` for Message Batches), each made when a file needs it.
        answer: Instead of the Batch API: a callable given each round's request
            files that returns once their replies are imported into the cache
            (e.g. :func:`wait_for_user`).
        cache: The response cache the workflow's models use (default: the default
            cache, ``$CONFLICTEVAL_CACHE_DIR`` or the user cache directory).
        max_rounds: Stop after this many submitted rounds.
        poll_interval: First wait between two polls of a batch (seconds).
        max_poll_interval: Longest wait between two polls.
        served_models: Model names the server reports for the requested ones (see
            :func:`~conflicteval.batch.importer.import_results`).
        sleep: The sleep function between polls.
        out: Where progress lines go (default: stderr).
        command: ``workflow`` is a command that exports its own calls
            (``--batch-export``) and returns an exit status, 3 while calls are
            pending; it is run as it is.

    Returns:
        A :class:`RoundsResult`: the last run's value and how the rounds ended.

    Raises:
        ConflictEvalError: Another ``batch run`` works on this export, a batch
            could not be created, or no key for OpenAI's Batch API.
    """
    path = Path(export)
    if cache is None:
        from conflicteval.cache import open_cache

        cache = open_cache()
    last: list[Any] = [None]
    runs = [0]

    def run_once() -> int:
        runs[0] += 1
        if command:
            last[0] = workflow()
            return int(last[0] or 0)
        last[0], pending = export_round(workflow, path)
        return EXIT_PENDING if pending else 0

    options: dict[str, Any] = {"poll_interval": poll_interval, "sleep": sleep, "out": out}
    options.update(max_poll_interval=max_poll_interval, max_rounds=max_rounds)
    options.update(served_models=served_models)
    status = _driver(client, answer, path, cache, run_once, options).run()
    return RoundsResult(value=last[0], status=status, runs=runs[0])


def _driver(
    client: Any,
    answer: Answer | None,
    export: Path,
    cache: ResponseCache,
    run_once: Callable[[], int],
    options: dict[str, Any],
) -> BatchRunner:
    """What answers the rounds: the Batch API (``client``, by default from the environment)
    or the ``answer`` callable."""
    if answer is not None:
        return _AnsweredElsewhere(answer, export, cache, run_command=run_once, **options)
    from conflicteval.batch import anthropic_batch

    if client is None:  # each API's client made when a request file needs it
        client = anthropic_batch.LazyBatchClient()
    return anthropic_batch.BatchRunner(client, export, cache, run_once, **options)
