"""Generation: instances × templates × models through the runner, into ``generations.jsonl``.

``<out>/generations.jsonl`` is the runner's checkpoint: one JSON line per
(model, template, instance) as it finishes, ``{"id", "status", "result",
"error", "raw", "usage"}``, where ``result`` holds the row (instance id,
template, model, prompt, expected answers, response, ...). A re-run with the
same ``out`` sends no request for a finished row.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from conflicteval._atomic import atomic_open
from conflicteval._sync import run_sync
from conflicteval.errors import ConflictEvalError
from conflicteval.models import Model, get_model
from conflicteval.models.answerers import writes_outputs
from conflicteval.record_errors import reading_record
from conflicteval.runs import (
    BatchResult,
    RunOptions,
    Stage,
    read_checkpoint,
    read_identity,
    record_identity,
)
from conflicteval.runs.identity import describe
from conflicteval.types import Decoding, Usage
from conflicteval.wikicontradict.instance import WikiContradictInstance
from conflicteval.wikicontradict.templates import (
    MissingRevisedPassages,
    TemplateSet,
    default_templates,
    render,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

GENERATIONS_FILE = "generations.jsonl"
PLAN_FILE = "plan.jsonl"
PAPER_SETTINGS = Decoding(temperature=0.0, max_tokens=250, seed=5)
"""Decoding of the paper (supplement App. D): greedy, at most 250 new tokens, seed 5."""


class GenerationItem(BaseModel):
    """One planned request: a rendered template for one instance and one model."""

    id: str
    model: str
    instance_id: str
    template: str
    template_version: str
    question: str
    answers: list[str]
    contradiction_type: str
    prompt: str

    @property
    def messages(self) -> list[dict[str, str]]:
        """The paper's messages: an empty system turn, then the prompt."""
        return [{"role": "system", "content": ""}, {"role": "user", "content": self.prompt}]


def generation_id(model: str, template: str, instance_id: str) -> str:
    """The row id: ``<model>|t<template>|<instance id>``."""
    return f"{model}|t{template}|{instance_id}"


def _as_models(models: Sequence[Model | str] | Model | str) -> list[Model]:
    items = [models] if isinstance(models, (Model, str)) else list(models)
    out = [get_model(m) for m in items]
    names = [m.name for m in out]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ValueError(f"two models with the same name {sorted(dupes)}: give distinct models")
    return out


def plan(
    instances: Sequence[WikiContradictInstance],
    templates: Sequence[str],
    models: Sequence[Model | str] | Model | str,
    *,
    template_set: TemplateSet | None = None,
) -> list[GenerationItem]:
    """Render every (model, template, instance) request, in that order.

    Raises:
        MissingRevisedPassages: Template 5.3/5.4 was asked and some instances
            have no revised passages (none is rendered, no request is made).
        KeyError: An unknown template name.
    """
    tset = template_set or default_templates()
    for name in templates:
        tset[name]
    need_revised = [t for t in templates if "{revised_context}" in tset[t].text]
    if need_revised:
        missing = [i.id for i in instances if not i.has_revised_passages]
        if missing:
            raise MissingRevisedPassages(
                f"template(s) {', '.join(need_revised)} need revised passages, missing for "
                f"{len(missing)} of {len(instances)} instances (first: {', '.join(missing[:5])}); "
                "add 'revised_passage_1'/'revised_passage_2' columns or pass --revised FILE"
            )
    items: list[GenerationItem] = []
    for model in _as_models(models):
        for name in templates:
            for inst in instances:
                r = render(inst, name, tset)
                items.append(
                    GenerationItem(
                        id=generation_id(model.name, name, inst.id),
                        model=model.name,
                        instance_id=inst.id,
                        template=name,
                        template_version=r.template_version,
                        question=inst.question,
                        answers=r.answers,
                        contradiction_type=inst.contradiction_type,
                        prompt=r.prompt,
                    )
                )
    return items


def _models_identity(
    run_dir: Path, model_list: list[Model], *, read_recorded: bool
) -> dict[str, Any]:
    """The ``models`` part of the run identity: these models, beside those the run already has.

    Args:
        run_dir: The run directory.
        model_list: The models of this call.
        read_recorded: Read (and extend) the identity the run directory already records.
    """
    models_identity = {m.name: describe(m) for m in model_list}
    recorded = read_identity(run_dir / GENERATIONS_FILE) if read_recorded else None
    if recorded is not None and isinstance(recorded.get("models"), dict):
        # Rows are per model (the model is in the row id), so a run may gain models:
        # record the newcomers beside the earlier ones. A model already there must be
        # the same (name, base URL); run_batch refuses it otherwise.
        known = recorded["models"]
        if all(known[k] == v for k, v in models_identity.items() if k in known):
            models_identity = {**known, **models_identity}
            if models_identity != known:
                record_identity(run_dir / GENERATIONS_FILE, {**recorded, "models": models_identity})
        else:
            models_identity = {**known, **models_identity}
    return models_identity


async def generate(
    instances: Sequence[WikiContradictInstance],
    templates: Sequence[str],
    models: Sequence[Model | str] | Model | str,
    out: str | Path,
    *,
    template_set: TemplateSet | None = None,
    settings: dict[str, Any] | None = None,
    **run: Unpack[RunKeywords],
) -> BatchResult:
    """Generate responses for every (model, template, instance) into ``<out>/generations.jsonl``.

    Args:
        instances: The instances.
        templates: Template names, e.g. ``["1", "2", "3", "4", "5"]``.
        models: Models (or model specs) to test.
        out: The run directory (created).
        template_set: Templates to use (default: the shipped ones).
        **run: How the batch runs (:class:`~conflicteval.runs.RunKeywords`): ``concurrency`` is
            requests in flight at once, default 16 (each model also has its own limit).
        settings: Decoding settings (default: :data:`PAPER_SETTINGS`).

    Returns:
        The runner's BatchResult (records in plan order, counts, usage).

    Raises:
        CheckpointMismatch: The run directory holds rows made with other
            decoding settings, or by a model of the same name at another base
            URL. (Adding models to a run is fine: each model's rows are its own.)
    """
    model_list = _as_models(models)
    by_name = {m.name: m for m in model_list}
    items = plan(instances, templates, model_list, template_set=template_set)
    decoding = dict(PAPER_SETTINGS if settings is None else settings)

    async def work(item: GenerationItem) -> dict[str, Any]:
        model = by_name[item.model]
        out_ = await model.generate(item.messages, prompt_version=item.template_version, **decoding)
        row = item.model_dump()
        row.update(response=out_.text, finish_reason=out_.finish_reason, cached=out_.cached)
        return row

    run_dir = Path(out)
    writes = writes_outputs()  # a dry run (the Count answerer) writes nothing
    if writes:
        run_dir.mkdir(parents=True, exist_ok=True)
        _write_plan(run_dir, items)
    options = RunOptions.of(run, concurrency=16)
    models_identity = _models_identity(
        run_dir, model_list, read_recorded=writes and not options.restart
    )
    identity = {
        "task": "wikicontradict-generate",
        "settings": decoding,
        "models": models_identity,
    }
    stage = Stage(
        "generating", run_dir / GENERATIONS_FILE, identity=identity, inputs=generation_inputs
    )
    return await stage.run(work, items, options)


def generation_inputs(item: GenerationItem) -> GenerationItem:
    """What one row is made from: the whole planned row (rendered prompt, template version,
    question, gold answers, contradiction type), which the row also copies. A row whose
    planned inputs changed (a corrected gold answer, an edited template) is made again."""
    return item


def generate_sync(*args: Any, **kwargs: Any) -> BatchResult:
    """Synchronous :func:`generate` (same arguments); also works inside a running event loop."""
    return run_sync(generate(*args, **kwargs))


class GenerationRow(BaseModel):
    """One row of ``generations.jsonl``, flattened."""

    id: str
    status: str
    error: str | None = None
    model: str = ""
    instance_id: str = ""
    template: str = ""
    question: str = ""
    answers: list[str] = []
    contradiction_type: str = ""
    prompt: str = ""
    response: str | None = None
    usage: Usage = Field(default_factory=Usage)


def _write_plan(run_dir: Path, items: Sequence[GenerationItem]) -> None:
    """Merge ``items`` into ``<run>/plan.jsonl`` (so failed rows keep their metadata)."""
    merged = {it.id: it for it in _read_plan(run_dir)}
    merged.update({it.id: it for it in items})
    try:  # whole or not at all: a full disk never leaves a torn plan behind
        with atomic_open(run_dir / PLAN_FILE) as fh:
            fh.writelines(it.model_dump_json() + "\n" for it in merged.values())
    except OSError as exc:
        raise ConflictEvalError(
            f"{run_dir / PLAN_FILE}: could not write the plan ({exc.strerror or exc})"
        ) from exc


def _read_plan(run_dir: Path) -> list[GenerationItem]:
    path = run_dir / PLAN_FILE
    if not path.exists():
        return []
    out = []
    lines = path.read_bytes().split(b"\n")
    for n, line in enumerate(lines, start=1):
        if line.strip():
            try:
                out.append(GenerationItem.model_validate_json(line))
            except ValueError as exc:
                if n == len(lines):  # no final newline: a torn last line (an older writer)
                    continue  # its item is planned again from the data
                raise ConflictEvalError(f"{path}: line {n}: not a plan row: {exc}") from exc
    return out


def read_generations(run: str | Path) -> list[GenerationRow]:
    """Read a run's ``generations.jsonl`` into flat rows, in plan order.

    Every row has its model, template, instance, question, answers,
    contradiction type and prompt (failed rows take them from ``plan.jsonl``),
    its status, response (None when failed), error and token usage.

    Raises:
        ConflictEvalError: When the run has no generations file.
    """
    run_dir = Path(run)
    path = run_dir / GENERATIONS_FILE
    if not path.exists():
        raise ConflictEvalError(f"{path}: no generations file (run 'generate' first)")
    planned = {it.id: it for it in _read_plan(run_dir)}
    records = read_checkpoint(path)
    order = [i for i in planned if i in records] + [i for i in records if i not in planned]
    rows = []
    for rid in order:
        rec = records[rid]
        data: dict[str, Any] = {}
        if rid in planned:
            data.update(planned[rid].model_dump())
        if isinstance(rec.result, dict):
            data.update(rec.result)
        data.pop("id", None)
        with reading_record(path, rid):
            rows.append(
                GenerationRow(
                    id=rid,
                    status=rec.status,
                    error=rec.error,
                    usage=rec.usage,
                    **{k: v for k, v in data.items() if k in GenerationRow.model_fields},
                )
            )
    return rows
