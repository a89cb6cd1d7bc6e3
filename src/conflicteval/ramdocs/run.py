"""Resumable runs of a method over a benchmark: ``<out>/answers.jsonl`` and ``<out>/run.json``.

:func:`run_method` runs one method over :class:`~conflicteval.ramdocs.methods.Question` items
through :func:`conflicteval.runs.run_batch`: every finished question is appended to the
checkpoint ``answers.jsonl`` at once, a re-run makes no call for a finished question, a run
made with another model, method or prompt is refused unless restarted, and the questions can
run on Ray (``executor="ray"``) or be exported as batch requests round by round.
``run.json`` records what the run is (benchmark, task, method, model, rounds) for the report.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval._atomic import write_json
from conflicteval._sync import run_sync
from conflicteval.errors import ConflictEvalError, DataError
from conflicteval.jsonio import read_description
from conflicteval.models.core import Model
from conflicteval.ramdocs import prompts
from conflicteval.ramdocs.methods import DEFAULT_ROUNDS, METHODS, SETTINGS, Question, answer
from conflicteval.runs import BatchResult, RunOptions, Stage

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

ANSWERS_FILE = "answers.jsonl"
RUN_FILE = "run.json"


async def _work(method: str, model: Model, rounds: int, item: Question) -> Any:
    return await answer(method, model, item, rounds=rounds)


def identity(
    method: str,
    model: Model,
    rounds: int,
    benchmark: str,
    task: str | None,
    data_sha256: str | None = None,
) -> dict:
    """What produces a run's answers (recorded beside the checkpoint, compared on resume).

    ``data_sha256`` (the data file's sha256, when the questions came from one) makes the run
    directory belong to that file: a run from another file into it is refused unless restarted,
    so a report never mixes two files' questions.
    """
    names = [prompts.AGENT, prompts.AGENT_HISTORY, prompts.AGGREGATOR, prompts.RAG, prompts.NO_RAG]
    data = {} if data_sha256 is None else {"data_sha256": data_sha256}
    return {
        **data,
        "task": "ramdocs-methods",
        "benchmark": benchmark,
        "benchmark_task": task,
        "method": method,
        "rounds": rounds if method == "madam" else None,
        "model": model,
        "settings": SETTINGS,
        "prompts": {n: prompts.prompt_version(n) for n in names},
    }


async def run_method(
    items: Sequence[Question],
    method: str,
    model: Model,
    out: str | os.PathLike[str],
    *,
    benchmark: str = "ramdocs",
    task: str | None = None,
    rounds: int = DEFAULT_ROUNDS,
    data_sha256: str | None = None,
    **run: Unpack[RunKeywords],
) -> BatchResult:
    """Run ``method`` over ``items`` into the run directory ``out`` (resumable).

    Args:
        items: The questions (see :mod:`conflicteval.ramdocs.items`, or
            :func:`conflicteval.faitheval.faitheval_questions`).
        method: ``no-rag``, ``rag`` or ``madam``.
        model: The model answering (every role of MADAM-RAG).
        out: The run directory.
        benchmark: ``ramdocs``, ``ambigdocs`` or ``faitheval`` (how the report scores it).
        task: The FaithEval task, for ``faitheval``.
        rounds: MADAM-RAG's maximum number of rounds (3 in the paper).
        data_sha256: sha256 of the data file the items were read from; recorded in the run's
            identity, so the directory then refuses a run from another file (unless
            ``restart=True``).
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency`` is
            questions in flight at once (default 8).

    Returns:
        The batch result; ``record.result`` of an ``ok`` question is the method's output with
        its trace and what scoring needs.

    Raises:
        ValueError: Unknown method or fewer than one round.
        CheckpointMismatch: The run directory holds a run made otherwise (another method,
            model, prompt or data file).
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    from conflicteval.models.answerers import writes_outputs

    run_dir = Path(out)
    writes = writes_outputs()  # a dry run (the Count answerer) writes nothing
    if writes:
        run_dir.mkdir(parents=True, exist_ok=True)
    ident = identity(method, model, rounds, benchmark, task, data_sha256)
    stage = Stage(f"{benchmark} {method}", run_dir / ANSWERS_FILE, identity=ident, inputs=_inputs)
    result = await stage.run(
        functools.partial(_work, method, model, rounds),
        items,
        RunOptions.of(run, concurrency=8),
    )
    info = {
        "benchmark": benchmark,
        "task": task,
        "method": method,
        "model": model.name,
        "rounds": rounds if method == "madam" else None,
        "settings": SETTINGS,
        "items": len(items),
    }
    if writes:
        write_json(run_dir / RUN_FILE, info)
    return result


def _inputs(question: Question) -> dict[str, Any]:
    """Exactly what a question's answer is made from: its text, documents, both prompts and
    what scoring copies (gold and wrong answers); an edited item is answered again on resume."""
    return dataclasses.asdict(question)


def run_method_sync(
    items: Sequence[Question],
    method: str,
    model: Model,
    out: str | os.PathLike[str],
    **options: Any,
) -> BatchResult:
    """Synchronous :func:`run_method` (same options); also works inside a running event loop."""
    return run_sync(run_method(items, method, model, out, **options))


def read_run(run: str | os.PathLike[str]) -> dict[str, Any]:
    """A run directory's ``run.json``.

    Raises:
        ConflictEvalError: No run there (the message names the file).
    """
    path = Path(run) / RUN_FILE
    data = read_description(
        path,
        missing="no run here (run 'ramdocs run' or 'faitheval run')",
        unreadable="unreadable run description",
    )
    if not isinstance(data, dict) or "method" not in data or "benchmark" not in data:
        raise ConflictEvalError(f"{path}: not a run description (no 'method' or 'benchmark')")
    for field in ("benchmark", "method", "model"):
        if field in data and not isinstance(data[field], str):
            raise DataError(path, None, field, "not text (was the file edited by hand?)")
    return data
