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
Each (question, format) is one item of :func:`conflicteval.runner.run_batch`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from typing import Any, Literal

from pydantic import BaseModel, Field

from conflicteval.conflictbench._prompts import load_prompt, render
from conflicteval.conflictbench.metrics import predict_conflict
from conflicteval.conflictbench.reports import format_documents
from conflicteval.conflictbench.truthfulqa import TruthfulQAQuestion, require_binary_choice
from conflicteval.runner import BatchResult, run_batch
from conflicteval.types import CUT_OFF, Document, Relation, Usage

Mode = Literal["free", "choice"]

MainClaimRule = Literal["first_conflicted", "first"]
"""How the free-form main claim is chosen: the first conflicted claim, or the first claim."""

MAIN_CLAIM_RULES: tuple[MainClaimRule, ...] = ("first_conflicted", "first")

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

PAPER_TABLE4 = {"RAG": (78.7, 91.5), "Control-RAG": (81.6, 93.2), "Regenerated-RAG": (82.4, 93.2)}
"""Paper Table 4 (free-form, 779 questions): (truthful %, informative %)."""

PAPER_TABLE5 = {"RAG": 84.21, "Control-RAG": 84.47, "Regenerated-RAG": 85.24}
"""Paper Table 5 (binary choice, 779 questions): accuracy %."""

METHODS = ("RAG", "Control-RAG", "Regenerated-RAG")

FREE_MAX_TOKENS = 400
"""Completion limit of free-form answers and their regeneration."""
CHOICE_MAX_TOKENS = 200
"""Completion limit of binary-choice answers and their regeneration."""
JUDGE_MAX_TOKENS = 300
"""Completion limit of the judges (Tables 17-18)."""


def format_context(documents: Sequence[Document]) -> str:
    """``{context_text}``: the documents as ``Document <n>: <title>`` blocks."""
    return format_documents(documents)


def format_conflict_details(
    documents: Sequence[Document], supporting: Sequence[int], contradicting: Sequence[int]
) -> str:
    """``{conflict_details}``: the supporting and contradicting documents of the claim.

    Documents keep the numbers they have in ``{context_text}``.
    """

    def block(title: str, indices: Sequence[int]) -> str:
        parts = [title]
        for i in indices:
            doc = documents[i]
            head = f"Document {i + 1}: {doc.title}" if doc.title else f"Document {i + 1}:"
            parts.append(f"{head}\n{doc.text.strip()}")
        return "\n\n".join(parts)

    return (
        block("SUPPORTING DOCUMENTS:", supporting)
        + "\n\n"
        + block("CONTRADICTING DOCUMENTS:", contradicting)
    )


_CHOICE_PAREN = re.compile(r"\(\s*([AB])\s*\)")
_CHOICE_LINE = re.compile(r"^\s*(?:answer\s*:\s*)?\(?\s*([AB])\s*\)?\s*(?:[–—:.\-]|$)", re.I)


_NEGATED = re.compile(r"\b(?:not|no|never|isn't|rather\s+than|instead\s+of)[\s*_`'\"]*$", re.I)


def parse_choice(text: str) -> Literal["A", "B"] | None:
    """The letter a binary-choice reply chose, or None.

    Its first line ``A – …``/``(B)``; else the one letter written in
    parentheses anywhere. Both letters (``(A) or (B)``, the prompt's example
    echoed) give None, and a letter right after a negation ("not (A)") does
    not count.
    """
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        m = _CHOICE_LINE.match(lines[0])
        if m:
            return "A" if m.group(1).upper() == "A" else "B"
    letters = {
        m2.group(1)
        for m2 in _CHOICE_PAREN.finditer(text)
        if not _NEGATED.search(text[max(0, m2.start() - 30) : m2.start()])
    }
    if len(letters) == 1:
        return "A" if letters.pop() == "A" else "B"
    return None


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*_`\[\]]", "", text)).strip().lower()


def parse_verdict(text: str, key: str, answer: str | None = None) -> bool | None:
    """``True``/``False`` after ``<key>:`` (e.g. ``TRUTHFUL: [True]``); None when absent.

    Not read as a verdict: the prompt's format echoed (``TRUTHFUL: [True/False]``),
    a negation (``TRUTHFUL: not true``), and, with ``answer`` given, a line
    copied word for word from the judged answer (a planted verdict, echoed).
    Several verdicts that disagree give None.
    """
    found: set[bool] = set()
    pattern = key + r"\s*:\s*[\*\[\s]*(true|false)\b(\s*(?:/|\bor\b)\s*(?:true|false))?"
    for m in re.finditer(pattern, text, re.IGNORECASE):
        if m.group(2):
            continue  # "True/False": the format, not a verdict
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        line = text[start : end if end != -1 else len(text)]
        if answer and _normal(line) and _normal(line) in _normal(answer):
            continue
        found.add(m.group(1).lower() == "true")
    return found.pop() if len(found) == 1 else None


def _main_claim(
    row: Sequence[Relation | None],
) -> tuple[list[int], list[int], int, bool | None, str | None]:
    """The main claim's labels → (supporting, contradicting, failed pairs, conflicted, problem).

    ``conflicted`` follows the detection rule (:func:`predict_conflict`): True
    when some document SUPPORTS and another CONTRADICTS; None (undetermined,
    with ``problem`` set) when failed pairs could have changed a "not
    conflicted" outcome. A failed pair is never read as IRRELEVANT.
    """
    sup = [j for j, lab in enumerate(row) if lab == "SUPPORTS"]
    con = [j for j, lab in enumerate(row) if lab == "CONTRADICTS"]
    failed = sum(lab is None for lab in row)
    conflicted = predict_conflict(list(row))
    problem = None
    if conflicted is None:
        problem = f"main claim undetermined: {failed} of {len(row)} pairs failed"
    return sup, con, failed, conflicted, problem


def select_main_claim(
    rows: Sequence[Sequence[Relation | None]], rule: MainClaimRule = "first_conflicted"
) -> tuple[int | None, bool | None, str | None]:
    """Choose the free-form main claim from the labels of every claim (one row per claim).

    Args:
        rows: Labels of each claim against each document, claims in decomposition order.
        rule: ``"first_conflicted"``: the first claim that is conflicted (Table 13's
            "main claim that had conflicts"); ``"first"``: the first claim.

    Returns:
        ``(claim index, conflicted, problem)``. With ``"first_conflicted"``: the
        first conflicted claim; else, when failed pairs could have made a claim
        conflicted, the first such claim with ``conflicted`` None (undetermined,
        ``problem`` set); else ``(None, False, None)``. A claim found conflicted
        is chosen even when an earlier claim is undetermined.
    """
    if rule not in MAIN_CLAIM_RULES:
        raise ValueError(f"unknown main-claim rule {rule!r}; expected one of {MAIN_CLAIM_RULES}")
    if not rows:
        return None, None, "no claims"
    candidates = rows[:1] if rule == "first" else rows
    undetermined: int | None = None
    for i, row in enumerate(candidates):
        verdict = predict_conflict(list(row))
        if verdict:
            return i, True, None
        if verdict is None and undetermined is None:
            undetermined = i
    if undetermined is not None:
        row = rows[undetermined]
        failed = sum(lab is None for lab in row)
        return undetermined, None, f"main claim undetermined: {failed} of {len(row)} pairs failed"
    return (0, False, None) if rule == "first" else (None, False, None)


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
        raw, cut = reply
        choice = None if cut else parse_choice(raw)
        return {
            "answer": raw,
            "choice": choice,
            "correct": None if choice is None else choice == gold,
            **({"error": CUT_OFF} if cut else {}),
        }

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


# ------------------------------------------------------------------ summaries (pure)


class MethodRow(BaseModel):
    """One method's row: rates over judged/parsed answers, with the failures beside them."""

    method: str
    n: int = 0
    truthful: float | None = None
    informative: float | None = None
    accuracy: float | None = None
    unjudged_truthful: int = 0
    unjudged_informative: int = 0
    unparsed: int = 0


class FlipCounts(BaseModel):
    """What regeneration did to the answers whose main claim was conflicted.

    For binary choice: ``kept`` same letter, ``corrected`` wrong → right,
    ``flipped`` right → wrong. For free-form the same on the truthfulness
    verdict (``kept``: verdict unchanged). ``undetermined``: a side could not
    be parsed or judged.
    """

    conflicted: int = 0
    kept: int = 0
    changed: int = 0
    corrected: int = 0
    flipped: int = 0
    undetermined: int = 0


class RegenerationSummary(BaseModel):
    """Tables 4 and 5 plus counts."""

    free: list[MethodRow] = Field(default_factory=list)
    choice: list[MethodRow] = Field(default_factory=list)
    free_flips: FlipCounts = Field(default_factory=FlipCounts)
    choice_flips: FlipCounts = Field(default_factory=FlipCounts)
    not_scored: dict[str, int] = Field(default_factory=dict)
    failed: dict[str, int] = Field(default_factory=dict)


def _rate(values: list[bool | None]) -> tuple[float | None, int]:
    known = [v for v in values if v is not None]
    rate = 100.0 * sum(known) / len(known) if known else None
    return rate, len(values) - len(known)


def summarize_regeneration(
    records: Iterable[tuple[str, str, dict[str, Any] | None]],
) -> RegenerationSummary:
    """Tables 4/5 and flip counts from ``(mode, status, result)`` triples (pure)."""
    out = RegenerationSummary()
    free: list[dict[str, Any]] = []
    choice: list[dict[str, Any]] = []
    for mode, status, result in records:
        if status != "ok" or result is None:
            out.failed[mode] = out.failed.get(mode, 0) + 1
            continue
        (free if mode == "free" else choice).append(result)
        if result.get("conflicted") is None:
            out.not_scored[mode] = out.not_scored.get(mode, 0) + 1
    keys = {"RAG": "rag", "Control-RAG": "control", "Regenerated-RAG": "final"}
    for method in METHODS:
        answers = [r[keys[method]] for r in free]
        t, ut = _rate([a.get("truthful") for a in answers])
        i, ui = _rate([a.get("informative") for a in answers])
        out.free.append(
            MethodRow(
                method=method,
                n=len(answers),
                truthful=t,
                informative=i,
                unjudged_truthful=ut,
                unjudged_informative=ui,
            )
        )
        picks = [r[keys[method]] for r in choice]
        acc, unparsed = _rate([a.get("correct") for a in picks])
        out.choice.append(MethodRow(method=method, n=len(picks), accuracy=acc, unparsed=unparsed))
    out.free_flips = _flips(free, "truthful", same_key="truthful")
    out.choice_flips = _flips(choice, "correct", same_key="choice")
    return out


def _flips(results: list[dict[str, Any]], good: str, same_key: str) -> FlipCounts:
    f = FlipCounts()
    for r in results:
        regen = r.get("regenerated")
        if not r.get("conflicted") or regen is None:
            continue
        f.conflicted += 1
        before, after = r["rag"].get(good), regen.get(good)
        if r["rag"].get(same_key) is None or regen.get(same_key) is None:
            f.undetermined += 1
            continue
        if r["rag"][same_key] == regen[same_key]:
            f.kept += 1
            continue
        f.changed += 1
        if before is False and after is True:
            f.corrected += 1
        elif before is True and after is False:
            f.flipped += 1
    return f


def _pct(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}%"


def table4(summary: RegenerationSummary, *, paper: bool = False) -> str:
    """Free-form results in the layout of Table 4 (+ unjudged counts)."""
    lines = [
        "| Method | Truthful | Informative | Questions | Unjudged (T) | Unjudged (I) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in summary.free:
        lines.append(
            f"| {r.method} | {_pct(r.truthful, 1)} | {_pct(r.informative, 1)} | {r.n} "
            f"| {r.unjudged_truthful} | {r.unjudged_informative} |"
        )
    if paper:
        for method, (t, i) in PAPER_TABLE4.items():
            lines.append(f"| {method} (paper) | {t:.1f}% | {i:.1f}% | 779 | | |")
    return "\n".join(lines)


def table5(summary: RegenerationSummary, *, paper: bool = False) -> str:
    """Binary-choice results in the layout of Table 5 (+ unparsed counts)."""
    lines = ["| Method | Accuracy | Questions | Unparsed |", "|---|---:|---:|---:|"]
    for r in summary.choice:
        lines.append(f"| {r.method} | {_pct(r.accuracy, 2)} | {r.n} | {r.unparsed} |")
    if paper:
        for method, acc in PAPER_TABLE5.items():
            lines.append(f"| {method} (paper) | {acc:.2f}% | 779 | |")
    return "\n".join(lines)


def flips_text(summary: RegenerationSummary) -> str:
    """One line per format: conflicted answers and what regeneration did to them."""
    out = []
    for mode, f in (("free-form", summary.free_flips), ("binary choice", summary.choice_flips)):
        out.append(
            f"{mode}: {f.conflicted} answers with a conflicted main claim regenerated; "
            f"{f.kept} kept, {f.changed} changed ({f.corrected} corrected, "
            f"{f.flipped} wrongly flipped), {f.undetermined} undetermined"
        )
    return "\n".join(out)


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
    concurrency: int = 8,
    progress: bool | None = None,
    retry_failed: bool = False,
    restart: bool = False,
    main_claim: MainClaimRule = "first_conflicted",
    executor: Any = None,
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
        concurrency: Questions in flight.
        progress: Progress bar (None: when stderr is a terminal).
        retry_failed: On resume, run failed items again.
        restart: Start over (move an existing checkpoint aside); a checkpoint
            made with other models, scorer or settings is refused otherwise.
        main_claim: Free-form main claim: ``"first_conflicted"`` (default, the first
            claim that has conflicts) or ``"first"`` (the first claim only; the
            project's earlier behaviour). See :func:`select_main_claim`.
        executor: Where items run: None/``"local"`` (this process), ``"ray"``
            or an executor object (see :func:`conflicteval.runner.run_batch`).
    """
    if main_claim not in MAIN_CLAIM_RULES:
        raise ValueError(
            f"unknown main-claim rule {main_claim!r}; expected one of {MAIN_CLAIM_RULES}"
        )
    from conflicteval.identity import describe, text_version

    judge_model = judge if judge is not None else model
    tasks = plan_regeneration(questions, documents, modes, max_docs=max_docs)

    async def work(task: RegenTask) -> dict[str, Any]:
        if task.mode == "free":
            return await run_free(task, model, scorer, judge_model, main_claim=main_claim)
        return await run_choice(task, model, scorer, seed=seed)

    batch = await run_batch(
        work,
        tasks,
        key=lambda t: t.id,
        checkpoint=checkpoint,
        concurrency=concurrency,
        progress=progress,
        desc="regeneration",
        retry_failed=retry_failed,
        identity={
            "task": "conflictbench-regenerate",
            "model": describe(model),
            "judge": describe(judge_model),
            "scorer": describe(scorer),
            "seed": seed,
            "max_docs": max_docs,
            "main_claim": main_claim,
            "prompts": {f"{m}/{k}": text_version(load_prompt(v)) for (m, k), v in PROMPTS.items()},
            "max_tokens": [FREE_MAX_TOKENS, CHOICE_MAX_TOKENS, JUDGE_MAX_TOKENS],
        },
        restart=restart,
        executor=executor,
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
