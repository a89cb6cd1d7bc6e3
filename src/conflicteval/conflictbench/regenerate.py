"""Conflict-feedback regeneration on TruthfulQA (paper §6, Tables 4–5, prompts 11–18).

For each question and format (``free``: free-form; ``choice``: binary choice):

1. **RAG** and **Control-RAG** answers (prompts Tables 11/12, or 14/15), from the
   question's retrieved documents.
2. ConflictScore of the RAG answer's *main claim*:

   * free-form: the main claim is the **first claim that has conflicts**, in
     the order the scorer's decomposer returns the answer's claims (a claim is
     conflicted when some document SUPPORTS and another CONTRADICTS it). Table
     13's slot is "YOUR MAIN CLAIM THAT HAD CONFLICTS" and the paper says no
     more, so taking the first conflicted claim is the project's reading.
     ``main_claim="first"`` keeps the earlier rule: the first claim only,
     regenerating only when that claim is conflicted;
   * binary choice: the main claim is the **full text of the chosen option**
     (as the paper does), labelled against every document by the scorer's labeler.

   Failed pairs are never read as IRRELEVANT: when they could have made the
   main claim conflicted, it is *undetermined* (``conflicted`` None, counted as
   not scored, no regeneration), as in the detection task.

3. Only when the main claim is conflicted: **regeneration** (Tables 13/16) fed
   the question, documents, original response, the conflicted claim and its
   supporting and contradicting documents (``{conflict_details}``, see
   :func:`format_conflict_details`). **Regenerated-RAG** is the regenerated
   answer for those questions and the RAG answer for all others.
4. Free-form answers are judged for truthfulness (Table 17) and informativeness
   (Table 18); binary choices are checked against the gold letter.

Failures are counted, never folded: a judge reply without a verdict, an
unparsable choice, or an answer that could not be scored is reported as such.
Each (question, format) is one item of :func:`conflicteval.runs.run_batch`.

One question in one format is answered in ``regen_steps``, replies are read in
``regen_reading`` and the tables are made in ``regen_tables``; their names stay
importable from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import TYPE_CHECKING, Any

from conflicteval.conflictbench._prompts import load_prompt
from conflicteval.conflictbench.regen_reading import (
    MAIN_CLAIM_RULES,
    MainClaimRule,
    format_conflict_details,
    format_context,
    parse_choice,
    parse_verdict,
    select_main_claim,
)
from conflicteval.conflictbench.regen_steps import (
    CHOICE_MAX_TOKENS,
    FREE_MAX_TOKENS,
    JUDGE_MAX_TOKENS,
    PROMPTS,
    Mode,
    RegenTask,
    run_choice,
    run_free,
)
from conflicteval.conflictbench.regen_tables import (
    METHODS,
    PAPER_TABLE4,
    PAPER_TABLE5,
    FlipCounts,
    MethodRow,
    RegenerationSummary,
    flips_text,
    summarize_regeneration,
    table4,
    table5,
)
from conflicteval.conflictbench.truthfulqa import TruthfulQAQuestion, require_binary_choice
from conflicteval.runs import BatchResult, RunOptions, Stage
from conflicteval.types import Document, Usage

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

__all__ = [
    "CHOICE_MAX_TOKENS",
    "FREE_MAX_TOKENS",
    "JUDGE_MAX_TOKENS",
    "MAIN_CLAIM_RULES",
    "METHODS",
    "PAPER_TABLE4",
    "PAPER_TABLE5",
    "PROMPTS",
    "FlipCounts",
    "MainClaimRule",
    "MethodRow",
    "Mode",
    "RegenTask",
    "RegenerationRun",
    "RegenerationSummary",
    "arun_regeneration",
    "flips_text",
    "format_conflict_details",
    "format_context",
    "parse_choice",
    "parse_verdict",
    "plan_regeneration",
    "regen_inputs",
    "run_choice",
    "run_free",
    "run_regeneration",
    "select_main_claim",
    "summarize_regeneration",
    "table4",
    "table5",
]


# ------------------------------------------------------------------ running


@dataclass
class RegenerationRun:
    """The outcome of :func:`run_regeneration`."""

    summary: RegenerationSummary
    batch: BatchResult

    @property
    def usage(self) -> Usage:
        """Token usage of all calls (answers, scoring, judges)."""
        return self.batch.usage

    def tables(self, *, paper: bool = False) -> str:
        """Tables 4 and 5 and the flip counts."""
        parts = []
        if self.summary.free and self.summary.free[0].n + self.summary.failed.get("free", 0):
            parts.append("Free-form (Table 4)\n\n" + table4(self.summary, paper=paper))
        if self.summary.choice and self.summary.choice[0].n + self.summary.failed.get("choice", 0):
            parts.append("Binary choice (Table 5)\n\n" + table5(self.summary, paper=paper))
        parts.append(flips_text(self.summary))
        return "\n\n".join(parts)

    def modes_line(self) -> str:
        """Failed items and answers without a scored main claim, per mode, on one line."""
        s = self.summary

        def per_mode(counts: dict[str, int]) -> str:
            return ", ".join(f"{m} {counts.get(m, 0)}" for m in ("free", "choice"))

        return (
            f"failed items: {per_mode(s.failed)}; answers without a "
            f"scored main claim (no regeneration possible): {per_mode(s.not_scored)}"
        )

    def summary_text(self) -> str:
        """Failures, unscored answers and tokens."""
        return f"{self.batch.summary()}\n{self.modes_line()}"


def plan_regeneration(
    questions: Sequence[TruthfulQAQuestion],
    documents: Mapping[int, Sequence[Document]],
    modes: Sequence[Mode] = ("free", "choice"),
    *,
    max_docs: int | None = 10,
) -> list[RegenTask]:
    """Tasks for every question that has documents, in each mode.

    Raises:
        DataError: ``"choice"`` is asked for questions without a best incorrect
            answer (the 2022 TruthfulQA release).
    """
    if "choice" in modes:
        require_binary_choice(questions)
    tasks = []
    for mode in modes:
        if mode not in ("free", "choice"):
            raise ValueError(f"unknown mode {mode!r}; expected 'free' or 'choice'")
        for q in questions:
            docs = list(documents.get(q.index, []))
            if not docs:
                continue
            if max_docs is not None:
                docs = docs[:max_docs]
            tasks.append(RegenTask(id=f"{mode}:{q.index}", mode=mode, question=q, documents=docs))
    return tasks


def _identity(
    model: Any, judge: Any, scorer: Any, seed: int, max_docs: int | None, main_claim: str
) -> dict[str, Any]:
    """What produced a regeneration run (recorded with its checkpoint, compared on resume)."""
    from conflicteval.fingerprint import text_version
    from conflicteval.runs.identity import describe

    return {
        "task": "conflictbench-regenerate",
        "model": describe(model),
        "judge": describe(judge),
        "scorer": describe(scorer),
        "seed": seed,
        "max_docs": max_docs,
        "main_claim": main_claim,
        "prompts": {f"{m}/{k}": text_version(load_prompt(v)) for (m, k), v in PROMPTS.items()},
        "max_tokens": [FREE_MAX_TOKENS, CHOICE_MAX_TOKENS, JUDGE_MAX_TOKENS],
    }


def regen_inputs(task: RegenTask) -> dict[str, Any]:
    """What one task's record is made from: its format, the question with its answers (the
    options and the judge's references), and the documents it is shown.

    A record made from other inputs (an edited TruthfulQA file or documents file) is computed
    again on resume, and the run's summary says how many were.
    """
    return {"mode": task.mode, "question": task.question, "documents": task.documents}


async def arun_regeneration(
    questions: Sequence[TruthfulQAQuestion],
    documents: Mapping[int, Sequence[Document]],
    model: Any,
    scorer: Any,
    *,
    judge: Any | None = None,
    modes: Sequence[Mode] = ("free", "choice"),
    seed: int = 0,
    max_docs: int | None = 10,
    checkpoint: str | PathLike[str] | None = None,
    main_claim: MainClaimRule = "first_conflicted",
    **run: Unpack[RunKeywords],
) -> RegenerationRun:
    """Run §6 over questions (async).

    Args:
        questions: From :func:`~conflicteval.conflictbench.truthfulqa.load_truthfulqa`.
        documents: ``{question index: documents}`` (questions without documents are skipped).
        model: The answering model (paper: gpt-4.1-mini).
        scorer: A :class:`~conflicteval.conflictscore.ConflictScorer` (its labeler is
            also used for the binary-choice claim).
        judge: Judge model for Tables 17–18 (default: ``model``).
        modes: ``"free"`` and/or ``"choice"``.
        seed: Seed of the binary-choice option order.
        max_docs: Documents per question (paper: top 10).
        checkpoint: JSONL checkpoint (resumable).
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency`` is
            questions in flight (default 8).
        main_claim: Free-form main claim: ``"first_conflicted"`` (default, the first
            claim that has conflicts) or ``"first"`` (the first claim only; the
            project's earlier behaviour). See :func:`select_main_claim`.
    """
    if main_claim not in MAIN_CLAIM_RULES:
        raise ValueError(
            f"unknown main-claim rule {main_claim!r}; expected one of {MAIN_CLAIM_RULES}"
        )
    judge_model = judge if judge is not None else model
    tasks = plan_regeneration(questions, documents, modes, max_docs=max_docs)

    async def work(task: RegenTask) -> dict[str, Any]:
        if task.mode == "free":
            return await run_free(task, model, scorer, judge_model, main_claim=main_claim)
        return await run_choice(task, model, scorer, seed=seed)

    identity = _identity(model, judge_model, scorer, seed, max_docs, main_claim)
    stage = Stage("regeneration", checkpoint, identity=identity, inputs=regen_inputs)
    batch = await stage.run(
        work,
        tasks,
        RunOptions.of(run, concurrency=8),
    )
    summary = summarize_regeneration(
        (t.mode, rec.status, rec.result if rec.status == "ok" else None)
        for t, rec in zip(tasks, batch.records, strict=True)
    )
    return RegenerationRun(summary=summary, batch=batch)


def run_regeneration(
    questions: Sequence[TruthfulQAQuestion],
    documents: Mapping[int, Sequence[Document]],
    model: Any,
    scorer: Any,
    **options: Any,
) -> RegenerationRun:
    """Synchronous :func:`arun_regeneration` (same options)."""
    from conflicteval._sync import run_sync

    return run_sync(arun_regeneration(questions, documents, model, scorer, **options))
