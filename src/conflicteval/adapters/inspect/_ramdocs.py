"""RAMDocs (and AmbigDocs) and FaithEval as Inspect tasks, with MADAM-RAG as a solver.

The solver :func:`ramdocs_method` runs the library's own workflow
(:func:`conflicteval.ramdocs.methods.debate` for ``madam``, the method's prompt for ``rag`` and
``no-rag``) with Inspect's model making the calls, at the library's decoding (greedy, 128 new
tokens, seed 42). The scorers call the library's metrics: :func:`ramdocs_exact_match`
(:func:`conflicteval.ramdocs.exact_match` on the answer segment; an unreadable output scores 0
and says so) and :func:`faitheval_accuracy` (the README's strict and non-strict rule).
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver

from conflicteval.data import resolve
from conflicteval.errors import ParseFailure
from conflicteval.ramdocs.answers import answer_segment
from conflicteval.ramdocs.methods import DEFAULT_ROUNDS, METHODS, SETTINGS, Question, debate
from conflicteval.ramdocs.metrics import exact_match

from ._common import generate_config, sample_name, unscored_metadata


def question_samples(items: list[Question], method: str) -> MemoryDataset:
    """Samples of a method: the input is the whole prompt (``rag``, ``no-rag``) or the question
    (``madam``); the documents and what scoring needs are in the metadata."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (known: {', '.join(METHODS)})")
    samples = []
    for q in items:
        prompt = {"rag": q.rag_prompt, "no-rag": q.no_rag_prompt}.get(method, q.question)
        samples.append(
            Sample(
                id=q.id,
                input=prompt,
                target=list(q.meta.get("gold_answers") or []),
                metadata={
                    "question": q.question,
                    "documents": list(q.documents),
                    **{k: v for k, v in q.meta.items() if k not in ("documents",)},
                },
            )
        )
    return MemoryDataset(samples)


@solver
def ramdocs_method(method: str = "madam", rounds: int = DEFAULT_ROUNDS) -> Solver:
    """Answer with a Table 1 method: ``rag``/``no-rag`` one call, ``madam`` the debate."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if method != "madam":
            return await generate(state)
        model = get_model()
        config = generate_config(SETTINGS)

        async def ask(prompt: str, version: str) -> str:
            out = await model.generate([ChatMessageUser(content=prompt)], config=config)
            return out.completion.strip()

        meta = state.metadata
        trace = await debate(ask, meta["question"], meta["documents"], rounds=rounds)
        state.metadata["madam"] = {k: v for k, v in trace.items() if k != "output"}
        state.output = ModelOutput.from_content(model=str(model), content=trace["output"])
        return state

    return solve


@scorer(metrics=[accuracy(), stderr()])
def ramdocs_exact_match() -> Scorer:
    """Exact match over the multi-answer output (the library's rule, docs/ramdocs.md)."""

    async def score(state: TaskState, target: Target) -> Score:
        output = state.output.completion
        gold = state.metadata.get("gold_answers") or list(target.target)
        if not gold:
            raise ValueError(f"{sample_name(state.sample_id)} has no gold answers")
        try:
            segment = answer_segment(output)
        except ParseFailure as exc:
            return Score(
                value=0, answer=output, explanation=exc.reason, metadata={"unreadable": True}
            )
        em = exact_match(segment, gold, state.metadata.get("wrong_answers") or [])
        return Score(value=int(em), answer=segment, metadata={"unreadable": False})

    return score


@task
def ramdocs(
    method: str = "madam",
    data: str | None = None,
    dataset: str = "ramdocs",
    rounds: int = DEFAULT_ROUNDS,
) -> Task:
    """RAMDocs (arXiv 2504.13079) or AmbigDocs with a Table 1 method, scored by exact match.

    Args:
        method: ``madam`` (MADAM-RAG), ``rag`` or ``no-rag``.
        data: The data file; None: the registry's ``ramdocs`` (or ``ambigdocs``) release.
        dataset: ``ramdocs`` or ``ambigdocs``.
        rounds: MADAM-RAG's maximum number of rounds.
    """
    from conflicteval.ramdocs.data import load_ramdocs
    from conflicteval.ramdocs.items import ambigdocs_items, questions

    if dataset not in ("ramdocs", "ambigdocs"):
        raise ValueError(f"dataset must be 'ramdocs' or 'ambigdocs', not {dataset!r}")
    source = resolve(data, dataset)
    raw = load_ramdocs(source.path) if dataset == "ramdocs" else ambigdocs_items(source.path)
    return Task(
        dataset=question_samples(questions(raw), method),
        solver=ramdocs_method(method, rounds),
        scorer=ramdocs_exact_match(),
        config=generate_config(SETTINGS),
        metadata={"method": method, "dataset": dataset, "data": source.to_dict()},
    )


@scorer(metrics={"strict": [accuracy(), stderr()], "non_strict": [accuracy(), stderr()]})
def faitheval_accuracy() -> Scorer:
    """FaithEval README's valid-phrase accuracy, strict and non-strict, on the whole output."""
    from conflicteval.faitheval.data import FaithItem
    from conflicteval.faitheval.scoring import counterfactual_verdict, is_correct

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        key = meta.get("answer_key")
        choices = tuple((str(c[0]), str(c[1])) for c in meta.get("choices") or [])
        item = FaithItem(str(state.sample_id), str(meta.get("task")), "", "", (), choices, key)
        output = state.output.completion
        if not output.strip():
            return Score(
                value={"strict": 0, "non_strict": 0}, metadata=unscored_metadata("empty output")
            )
        if item.task == "counterfactual" and counterfactual_verdict(item, output) == "unreadable":
            return Score(
                value={"strict": 0, "non_strict": 0},
                answer=output,
                metadata={**unscored_metadata("no option named"), "unreadable": True},
            )
        return Score(
            value={
                "strict": int(is_correct(item, output, strict=True)),
                "non_strict": int(is_correct(item, output, strict=False)),
            },
            answer=output,
        )

    return score


@task
def faitheval(
    task: str = "inconsistent",
    method: str = "rag",
    data: str | None = None,
    rounds: int = DEFAULT_ROUNDS,
) -> Task:
    """FaithEval (arXiv 2410.03727) with a Table 1 method, scored as its README does.

    Args:
        task: ``inconsistent``, ``counterfactual`` or ``unanswerable``.
        method: ``rag`` (the README's prompt), ``no-rag`` or ``madam``.
        data: The task's parquet file; None: the registry's ``faitheval-<task>``.
        rounds: MADAM-RAG's maximum number of rounds.
    """
    from conflicteval.faitheval.data import load_faitheval
    from conflicteval.faitheval.questions import faitheval_questions

    source = resolve(data, f"faitheval-{task}")
    items = faitheval_questions(load_faitheval(task, Path(source.path)))
    return Task(
        dataset=question_samples(items, method),
        solver=ramdocs_method(method, rounds),
        scorer=faitheval_accuracy(),
        config=generate_config(SETTINGS),
        metadata={"method": method, "task": task, "data": source.to_dict()},
    )


__all__ = [
    "faitheval",
    "faitheval_accuracy",
    "question_samples",
    "ramdocs",
    "ramdocs_exact_match",
    "ramdocs_method",
]
