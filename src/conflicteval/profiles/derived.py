"""The input of a ConflictScore cell: the model's own answers of another cell, each with the
documents it answered from, in ``score --input``'s form (``{"id", "response", "documents"}``).

* ``ramdocs.madam`` (or any RAMDocs / AmbigDocs method): each answered question's final output
  against the documents it was given (``answers.jsonl``);
* ``wikicontradict``: each template-4 response (both passages as one context) against the two
  passages (``generations.jsonl``, the passages from the profile's data file). Template 4 is the
  one whose prompt holds both conflicting passages without a hint, so CS-C measures whether the
  answer itself reports the conflict.

Only answers that ended ``ok`` are written; the ids are the answering run's (``t4|<id>`` for
WikiContradict), so two models' ConflictScore runs pair item by item.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from conflicteval.errors import ConflictEvalError

__all__ = ["ANSWER_FILES", "WC_TEMPLATE", "write_score_input"]

ANSWER_FILES = {"wikicontradict": "generations.jsonl"}
"""The answers file of a cell, by its benchmark id's first part (default ``answers.jsonl``)."""
WC_TEMPLATE = "4"


def _lines(path: Path) -> list[dict[str, Any]]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                if isinstance(rec, dict) and rec.get("status") == "ok":
                    out.append(rec)
    return out


def answers_file(source_run: Path, source: str) -> Path:
    """Where the cell ``source`` keeps its answers."""
    return source_run / ANSWER_FILES.get(source.split(".")[0], "answers.jsonl")


def write_score_input(source: str, source_run: Path, data_file: str | None, out: Path) -> int:
    """Write ``out`` from the answers in ``source_run`` (cell ``source``); return the rows.

    Raises:
        ConflictEvalError: No answers there yet, or none that ended ok.
    """
    file = answers_file(source_run, source)
    if not file.exists():
        raise ConflictEvalError(f"{file}: no answers yet (its cell has not run)")
    rows = []
    if source.startswith("wikicontradict"):
        passages: dict[str, tuple[str, str]] = {}
        if data_file:
            with open(data_file, encoding="utf-8-sig", newline="") as fh:
                for r in csv.DictReader(fh):
                    passages[r["question_ID"]] = (r["context1"], r["context2"])
        for rec in _lines(file):
            res = rec.get("result") or {}
            iid = str(res.get("instance_id"))
            if str(res.get("template")) != WC_TEMPLATE or iid not in passages:
                continue
            p1, p2 = passages[iid]
            docs = [{"id": "passage_1", "text": p1}, {"id": "passage_2", "text": p2}]
            rows.append(
                {"id": f"t{WC_TEMPLATE}|{iid}", "response": res["response"], "documents": docs}
            )
    else:
        for rec in _lines(file):
            res = rec.get("result") or {}
            texts = [d if isinstance(d, str) else str(d.get("text", "")) for d in res["documents"]]
            docs = [{"id": f"d{i + 1}", "text": t} for i, t in enumerate(texts) if t.strip()]
            if docs and str(res.get("output", "")).strip():
                rows.append({"id": rec["id"], "response": res["output"], "documents": docs})
    if not rows:
        raise ConflictEvalError(f"{file}: no answer that ended ok to score")
    out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if not (out.exists() and out.read_text(encoding="utf-8") == text):
        out.write_text(text, encoding="utf-8")
    return len(rows)
