"""The bundled demo as a run directory, for ``conflicteval view --demo``."""

from __future__ import annotations

import json
from pathlib import Path

from conflicteval._atomic import atomic_write_text

__all__ = ["write_demo_run"]


def write_demo_run(out: Path) -> Path:
    """Score the bundled demo responses offline (sentence decomposer, lexical labeler) into
    the run directory ``out``, as ``conflicteval score --input ... --out`` would (the same
    ``scores.jsonl`` and ``summary.json``, mean CS-C / CS-R with their intervals); returns it."""
    from conflicteval.conflictscore.decompose import SentenceDecomposer
    from conflicteval.conflictscore.demo import load_demo_items
    from conflicteval.conflictscore.lexical_labeler import LexicalLabeler
    from conflicteval.conflictscore.score_files import write_score_files
    from conflicteval.conflictscore.scorer import ConflictScorer
    from conflicteval.data.fetch import DataSource, sha256_file
    from conflicteval.types import Document

    out.mkdir(parents=True, exist_ok=True)
    demo = load_demo_items()
    items_path = out / "demo_items.jsonl"
    atomic_write_text(items_path, "".join(json.dumps(it) + "\n" for it in demo))
    items = [
        {
            "id": str(it.get("id", n)),
            "response": it["response"],
            "documents": [Document.coerce(d, j) for j, d in enumerate(it["documents"])],
        }
        for n, it in enumerate(demo, start=1)
    ]
    scorer = ConflictScorer(SentenceDecomposer(), LexicalLabeler())
    result = scorer.score_many(items, checkpoint=out / "checkpoint.jsonl", progress=False)
    # the same scores.jsonl and summary.json as ``score --out`` (intervals included)
    write_score_files(out, result, scorer)
    source = DataSource(items_path.resolve(), sha256_file(items_path))
    atomic_write_text(out / "data.json", json.dumps({"files": [source.to_dict()]}) + "\n")
    return out
