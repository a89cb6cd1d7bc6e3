"""Judge calibration against human labels (paper Table 3) and the judge prompt's worked examples.

Human labels come as a plain JSONL or CSV file with one row per graded
response::

    instance_id, template, model, response, human_label[, question, answers]

(``answers`` is a list in JSONL, or ``a | b`` in CSV; ``answer1``/``answer2``
columns work too). Rows without question and answers take them from the
dataset (``instances=``). The release's
``HumanEval/WikiContradict_HumanEval_adjudication.json``, whose layout has not
been published, is read by a tolerant reader that looks for these fields
under common names and fails with the keys it saw when it cannot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from conflicteval.errors import DataError
from conflicteval.jsonio import parse_json
from conflicteval.readers import PathArg, UniqueIds, id_text, iter_csv_rows, read_text
from conflicteval.runs import BatchResult, run_batch
from conflicteval.wikicontradict.instance import WikiContradictInstance
from conflicteval.wikicontradict.judge import Judge, map_label
from conflicteval.wikicontradict.judge_agreement import AgreementReport, agreement
from conflicteval.wikicontradict.judge_template import Verdict, worked_examples
from conflicteval.wikicontradict.templates import (
    default_templates,
    expected_answers,
)


class HumanLabel(BaseModel):
    """One human-graded response."""

    instance_id: str
    template: str
    model: str
    response: str
    human_label: Verdict
    question: str | None = None
    answers: list[str] | None = None


_LABELS = {
    "correct": "correct",
    "c": "correct",
    "partiallycorrect": "partially correct",
    "partialcorrect": "partially correct",
    "partial": "partially correct",
    "pc": "partially correct",
    "incorrect": "incorrect",
    "ic": "incorrect",
    "wrong": "incorrect",
}

_CANDIDATES: dict[str, tuple[str, ...]] = {
    "instance_id": (
        "instance_id",
        "question_id",
        "questionid",
        "id",
        "qid",
        "instance",
        "sample_id",
    ),
    "template": ("template", "prompt_template", "template_id", "prompt_id", "prompt_type"),
    "model": ("model", "model_name", "llm", "tested_model", "system", "generator"),
    "response": ("response", "llm_response", "model_response", "output", "generation", "answer"),
    "human_label": (
        "human_label",
        "adjudicated_label",
        "adjudication",
        "final_label",
        "gold_label",
        "human_judgement",
        "human_judgment",
        "label",
        "judgement",
        "judgment",
        "evaluation",
        "annotation",
    ),
    "question": ("question",),
    "answers": ("answers", "correct_answers", "ref_answer", "gold_answers"),
}


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def normalise_label(value: Any, path: PathArg, row: int | str, field: str) -> Verdict:
    """A human label in any usual spelling (``Partially correct``, ``PC``, ``partially-correct``).

    Raises:
        DataError: For anything else.
    """
    label = _LABELS.get(_key(str(value or "")))
    if label is None:
        raise DataError(
            path,
            row,
            field,
            f"unknown label {value!r} (expected correct / partially correct / "
            "incorrect, or C / PC / IC)",
        )
    return label  # type: ignore[return-value]


def _template_name(value: Any) -> str:
    text = str(value).strip()
    match = re.search(r"(\d+(?:\.\d)?)\s*$", text) or re.search(r"(\d+(?:\.\d)?)", text)
    return match.group(1) if match else text


def _answers(value: Any) -> list[str] | None:
    if value is None or value == "":
        return None
    if isinstance(value, list):
        return [str(v) for v in value]
    return [a.strip() for a in str(value).split("|")]


def _pick(record: dict[str, Any], field: str) -> tuple[str | None, Any]:
    norm = {_key(k): k for k in record}
    for cand in _CANDIDATES[field]:
        k = norm.get(_key(cand))
        if k is not None and record[k] not in (None, ""):
            return k, record[k]
    return None, None


def _flatten(record: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for k, v in record.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                flat.setdefault(k2, v2)
        else:
            flat[k] = v
    return flat


def _label_row(path: Path, n: int, record: dict[str, Any]) -> HumanLabel:
    norm = {_key(k): k for k in record}
    id_key = next((norm[_key(c)] for c in _CANDIDATES["instance_id"] if _key(c) in norm), None)
    if id_key is not None:
        # An id column that is there must hold an id: never let a null, an object
        # (which _flatten would hide) or an empty cell fall back to the row number.
        value = record[id_key]
        if value is None or (isinstance(value, str) and not value.strip()):
            raise DataError(path, n, id_key, "empty id")
        id_text(path, n, id_key, value)
    rec = _flatten(record)
    found: dict[str, Any] = {}
    for field in ("human_label", "response"):
        key, value = _pick(rec, field)
        if key is None:
            raise DataError(
                path,
                n,
                field,
                f"cannot find the {field.replace('_', ' ')} among keys {sorted(rec)[:20]}; "
                "convert the file to JSONL/CSV with columns instance_id, template, model, "
                "response, human_label",
            )
        found[field] = value
    for field in ("instance_id", "template", "model", "question", "answers"):
        found[field] = _pick(rec, field)[1]
    answers = _answers(found["answers"])
    if answers is None and "answer1" in rec and "answer2" in rec:
        answers = [str(rec["answer1"]), str(rec["answer2"])]
    label_key = _pick(rec, "human_label")[0] or "human_label"
    for field in ("response", "model", "question"):
        value = found[field]
        if value is not None and not isinstance(value, str):
            key = _pick(rec, field)[0] or field
            raise DataError(path, n, key, f"expected text, got {type(value).__name__}")
    instance_id = (
        id_text(path, n, _pick(rec, "instance_id")[0] or "instance_id", found["instance_id"])
        if found["instance_id"] is not None
        else str(n)
    )
    return HumanLabel(
        instance_id=instance_id,
        template=_template_name(found["template"]) if found["template"] is not None else "5",
        model=str(found["model"] or ""),
        response=str(found["response"]),
        human_label=normalise_label(found["human_label"], path, n, label_key),
        question=str(found["question"]) if found["question"] is not None else None,
        answers=answers,
    )


def load_human_labels(path: PathArg) -> list[HumanLabel]:
    """Read human labels from JSONL, CSV or a JSON document (e.g. the HumanEval adjudication).

    A JSON document may be a list of records, or an object holding such a
    list under any key; nested objects in a record are searched one level
    deep. A record without a template is taken as template 5.

    Raises:
        DataError: Unreadable file, or no label/response field found (the
            message lists the keys seen).
    """
    p = Path(path)
    text = read_text(p)
    stripped = text.strip()
    if not stripped:
        raise DataError(p, None, None, "file is empty")
    records: list[tuple[int, Any]]
    if stripped[0] in "[{":
        lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if stripped[0] == "{" and len(lines) > 1 and _is_json_object(lines[0][1]):
            records = [(i, parse_json(line, p, i)) for i, line in lines]
        else:
            records = list(enumerate(_records_of(p, parse_json(text, p)), start=1))
    else:
        records = [(r.number, dict(r.values)) for r in iter_csv_rows(p, text=text)]
    out = []
    seen = UniqueIds(p, "instance_id", "graded response (instance_id, template, model)")
    for n, rec in records:
        if not isinstance(rec, dict):
            raise DataError(p, n, None, f"expected an object, got {type(rec).__name__}")
        label = _label_row(p, n, rec)
        seen.add((label.instance_id, label.template, label.model), n)
        out.append(label)
    if not out:
        raise DataError(p, None, None, "no labelled rows")
    return out


def _is_json_object(line: str) -> bool:
    """True when one line is a whole JSON object (so the file is JSON lines)."""
    try:
        return isinstance(parse_json(line, None, 1), dict)
    except DataError:
        return False


def _records_of(path: Path, doc: Any) -> list[Any]:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        lists = [v for v in doc.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if len(lists) == 1:
            return lists[0]
        if all(isinstance(v, dict) for v in doc.values()) and doc:
            return [{"instance_id": k, **v} for k, v in doc.items()]
        if _pick(_flatten(doc), "human_label")[0] is not None:
            return [doc]
    raise DataError(
        path,
        None,
        None,
        "cannot read this layout: expected a list of labelled records (or an object holding "
        f"one list of them); top-level keys: {sorted(doc)[:20] if isinstance(doc, dict) else '-'}",
    )


def _fill_from_dataset(
    labels: Sequence[HumanLabel], instances: Sequence[WikiContradictInstance] | None, path: str
) -> list[HumanLabel]:
    by_id = {i.id: i for i in instances or []}
    tset = default_templates()
    out = []
    for n, lab in enumerate(labels, start=1):
        if lab.question is not None and lab.answers:
            out.append(lab)
            continue
        inst = by_id.get(lab.instance_id)
        if inst is None:
            why = "no dataset given (--data)" if not by_id else "instance not in the dataset"
            raise DataError(
                path, n, "instance_id", f"row has no question/answers and {why}: {lab.instance_id}"
            )
        spec = tset[lab.template].answers if lab.template in tset else "both"
        out.append(
            lab.model_copy(
                update={"question": inst.question, "answers": expected_answers(inst, spec)}
            )
        )
    return out


class CalibrationResult(BaseModel):
    """Judge agreement with humans and with the judge prompt's worked examples."""

    judge: str
    examples: AgreementReport
    example_labels: list[Verdict | None]
    human: AgreementReport | None = None
    human_by_template: dict[str, AgreementReport] = {}

    def to_markdown(self) -> str:
        """A readable summary."""
        parts = [
            f"## Judge calibration: {self.judge}",
            "",
            "### The judge prompt's eight worked examples",
            "",
            self.examples.to_markdown(),
        ]
        if self.human is not None:
            parts += ["", "### Human labels (all templates)", "", self.human.to_markdown()]
            if len(self.human_by_template) > 1:
                for t, rep in self.human_by_template.items():
                    parts += ["", f"### Human labels, template {t}", "", rep.to_markdown()]
        return "\n".join(parts) + "\n"


async def _grade_all(
    judge: Judge, rows: Sequence[tuple[str, str, list[str], str, str]], **options: Any
) -> tuple[list[Verdict | None], BatchResult]:
    async def work(row: tuple[str, str, list[str], str, str]) -> dict[str, Any]:
        _, question, answers, response, template = row
        j = await judge.grade(question, answers, response, template)
        return j.model_dump()

    result = await run_batch(work, rows, key=lambda r: r[0], **options)
    labels: list[Verdict | None] = [
        r.result["label"] if r.status == "ok" else None for r in result.records
    ]
    return labels, result


async def calibrate(
    judge: Judge | str,
    labels: Sequence[HumanLabel] | None = None,
    *,
    instances: Sequence[WikiContradictInstance] | None = None,
    labels_path: str = "<labels>",
    concurrency: int = 16,
    progress: bool | None = None,
) -> tuple[CalibrationResult, list[BatchResult]]:
    """Grade the worked examples (and human-labelled responses) and compare.

    Human labels for templates 2 and 3 are compared after the same
    "partially correct" → "correct" mapping the reports use.

    Args:
        judge: A Judge, a model spec, or ``"lexical"``.
        labels: Human labels (optional).
        instances: The dataset, for label rows without question/answers.
        labels_path: Name of the labels file, for error messages.
        concurrency: Judge calls in flight.
        progress: Show progress bars (None: when stderr is a terminal).

    Returns:
        The CalibrationResult and the runner's BatchResults (for failures and usage).
    """
    j = judge if isinstance(judge, Judge) else Judge(judge)
    opts = {"concurrency": concurrency, "progress": progress}
    examples = worked_examples()
    ex_rows = [(f"example-{e.number}", e.question, e.answers, e.response, "5") for e in examples]
    ex_labels, ex_batch = await _grade_all(j, ex_rows, desc="worked examples", **opts)
    result = CalibrationResult(
        judge=j.name,
        examples=agreement([e.evaluation for e in examples], ex_labels),
        example_labels=ex_labels,
    )
    batches = [ex_batch]
    if labels:
        filled = _fill_from_dataset(labels, instances, labels_path)
        rows = [
            (f"{n}", lab.question or "", lab.answers or [], lab.response, lab.template)
            for n, lab in enumerate(filled, start=1)
        ]
        got, batch = await _grade_all(j, rows, desc="human-labelled responses", **opts)
        batches.append(batch)
        human = [map_label(lab.human_label, lab.template) for lab in filled]
        result.human = agreement(human, got)
        for t in sorted({lab.template for lab in filled}):
            idx = [i for i, lab in enumerate(filled) if lab.template == t]
            result.human_by_template[t] = agreement(
                [human[i] for i in idx],
                [got[i] for i in idx],
            )
    return result, batches


__all__ = [
    "CalibrationResult",
    "HumanLabel",
    "calibrate",
    "load_human_labels",
    "normalise_label",
]
