"""The WikiContradict task and the paper's judge as an Inspect scorer."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, cast

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import Model, get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState, generate

from conflicteval.data import DatasetUnavailable, DataSource, resolve
from conflicteval.errors import ParseFailure
from conflicteval.wikicontradict.data import add_revisions, load_revisions, load_wikicontradict
from conflicteval.wikicontradict.generate import PAPER_SETTINGS
from conflicteval.wikicontradict.instance import WikiContradictInstance
from conflicteval.wikicontradict.judge import (
    JUDGE_SETTINGS,
    NO_VERDICT,
    judge_messages,
    judgement_from_reply,
)
from conflicteval.wikicontradict.judge_template import VERDICTS, Verdict
from conflicteval.wikicontradict.report import SUBSETS, Failure, LabelledRow, report_from_rows
from conflicteval.wikicontradict.templates import TemplateSet, default_templates, render

from ._common import SampleError, chat_messages, generate_config, sample_name

HF_DATASET = "ibm-research/Wikipedia_contradict_benchmark"
"""The Hugging Face dataset holding the WikiContradict release."""

HF_FILE = "WikiContradict_dataset_v1_rag_qa.csv"
"""The release file the loaders read (any of the three layouts works)."""


def _load(data: str | Path | None) -> tuple[list[WikiContradictInstance], DataSource]:
    """The instances and the provenance of the file they came from.

    ``data=None`` fetches the pinned release by its registry name (``wikicontradict``),
    verified against its sha256; when it is not cached and cannot be fetched, the
    error says where to get the file and how to pass it.
    """
    try:
        source = resolve(data, "wikicontradict")
    except DatasetUnavailable as exc:
        exc = exc.naming("-T data=PATH")
        raise DatasetUnavailable(
            f"{exc}\nFor the Inspect task: download {HF_FILE} from the Hugging Face dataset "
            f"{HF_DATASET} (https://huggingface.co/datasets/{HF_DATASET}) and pass "
            "data=PATH in Python, or -T data=PATH on the inspect command line "
            "(the CSV, the nested JSON and Label Studio exports all load)"
        ) from exc
    return load_wikicontradict(source.path), source


def wikicontradict_dataset(
    data: str | Path | None,
    template: str = "5",
    *,
    revised: str | Path | None = None,
    templates: str | Path | TemplateSet | None = None,
) -> MemoryDataset:
    """WikiContradict as an Inspect dataset: one sample per instance for one template.

    Args:
        data: The release file (CSV, nested JSON or Label Studio export); None:
            the pinned official CSV, fetched once by its registry name
            (``conflicteval data fetch wikicontradict``) and verified.
        template: ``"1"`` … ``"5"`` or ``"5.1"`` … ``"5.4"``.
        revised: A file of revised passages (templates 5.3/5.4), see
            :func:`~conflicteval.wikicontradict.load_revisions`.
        templates: A template override file or TemplateSet (default: the shipped one).

    Returns:
        Samples whose input is the rendered template (the paper's messages: an
        empty system turn, then the prompt), target the gold answers the
        template expects, and metadata the instance id, contradiction type,
        question, answers, template, template version and the two passages as
        ``documents`` (so ``conflict_score`` can score the responses too).

    Raises:
        DatasetUnavailable: No data given and the pinned file is neither cached nor
            fetchable (the message says where to get it and how to pass it).
        DataError: A malformed data or revisions file (names file, row, field).
        MissingRevisedPassages: Template 5.3/5.4 for an instance without revisions.
    """
    return _dataset(data, template, revised, templates)[0]


def _dataset(
    data: str | Path | None,
    template: str,
    revised: str | Path | None,
    templates: str | Path | TemplateSet | None,
) -> tuple[MemoryDataset, DataSource]:
    instances, source = _load(data)
    if revised is not None:
        instances = add_revisions(instances, load_revisions(revised))
    tset = (
        templates
        if isinstance(templates, TemplateSet)
        else TemplateSet.from_file(templates)
        if templates is not None
        else default_templates()
    )
    samples = []
    for inst in instances:
        r = render(inst, str(template), tset)
        samples.append(
            Sample(
                id=inst.id,
                input=chat_messages(r.messages),
                target=list(r.answers),
                metadata={
                    "instance_id": inst.id,
                    "contradiction_type": inst.contradiction_type,
                    "question": inst.question,
                    "answers": list(r.answers),
                    "template": r.template,
                    "template_version": r.template_version,
                    # the two passages, so conflict_score can re-score the responses
                    "documents": [
                        {"id": "passage_1", "text": inst.passage_1},
                        {"id": "passage_2", "text": inst.passage_2},
                    ],
                },
            )
        )
    dataset = MemoryDataset(
        samples, name=f"{source.path.name} (template {template})", location=str(source.path)
    )
    return dataset, source


FAILED: Literal["failed"] = "failed"
"""The score value of a response that got no verdict (not a verdict; counted as failed)."""

_COLUMNS: tuple[Verdict | Literal["failed"], ...] = (*VERDICTS, FAILED)


@metric(scores="unreduced")
def verdict_shares() -> Metric:
    """Share of each verdict, overall and per contradiction type (the paper's Table 2 columns).

    Keys ``correct``, ``partially_correct``, ``incorrect`` and ``failed``, and
    the same prefixed with ``explicit_`` / ``implicit_``, as fractions of *all*
    scored samples of the group, failures included: the library's report
    (:func:`~conflicteval.wikicontradict.report.report_from_rows`, the layout
    of the paper's Tables 2 and 5) computes them, so C + PC + IC + failed = 1
    and the shares equal the library report's percentages / 100. A failure is
    a sample whose score value is ``"failed"`` (an empty response, or a judge
    reply with no readable verdict). A group without samples has no keys.
    Each share with at least two samples also has its standard error under
    ``<key>_stderr`` (``sqrt(p (1 - p) / (n - 1))``, the sample standard deviation of the
    0/1 indicators over ``sqrt(n)``, as Inspect's ``stderr()`` metric computes it).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        rows = []
        for s in scores:
            value = s.score.value
            if value not in VERDICTS and value != FAILED:
                raise ValueError(
                    f"{sample_name(s.sample_id)}: verdict_shares needs a verdict "
                    f"({', '.join(VERDICTS)}) or {FAILED!r}, got {value!r}"
                )
            meta = s.sample_metadata or {}
            failed = value == FAILED
            rows.append(
                LabelledRow(
                    model="",
                    template="",
                    instance_id=str(s.sample_id),
                    contradiction_type=str(meta.get("contradiction_type", "")),
                    label=None if failed else cast(Verdict, value),
                    failure=_failure((s.score.metadata or {}).get("failure")) if failed else None,
                )
            )
        out: dict[str, float] = {}
        if not rows:
            return out
        report = report_from_rows(rows)
        for subset in SUBSETS:
            cell = report.cell("", "", subset)
            for column in _COLUMNS:
                pct = cell.pct(column)
                if pct is None:
                    continue
                key = column.replace(" ", "_")
                out[key if subset == "all" else f"{subset}_{key}"] = pct / 100.0
                if cell.n > 1:  # standard error of the share, as Inspect's stderr() computes it
                    share = pct / 100.0
                    stderr = (share * (1.0 - share) / (cell.n - 1)) ** 0.5
                    out[(key if subset == "all" else f"{subset}_{key}") + "_stderr"] = stderr
        return out

    return compute


def _failure(kind: object) -> Failure:
    """The report's failure kind of a failed score (``judge`` unless it says ``generation``)."""
    return "generation" if kind == "generation" else "judge"


def _failed(response: str, explanation: str, failure: Failure, **metadata: object) -> Score:
    """The score of a response without a verdict: counted as failed, never as a verdict."""
    return Score(
        value=FAILED,
        answer=response,
        explanation=explanation,
        metadata={"failure": failure, **metadata},
    )


def _judge_inputs(state: TaskState, target: Target) -> tuple[str, list[str], str]:
    meta = state.metadata or {}
    question = meta.get("question")
    if not isinstance(question, str) or not question.strip():
        raise SampleError(
            f"{sample_name(state.sample_id)}: wikicontradict_judge needs the question in "
            "the sample metadata ('question')"
        )
    answers = [a for a in target.target if a.strip()] or list(meta.get("answers") or [])
    if not answers:
        raise SampleError(
            f"{sample_name(state.sample_id)}: wikicontradict_judge needs the gold answers "
            "(the sample target, or 'answers' in the metadata)"
        )
    return question, answers, str(meta.get("template", "5"))


@scorer(metrics=[verdict_shares()])
def wikicontradict_judge(
    model: str | Model | None = None, model_role: str | None = "grader"
) -> Scorer:
    """The paper's judge (WikiContradictEval): the 8-shot prompt, parsed by the library.

    Args:
        model: The judge model (default: the model bound to ``model_role``,
            else the evaluated model).
        model_role: The Inspect model role of the judge (``--model-role grader=...``).

    ``Score.value`` is ``"correct"``, ``"partially correct"`` or
    ``"incorrect"`` (for templates 2 and 3 "partially correct" is reported as
    "correct", as the paper does); the explanation is the judge's comment. A
    reply with no readable verdict, or an empty response, scores ``"failed"``
    (metadata ``failure``: ``"judge"`` or ``"generation"``) with the reason:
    never a verdict, and counted in :func:`verdict_shares`' denominators as the
    library's report counts it.
    """

    async def score(state: TaskState, target: Target) -> Score:
        question, answers, template = _judge_inputs(state, target)
        response = state.output.completion
        if not response.strip():
            # The library's model layer refuses an empty reply: a failed generation.
            return _failed(response, "empty response: not graded", "generation", template=template)
        judge = get_model(model, role=model_role)
        out = await judge.generate(
            chat_messages(judge_messages(question, answers, response)),
            config=generate_config(JUDGE_SETTINGS),
        )
        reply = out.completion
        try:
            judgement = judgement_from_reply(
                reply,
                template,
                str(judge),
                response=response,
                truncated=out.stop_reason == "max_tokens",
            )
        except ParseFailure:
            return _failed(
                response, f"{NO_VERDICT}: {reply[:500]!r}", "judge", raw=reply, template=template
            )
        return Score(
            value=judgement.label,
            answer=response,
            explanation=judgement.comment,
            metadata={
                "judge_label": judgement.judge_label,
                "template": template,
                "raw": reply,
            },
        )

    return score


@task
def wikicontradict(
    template: str = "5",
    data: str | None = None,
    revised: str | None = None,
    templates: str | None = None,
    judge: str | None = None,
) -> Task:
    """WikiContradict (Hou et al., 2024): one template over every instance, judged as in the paper.

    Args:
        template: ``"1"`` … ``"5"`` or ``"5.1"`` … ``"5.4"``.
        data: The release file (``WikiContradict_dataset_v1_rag_qa.csv`` from the
            Hugging Face dataset ``ibm-research/Wikipedia_contradict_benchmark``,
            or a nested JSON / Label Studio export). None: the pinned official
            CSV, fetched by name through the dataset registry.
        revised: Revised passages for templates 5.3/5.4.
        templates: A JSON file of template overrides.
        judge: The judge model (default: the ``grader`` role, else the evaluated model).

    The evaluated model decodes as in the paper (temperature 0, at most 250
    new tokens, seed 5); ``--temperature`` etc. on the command line override it.
    """
    dataset, source = _dataset(data, str(template), revised, templates)
    return Task(
        dataset=dataset,
        solver=generate(),
        scorer=wikicontradict_judge(model=judge),
        config=generate_config(PAPER_SETTINGS),
        metadata={"template": str(template), "data": source.to_dict()},
    )
