"""Resumable ConflictQA runs: ``<out>/answers.jsonl`` (one record per question) and
``<out>/run.json``.

One question is one item of :func:`conflicteval.runs.run_batch` (through a
:class:`~conflicteval.runs.Stage`): with ``memory="elicit"`` the model is first asked the
paper's zero-shot prompt, and its own answer and evidence become the memory side; then every
experiment's prompt is sent (concurrently). Every finished question is appended to the
checkpoint at once; a re-run makes no call for a finished question; a run made with another
model, dataset, memory source, experiment set or prompt is refused unless restarted; questions
can run on Ray (``executor="ray"``) or be exported as batch requests (the elicitation in one
round, the experiments in the next), and a dry run counts the calls.

Every call is as ``code/run.py`` makes it: the system message "You are a helpful assistant.",
the prompt as the user message, temperature 0, no token limit and no seed sent.
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
from conflicteval.conflictqa import prompts
from conflicteval.conflictqa.answers import parse_elicitation
from conflicteval.conflictqa.data import ConflictItem
from conflicteval.conflictqa.experiments import (
    EXPERIMENTS,
    SINGLE,
    Sides,
    build,
    elicited_sides,
    release_sides,
)
from conflicteval.errors import ConflictEvalError, DataError, ParseFailure
from conflicteval.jsonio import read_description
from conflicteval.models.core import Model
from conflicteval.ramdocs.methods import gather_all
from conflicteval.runs import BatchResult, RunOptions, Stage

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

ANSWERS_FILE = "answers.jsonl"
RUN_FILE = "run.json"
MEMORY_SOURCES: tuple[str, ...] = ("release", "elicit")
SETTINGS: dict[str, Any] = {"temperature": 0.0, "max_tokens": None, "seed": None}
"""Decoding of every call (``code/run.py``: temperature 0, no token limit)."""


async def _call(model: Model, prompt: str) -> str:
    messages = [
        {"role": "system", "content": prompts.SYSTEM},
        {"role": "user", "content": prompt},
    ]
    out = await model.generate(messages, prompt_version=prompts.prompt_version(), **SETTINGS)
    return out.text


async def answer_question(
    model: Model,
    item: ConflictItem,
    *,
    dataset: str,
    experiments: Sequence[str],
    memory: str = "release",
    gpt4_wording: bool = False,
    seed: int = 0,
) -> dict[str, Any]:
    """Run the experiments on one question: ``{"memory_source", "sides", "experiments":
    {name: {"prompt", "options", "roles", "reply"}}, ...}``.

    A StrategyQA item whose memory polarity cannot be read is returned with ``skipped`` and no
    call; an elicited reply that cannot be read is returned with ``elicitation.unreadable``
    and no experiment call (both counted by the report).
    """
    result: dict[str, Any] = {"memory_source": memory, "ground_truth": list(item.ground_truth)}
    sides: Sides | None
    if memory == "elicit":
        prompt = prompts.elicitation_prompt(item.question, dataset, gpt4_wording)
        reply = await _call(model, prompt)
        result["elicitation"] = {"prompt": prompt, "reply": reply}
        try:
            answer, evidence = parse_elicitation(reply)
        except ParseFailure as exc:
            result["elicitation"]["unreadable"] = exc.reason
            result["experiments"] = {}
            return result
        result["elicitation"]["answer"] = answer
        sides = elicited_sides(item, answer, evidence)
    else:
        sides = release_sides(item, dataset)
    if sides is None:
        result["skipped"] = "the memory answer's polarity cannot be read from its claims"
        result["experiments"] = {}
        return result
    result["sides"] = dataclasses.asdict(sides)
    built = {exp: build(item, dataset, sides, exp, seed) for exp in experiments}
    replies = await gather_all([_call(model, b["prompt"]) for b in built.values()])
    result["experiments"] = {
        exp: {**b, "reply": r} for (exp, b), r in zip(built.items(), replies, strict=True)
    }
    return result


def identity(
    model: Model, dataset: str, llm: str, experiments: Sequence[str], memory: str, seed: int
) -> dict[str, Any]:
    """What produces a run's answers (recorded beside the checkpoint, compared on resume)."""
    return {
        "task": "conflictqa",
        "dataset": dataset,
        "llm": llm,
        "experiments": list(experiments),
        "memory": memory,
        "seed": seed,
        "model": model,
        "settings": SETTINGS,
        "prompts": prompts.prompt_version(),
    }


async def run_conflictqa(
    items: Sequence[ConflictItem],
    model: Model,
    out: str | os.PathLike[str],
    *,
    dataset: str = "strategyqa",
    llm: str = "chatgpt",
    experiments: Sequence[str] = SINGLE,
    memory: str = "release",
    gpt4_wording: bool | None = None,
    seed: int = 0,
    **run: Unpack[RunKeywords],
) -> BatchResult:
    """Run the ConflictQA experiments over ``items`` into the run directory ``out``.

    Args:
        items: The questions (:func:`~conflicteval.conflictqa.load_conflictqa`).
        model: The model tested.
        out: The run directory (resumable).
        dataset: ``strategyqa`` or ``popqa`` (the file's dataset).
        llm: The LLM whose memory the file holds (recorded).
        experiments: Which experiments (default the three single-source ones).
        memory: ``release`` (the file's memory, for testing that LLM) or ``elicit`` (ask the
            model its own memory first; StrategyQA only).
        gpt4_wording: The elicitation prompt's GPT-4 wording (None: when ``gpt-4`` is in the
            model's name, as the original decides).
        seed: Seed of the multi-source shuffles.
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`); ``concurrency``
            is questions in flight (default 8).

    Raises:
        ValueError: Unknown experiment, dataset or memory source, or ``elicit`` on PopQA.
        CheckpointMismatch: The run directory holds a run made otherwise.
    """
    unknown = [e for e in experiments if e not in EXPERIMENTS]
    if unknown or not experiments:
        raise ValueError(f"unknown or no experiments {unknown} (known: {', '.join(EXPERIMENTS)})")
    if memory not in MEMORY_SOURCES:
        raise ValueError(f"memory must be one of {', '.join(MEMORY_SOURCES)}, not {memory!r}")
    if memory == "elicit" and dataset != "strategyqa":
        raise ValueError("memory elicitation is implemented for StrategyQA only (see docs)")
    if dataset not in ("strategyqa", "popqa"):
        raise ValueError(f"unknown dataset {dataset!r}")
    wording = ("gpt-4" in model.name) if gpt4_wording is None else gpt4_wording
    from conflicteval.models.answerers import writes_outputs

    run_dir = Path(out)
    writes = writes_outputs()  # a dry run (the Count answerer) writes nothing
    if writes:
        run_dir.mkdir(parents=True, exist_ok=True)
    ident = identity(model, dataset, llm, experiments, memory, seed)
    ident["gpt4_wording"] = wording if memory == "elicit" else None
    stage = Stage(
        f"conflictqa {dataset}", run_dir / ANSWERS_FILE, identity=ident, inputs=dataclasses.asdict
    )
    work = functools.partial(
        answer_question,
        model,
        dataset=dataset,
        experiments=list(experiments),
        memory=memory,
        gpt4_wording=wording,
        seed=seed,
    )
    result = await stage.run(work, items, RunOptions.of(run, concurrency=8))
    info = {
        "benchmark": "conflictqa",
        "dataset": dataset,
        "llm": llm,
        "memory": memory,
        "experiments": list(experiments),
        "model": model.name,
        "settings": SETTINGS,
        "items": len(items),
    }
    if writes:
        write_json(run_dir / RUN_FILE, info)
    return result


def run_conflictqa_sync(
    items: Sequence[ConflictItem], model: Model, out: str | os.PathLike[str], **options: Any
) -> BatchResult:
    """Synchronous :func:`run_conflictqa` (same options); works inside a running event loop."""
    return run_sync(run_conflictqa(items, model, out, **options))


def read_run(run: str | os.PathLike[str]) -> dict[str, Any]:
    """A ConflictQA run directory's ``run.json``.

    Raises:
        ConflictEvalError: No ConflictQA run there (the message names the file).
    """
    path = Path(run) / RUN_FILE
    data = read_description(
        path, missing="no run here (run 'conflictqa run')", unreadable="unreadable run description"
    )
    if not isinstance(data, dict) or data.get("benchmark") != "conflictqa":
        raise ConflictEvalError(f"{path}: not a ConflictQA run")
    for field in ("dataset", "model", "memory"):
        if not isinstance(data.get(field), str):
            raise DataError(path, None, field, "missing or not text (was the file edited?)")
    return data
