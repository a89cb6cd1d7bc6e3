"""Grading responses: the paper's LLM judge (WikiContradictEval) or the ``lexical`` baseline.

``Judge(model)`` grades one response, or a whole run's ``generations.jsonl``
into ``judgements.jsonl`` (the runner's checkpoint: resumable, one line per
graded row, failures kept with the judge's raw reply).

Templates 2 and 3 have a single expected answer and are reported, as in the
paper's Table 2, as correct/incorrect only: a judge label "partially
correct" there (the one answer found, with something extra) maps to
"correct". The judge's own label is kept as ``judge_label``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from conflicteval.errors import ConflictEvalError, ParseFailure
from conflicteval.models import Model, get_model
from conflicteval.runs import BatchResult, Record, RunOptions, Stage, read_checkpoint
from conflicteval.types import CUT_OFF, Decoding
from conflicteval.wikicontradict.generate import GenerationRow, read_generations
from conflicteval.wikicontradict.judge_lexical import LEXICAL_VERSION, lexical_judge
from conflicteval.wikicontradict.judge_template import (
    JUDGE_PROMPT_VERSION,
    Verdict,
    judge_prompt,
    parse_comment,
    parse_verdict,
)
from conflicteval.wikicontradict.templates import SINGLE_ANSWER_TEMPLATES

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

JUDGEMENTS_FILE = "judgements.jsonl"
JUDGE_SETTINGS = Decoding(temperature=0.0, max_tokens=250, seed=5)
"""The judge's decoding: the paper's settings (greedy, 250 new tokens, seed 5)."""


def map_label(label: Verdict, template: str) -> Verdict:
    """The label as reported for ``template``: "partially correct" → "correct" for 2 and 3.

    The WikiContradict paper (Hou et al., NeurIPS 2024 Datasets and Benchmarks,
    arXiv:2406.13805; its evaluation section) contradicts itself here: its label
    definitions say "Partially correct" applies to prompt templates 1, 4 and 5
    only (Table 2 reports templates 2 and 3 as correct / incorrect), yet a few
    lines later it calls a template-3 response that gives one of the two
    answers ("Two monks know the secret recipe of Chartreuse.") partially
    correct. The project follows the definitions and Table 2: with one
    expected answer, a response that contains it is correct. See
    docs/wikicontradict.md.
    """
    if template in SINGLE_ANSWER_TEMPLATES and label == "partially correct":
        return "correct"
    return label


def judge_messages(question: str, answers: Sequence[str], response: str) -> list[dict[str, str]]:
    """The judge's messages for one response (pure).

    The paper's layout: an empty system message, then the judge prompt
    (:func:`~conflicteval.wikicontradict.judge_template.judge_prompt`) as the user turn.
    """
    prompt = judge_prompt(question, list(answers), response)
    return [{"role": "system", "content": ""}, {"role": "user", "content": prompt}]


class Judgement(BaseModel):
    """One graded response.

    Attributes:
        label: The reported label (after :func:`map_label`).
        judge_label: The judge's own label.
        comment: The judge's comment (the lexical baseline: its reasoning).
        raw: The judge's full reply (None for the lexical baseline).
        judge: Which judge graded.
    """

    label: Verdict
    judge_label: Verdict
    comment: str
    raw: str | None = None
    judge: str


NO_VERDICT = "no readable 'evaluation:' label in the judge's reply"
"""Why a judge reply without a readable final label is a failure."""


def judgement_from_reply(
    reply: str,
    template: str = "5",
    judge: str = "",
    *,
    response: str | None = None,
    truncated: bool = False,
) -> Judgement:
    """Read a judge reply into a :class:`Judgement` (pure).

    Args:
        reply: The judge model's reply.
        template: The template the graded response answered (for :func:`map_label`).
        judge: The judge's name, recorded in the Judgement.
        response: The graded response, so that an ``evaluation:`` line the judge
            merely copies from it is not read as its verdict (see ``parse_verdict``).
        truncated: The reply was cut off by the token limit: a parse failure
            (``reply cut off by max_tokens``), the verdict ending the reply.

    Raises:
        ParseFailure: The reply has no readable final label (raw kept); no
            verdict is ever guessed.
    """
    if truncated:
        raise ParseFailure(CUT_OFF, raw=reply)
    label = parse_verdict(reply, response)
    if label is None:
        raise ParseFailure(NO_VERDICT, raw=reply)
    return Judgement(
        label=map_label(label, template),
        judge_label=label,
        comment=parse_comment(reply, response),
        raw=reply,
        judge=judge,
    )


def judge_inputs(row: GenerationRow) -> dict[str, Any]:
    """What one grade is made from: the exact response text it graded, the question, the
    gold answers and the template (for the label mapping), and the row facts it copies.

    A grade whose response was regenerated since (``generate --restart``) no longer
    matches and is graded again; :func:`current_grades` leaves it out of a report.
    """
    return {
        "question": row.question,
        "answers": row.answers,
        "response": row.response,
        "template": row.template,
        "model": row.model,
        "instance_id": row.instance_id,
        "contradiction_type": row.contradiction_type,
    }


def current_grades(graded: dict[str, Record], rows: Sequence[GenerationRow]) -> dict[str, Record]:
    """The grades in ``graded`` made for the responses ``rows`` hold now (by id).

    A grade recorded for another response text (or question, answers, template)
    than its row's current one, or recorded without the fingerprint of what it
    graded, is left out: its row counts as not graded.
    """
    from conflicteval.fingerprint import input_fingerprint

    out: dict[str, Record] = {}
    for row in rows:
        rec = graded.get(row.id)
        if rec is not None and rec.inputs == input_fingerprint(judge_inputs(row)):
            out[row.id] = rec
    return out


class Judge:
    """A judge: an LLM with the paper's few-shot prompt, or ``"lexical"``.

    Args:
        model: A Model, a model spec such as ``"openai/gpt-4o"``, or
            ``"lexical"`` for the offline baseline.
        settings: Decoding settings for an LLM judge (default: the paper's).
    """

    def __init__(self, model: Model | str, settings: dict[str, Any] | None = None) -> None:
        self.model: Model | None = None if model == "lexical" else get_model(model)
        self.settings = dict(JUDGE_SETTINGS if settings is None else settings)

    @property
    def name(self) -> str:
        """``"lexical"`` or the judge model's name."""
        return "lexical" if self.model is None else self.model.name

    @property
    def version(self) -> str:
        """The judge prompt's (or the baseline's) version."""
        return LEXICAL_VERSION if self.model is None else JUDGE_PROMPT_VERSION

    def identity(self) -> dict[str, Any]:
        """The judge, its model (name, base URL), prompt version and settings."""
        from conflicteval.runs.identity import describe

        return {
            "judge": self.name,
            "model": describe(self.model),
            "version": self.version,
            "settings": self.settings if self.model is not None else None,
        }

    async def grade(
        self, question: str, answers: Sequence[str], response: str, template: str = "5"
    ) -> Judgement:
        """Grade one response.

        Args:
            question: The question.
            answers: The gold answers the template expects.
            response: The tested model's response.
            template: The template the response answered (for the label mapping).

        Returns:
            The Judgement.

        Raises:
            ParseFailure: The judge's reply has no readable final label (raw kept).
            ModelError: The judge call failed for good.
        """
        if self.model is None:
            lex = lexical_judge(question, list(answers), response, template)
            return Judgement(
                label=map_label(lex.label, template),
                judge_label=lex.label,
                comment=lex.explanation,
                judge=self.name,
            )
        # the paper's layout: an empty system message, then the judge prompt as the user turn
        out = await self.model.generate(
            judge_messages(question, answers, response),
            **{**self.settings, "prompt_version": self.version},
        )
        return judgement_from_reply(
            out.text, template, self.name, response=response, truncated=out.truncated
        )

    def grade_sync(
        self, question: str, answers: Sequence[str], response: str, template: str = "5"
    ) -> Judgement:
        """Synchronous :meth:`grade`."""
        from conflicteval._sync import run_sync

        return run_sync(self.grade(question, answers, response, template))

    async def grade_run(
        self,
        run: str | Path,
        *,
        output: str | Path | None = None,
        **run_keywords: Unpack[RunKeywords],
    ) -> BatchResult:
        """Grade every finished generation of a run into ``judgements.jsonl``.

        Generations that failed are not graded (the report counts them as
        failed). A re-run grades only what is not yet in the output file.

        Args:
            run: The run directory holding ``generations.jsonl``.
            output: The judgements file (default ``<run>/judgements.jsonl``).
            **run_keywords: How the batch runs (:class:`~conflicteval.runs.RunKeywords`):
                ``concurrency`` is judge calls in flight at once (default 16).

        Returns:
            The runner's BatchResult.

        Raises:
            ConflictEvalError: The output file holds another judge's grades
                (:class:`~conflicteval.errors.CheckpointMismatch` when its
                recorded judge, base URL, prompt version or settings differ).
        """
        out_path = Path(output) if output is not None else Path(run) / JUDGEMENTS_FILE
        options = RunOptions.of(run_keywords, concurrency=16)
        if not options.restart:
            self._check_same_judge(out_path)
        rows = [r for r in read_generations(run) if r.status == "ok" and r.response is not None]

        async def work(row: GenerationRow) -> dict[str, Any]:
            j = await self.grade(row.question, row.answers, row.response or "", row.template)
            return {
                "generation_id": row.id,
                "model": row.model,
                "template": row.template,
                "instance_id": row.instance_id,
                "contradiction_type": row.contradiction_type,
                **j.model_dump(),
            }

        stage = Stage(
            f"judging ({self.name})",
            out_path,
            identity={"task": "wikicontradict-judge", **self.identity()},
            inputs=judge_inputs,
        )
        return await stage.run(work, rows, options)

    def grade_run_sync(self, run: str | Path, **options: Any) -> BatchResult:
        """Synchronous :meth:`grade_run` (same options)."""
        from conflicteval._sync import run_sync

        return run_sync(self.grade_run(run, **options))

    def _check_same_judge(self, path: Path) -> None:
        for rec in read_checkpoint(path).values():
            other = rec.result.get("judge") if isinstance(rec.result, dict) else None
            if other is not None and other != self.name:
                raise ConflictEvalError(
                    f"{path} holds grades by judge {other!r}, not {self.name!r}: "
                    "write to another file (--output) or remove it"
                )
