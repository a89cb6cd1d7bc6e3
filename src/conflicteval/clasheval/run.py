"""``conflicteval clasheval run``: a new model asked the paper's prompts, scored as the paper.

One question (with all its context variants) is one item of a resumable
:class:`~conflicteval.runs.Stage` (``<out>/answers.jsonl``; Ray, batch export and dry runs as
every workflow): one call for the prior (no context), then one per context variant. Replies
are stripped of surrounding white space. A reply is correct when it is the same answer as
``answer_original`` by the notebook's rule for its domain
(:func:`~conflicteval.clasheval.matching.same_answer`): how the release decided
``prior_correct`` and ``post_correct`` is not in the repository, so this is the library's
choice. The rows are then scored exactly as the released responses are.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval._atomic import write_json
from conflicteval.clasheval import prompts
from conflicteval.clasheval.data import ClashRow
from conflicteval.clasheval.matching import same_answer
from conflicteval.errors import ConflictEvalError
from conflicteval.models.core import Model
from conflicteval.ramdocs.methods import gather_all
from conflicteval.runs import BatchResult, RunOptions, Stage

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from conflicteval.runs import RunKeywords

ANSWERS_FILE = "answers.jsonl"
RUN_FILE = "run.json"
SETTINGS: dict[str, Any] = {"temperature": 0.0, "max_tokens": None, "seed": 0}


@dataclass(frozen=True)
class ClashQuestion:
    """One question with its context variants (rows of the question set)."""

    id: str
    question: str
    dataset: str
    answer_original: str
    rows: tuple[ClashRow, ...]


def questions(rows: Sequence[ClashRow]) -> list[ClashQuestion]:
    """The rows grouped by (domain, question), in first-appearance order."""
    groups: dict[tuple[str, str], list[ClashRow]] = {}
    for r in rows:
        groups.setdefault((r.dataset, r.question), []).append(r)
    return [
        ClashQuestion(str(i), q, d, rs[0].answer_original, tuple(rs))
        for i, ((d, q), rs) in enumerate(groups.items())
    ]


async def _ask(model: Model, messages: list[dict[str, str]]) -> str:
    out = await model.generate(messages, prompt_version=prompts.prompt_version(), **SETTINGS)
    return out.text.strip()


async def answer_question(model: Model, q: ClashQuestion) -> dict[str, Any]:
    """The prior and every context variant's answer, as rows of the release's layout."""
    calls = [_ask(model, prompts.prior_messages(q.dataset, q.question))]
    calls += [
        _ask(model, prompts.context_messages(q.dataset, q.question, r.context_mod)) for r in q.rows
    ]
    prior, *posts = await gather_all(calls)
    prior_correct = int(same_answer(q.dataset, q.answer_original, prior))
    out = []
    for r, post in zip(q.rows, posts, strict=True):
        row = asdict(r)
        row.update(
            prior_response=prior,
            prior_correct=prior_correct,
            post_response=post,
            post_correct=int(same_answer(q.dataset, r.answer_original, post)),
        )
        out.append(row)
    return {"rows": out}


async def run_clasheval(
    items: Sequence[ClashQuestion],
    model: Model,
    out: str | os.PathLike[str],
    **run: Unpack[RunKeywords],
) -> BatchResult:
    """Ask ``model`` every question of ``items`` without and with each context (resumable).

    Raises:
        CheckpointMismatch: The run directory holds a run made otherwise.
    """
    from conflicteval.models.answerers import writes_outputs

    run_dir = Path(out)
    writes = writes_outputs()
    if writes:
        run_dir.mkdir(parents=True, exist_ok=True)
    ident = {
        "task": "clasheval",
        "model": model,
        "settings": SETTINGS,
        "prompts": prompts.prompt_version(),
    }
    stage = Stage("clasheval", run_dir / ANSWERS_FILE, identity=ident, inputs=asdict)
    work = functools.partial(answer_question, model)  # picklable for the Ray executor
    result = await stage.run(work, items, RunOptions.of(run, concurrency=8))
    if writes:
        info = {
            "benchmark": "clasheval",
            "model": model.name,
            "settings": SETTINGS,
            "items": len(items),
        }
        write_json(run_dir / RUN_FILE, info)
    return result


def run_rows(run: str | os.PathLike[str]) -> tuple[dict[str, Any], list[ClashRow], dict[str, int]]:
    """A run's description, its answered rows (renumbered in order) and its failures by status.

    Raises:
        ConflictEvalError: No ClashEval run there.
    """
    from conflicteval.ramdocs.report import answered, run_records

    path = Path(run) / RUN_FILE
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConflictEvalError(f"{path}: no readable ClashEval run here ({exc})") from None
    if not isinstance(info, dict) or info.get("benchmark") != "clasheval":
        raise ConflictEvalError(f"{path}: not a ClashEval run")
    failed: dict[str, int] = {}
    rows: list[ClashRow] = []
    for _rec, result in answered(run_records(run), failed):
        for raw in result.get("rows", []):
            rows.append(ClashRow(**{**raw, "row": len(rows)}))
    return info, rows, failed
