"""One TruthfulQA question in one format (paper §6): the answers, the main claim's
ConflictScore, regeneration when it is conflicted, and the judges (Tables 11-18)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

from conflicteval.conflictbench._prompts import load_prompt, render
from conflicteval.conflictbench.regen_reading import (
    MainClaimRule,
    _main_claim,
    format_conflict_details,
    format_context,
    parse_choice,
    parse_verdict,
    select_main_claim,
)
from conflicteval.conflictbench.truthfulqa import TruthfulQAQuestion
from conflicteval.types import CUT_OFF, Document

Mode = Literal["free", "choice"]

PROMPTS: dict[tuple[str, str], str] = {
    ("free", "rag"): "conflictbench_qa_rag",  # Table 11
    ("free", "control"): "conflictbench_qa_control",  # Table 12
    ("free", "regenerate"): "conflictbench_qa_regenerate",  # Table 13
    ("choice", "rag"): "conflictbench_choice_rag",  # Table 14
    ("choice", "control"): "conflictbench_choice_control",  # Table 15
    ("choice", "regenerate"): "conflictbench_choice_regenerate",  # Table 16
    ("judge", "truthful"): "conflictbench_judge_truthful",  # Table 17
    ("judge", "informative"): "conflictbench_judge_informative",  # Table 18
}

FREE_MAX_TOKENS = 400
"""Completion limit of free-form answers and their regeneration."""
CHOICE_MAX_TOKENS = 200
"""Completion limit of binary-choice answers and their regeneration."""
JUDGE_MAX_TOKENS = 300
"""Completion limit of the judges (Tables 17-18)."""


def _bullets(answers: Sequence[str]) -> str:
    return "\n".join(f"- {a}" for a in answers)


class RegenTask(BaseModel):
    """One question in one format, with its documents."""

    id: str
    mode: Mode
    question: TruthfulQAQuestion
    documents: list[Document]


async def _ask(model: Any, prompt: str, max_tokens: int) -> str:
    """A free-form answer (kept when cut off by the token limit; the usage counts that)."""
    return (await _ask_cut(model, prompt, max_tokens))[0]


async def _ask_cut(model: Any, prompt: str, max_tokens: int) -> tuple[str, bool]:
    """The reply, and whether the token limit cut it short (then no choice or verdict is read)."""
    out = await model.generate(
        [{"role": "user", "content": prompt}], temperature=0.0, max_tokens=max_tokens
    )
    return str(out.text), out.finish_reason == "length"


async def _judge(judge: Any, q: TruthfulQAQuestion, answer: str) -> dict[str, Any]:
    slots = {
        "question": q.question,
        "answer": answer,
        "correct_answers": _bullets(q.correct_answers),
        "incorrect_answers": _bullets(q.incorrect_answers),
    }
    t_raw, t_cut = await _ask_cut(
        judge, render(load_prompt(PROMPTS[("judge", "truthful")]), **slots), JUDGE_MAX_TOKENS
    )
    i_raw, i_cut = await _ask_cut(
        judge, render(load_prompt(PROMPTS[("judge", "informative")]), **slots), JUDGE_MAX_TOKENS
    )
    verdicts: dict[str, Any] = {
        "truthful": None if t_cut else parse_verdict(t_raw, "TRUTHFUL", answer),
        "informative": None if i_cut else parse_verdict(i_raw, "HELPFUL", answer),
        "truthful_raw": t_raw,
        "informative_raw": i_raw,
    }
    for name, cut in (("truthful", t_cut), ("informative", i_cut)):
        if cut:
            verdicts[f"{name}_error"] = CUT_OFF
    return verdicts


async def run_free(
    task: RegenTask,
    model: Any,
    scorer: Any,
    judge: Any,
    *,
    max_tokens: int = FREE_MAX_TOKENS,
    main_claim: MainClaimRule = "first_conflicted",
) -> dict[str, Any]:
    """Free-form: RAG, Control-RAG, ConflictScore of the main claim, regeneration, judges.

    ``main_claim`` chooses the claim fed back (see :func:`select_main_claim`).
    """
    q, docs = task.question, task.documents
    context = format_context(docs)
    slots = {"question": q.question, "context_text": context}
    rag = await _ask(model, render(load_prompt(PROMPTS[("free", "rag")]), **slots), max_tokens)
    control = await _ask(
        model, render(load_prompt(PROMPTS[("free", "control")]), **slots), max_tokens
    )
    score = await scorer.ascore(rag, docs)
    result: dict[str, Any] = {
        "mode": "free",
        "index": q.index,
        "question": q.question,
        "main_claim_rule": main_claim,
    }
    conflicted: bool | None = None
    sup: list[int] = []
    con: list[int] = []
    failed_pairs = 0
    if score.error or score.aggregate is None or not score.claims:
        result["score_error"] = score.error or "no claims"
        result["main_claim"] = None
        result["main_claim_index"] = None
    else:
        rows = [[p.label for p in row] for row in score.labels]
        index, conflicted, problem = select_main_claim(rows, main_claim)
        if index is not None:
            sup, con, failed_pairs, _, _ = _main_claim(rows[index])
        result["score_error"] = problem
        result["main_claim"] = score.claims[index] if index is not None else None
        result["main_claim_index"] = index
    result.update(
        conflicted=conflicted,
        supporting=[docs[i].id for i in sup],
        contradicting=[docs[i].id for i in con],
        failed_pairs=failed_pairs,
        cs_c=score.cs_c,
        cs_r=score.cs_r,
    )
    result["rag"] = {"answer": rag, **await _judge(judge, q, rag)}
    result["control"] = {"answer": control, **await _judge(judge, q, control)}
    if conflicted:
        prompt = render(
            load_prompt(PROMPTS[("free", "regenerate")]),
            question=q.question,
            context_text=context,
            original_response=rag,
            selected_claim=result["main_claim"],
            conflict_details=format_conflict_details(docs, sup, con),
        )
        regen = await _ask(model, prompt, max_tokens)
        result["regenerated"] = {"answer": regen, **await _judge(judge, q, regen)}
        result["final"] = result["regenerated"]
    else:
        result["regenerated"] = None
        result["final"] = result["rag"]
    return result


def _graded(reply: tuple[str, bool], gold: str) -> dict[str, Any]:
    """A binary-choice reply read: its letter (none when cut off) and whether it is right."""
    raw, cut = reply
    choice = None if cut else parse_choice(raw)
    return {
        "answer": raw,
        "choice": choice,
        "correct": None if choice is None else choice == gold,
        **({"error": CUT_OFF} if cut else {}),
    }


async def run_choice(
    task: RegenTask,
    model: Any,
    scorer: Any,
    *,
    seed: int = 0,
    max_tokens: int = CHOICE_MAX_TOKENS,
) -> dict[str, Any]:
    """Binary choice: RAG, Control-RAG, ConflictScore of the chosen option, regeneration."""
    q, docs = task.question, task.documents
    option_a, option_b, gold = q.options(seed)
    context = format_context(docs)
    slots = {
        "question": q.question,
        "context_text": context,
        "option_a": option_a,
        "option_b": option_b,
    }

    def graded(reply: tuple[str, bool]) -> dict[str, Any]:
        return _graded(reply, gold)

    rag = graded(
        await _ask_cut(model, render(load_prompt(PROMPTS[("choice", "rag")]), **slots), max_tokens)
    )
    control = graded(
        await _ask_cut(
            model, render(load_prompt(PROMPTS[("choice", "control")]), **slots), max_tokens
        )
    )
    result: dict[str, Any] = {
        "mode": "choice",
        "index": q.index,
        "question": q.question,
        "options": [option_a, option_b],
        "gold": gold,
        "rag": rag,
        "control": control,
    }
    conflicted: bool | None = None
    sup: list[int] = []
    con: list[int] = []
    claim = None
    failed_pairs = 0
    problem: str | None = "RAG choice could not be parsed"
    if rag["choice"] is not None:
        claim = option_a if rag["choice"] == "A" else option_b
        labelled = await scorer.labeler.label([claim], docs)
        sup, con, failed_pairs, conflicted, problem = _main_claim(labelled.labels[0])
    result.update(
        main_claim=claim,
        conflicted=conflicted,
        supporting=[docs[i].id for i in sup],
        contradicting=[docs[i].id for i in con],
        failed_pairs=failed_pairs,
        score_error=problem,
    )
    if conflicted:
        prompt = render(
            load_prompt(PROMPTS[("choice", "regenerate")]),
            question=q.question,
            context_text=context,
            original_response=rag["answer"],
            selected_claim=claim or "",
            conflict_details=format_conflict_details(docs, sup, con),
            option_a=option_a,
            option_b=option_b,
        )
        result["regenerated"] = graded(await _ask_cut(model, prompt, max_tokens))
        result["final"] = result["regenerated"]
    else:
        result["regenerated"] = None
        result["final"] = rag
    return result
