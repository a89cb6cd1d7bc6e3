"""ConflictQA as an Inspect task: one experiment of the paper against the release LLM's memory.

Each sample is one question with the experiment's prompt (the library's, byte for byte the
original code's) after the system message "You are a helpful assistant."; the option texts and
their roles (memory, counter, uncertain) are in the metadata. The scorer reads the reply with
the library's parser (:func:`conflicteval.conflictqa.metrics.outcome`): the score value is the
outcome (``memory``, ``counter``, ``uncertain`` or ``unreadable``) and the metric
:func:`conflictqa_shares` gives each outcome's share and the memorization ratio, as the
library's report does. Elicitation of a new model's own memory is a two-call workflow and runs
with ``conflicteval conflictqa run --memory elicit``.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from conflicteval.conflictqa import prompts
from conflicteval.conflictqa.data import ConflictItem
from conflicteval.conflictqa.experiments import build, release_sides
from conflicteval.conflictqa.metrics import OUTCOMES, experiment_metrics, outcome
from conflicteval.conflictqa.run import SETTINGS
from conflicteval.data import resolve

from ._common import chat_messages, generate_config, sample_name


def conflictqa_samples(
    items: list[ConflictItem], dataset: str, experiment: str, seed: int = 0
) -> MemoryDataset:
    """One sample per question whose memory sides can be read (see
    :func:`~conflicteval.conflictqa.experiments.release_sides`)."""
    samples = []
    for item in items:
        sides = release_sides(item, dataset)
        if sides is None:
            continue
        built = build(item, dataset, sides, experiment, seed)
        messages = [
            {"role": "system", "content": prompts.SYSTEM},
            {"role": "user", "content": built["prompt"]},
        ]
        samples.append(
            Sample(
                id=item.id,
                input=chat_messages(messages),
                target=[k for k, v in built["roles"].items() if v == "memory"],
                metadata={"options": built["options"], "roles": built["roles"]},
            )
        )
    return MemoryDataset(samples)


@metric(scores="unreduced")
def conflictqa_shares() -> Metric:
    """Each outcome's share (``memory``, ``counter``, ``uncertain``, ``unreadable``) over every
    scored sample, and ``memorization_ratio`` (memory / (memory + counter); absent when no
    sample chose either)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        outcomes = []
        for s in scores:
            if s.score.value not in OUTCOMES:
                raise ValueError(f"{sample_name(s.sample_id)}: not an outcome: {s.score.value!r}")
            outcomes.append(str(s.score.value))
        m = experiment_metrics(outcomes)
        out = {o: float(m["shares"][o]["value"] or 0.0) for o in OUTCOMES if outcomes}
        if m["memorization_ratio"]["value"] is not None:
            out["memorization_ratio"] = float(m["memorization_ratio"]["value"])
        return out

    return compute


@scorer(metrics=[conflictqa_shares()])
def conflictqa_choice() -> Scorer:
    """The option the reply chooses, as its role; an unreadable reply is ``unreadable``."""

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        reply = state.output.completion
        return Score(value=outcome(reply, meta["options"], meta["roles"]), answer=reply)

    return score


@task
def conflictqa(
    dataset: str = "strategyqa",
    llm: str = "chatgpt",
    experiment: str = "counter",
    data: str | None = None,
    seed: int = 0,
) -> Task:
    """ConflictQA (arXiv 2305.13300), one experiment against the release LLM's memory.

    Args:
        dataset: ``strategyqa`` or ``popqa``.
        llm: Whose memory file (default ``chatgpt``).
        experiment: ``counter``, ``memory-counter``, ``counter-memory``, ``2m1c``, ``1m2c`` or
            ``2m2c``.
        data: The data file; None: the registry's ``conflictqa-<dataset>-<llm>``.
        seed: Seed of the multi-source shuffles.
    """
    from conflicteval.conflictqa.data import load_conflictqa, registry_name

    source = resolve(data, registry_name(dataset, llm))
    items = load_conflictqa(source.path)
    return Task(
        dataset=conflictqa_samples(items, dataset, experiment, seed),
        solver=generate(),
        scorer=conflictqa_choice(),
        config=generate_config(SETTINGS),
        metadata={"dataset": dataset, "llm": llm, "experiment": experiment},
    )


__all__ = ["conflictqa", "conflictqa_choice", "conflictqa_samples", "conflictqa_shares"]
