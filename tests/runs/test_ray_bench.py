"""The labeler bench on the Ray executor gives the local result (the session's Ray instance)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conflicteval.bench import GoldItem, GoldSet, run_labeler_bench
from conflicteval.conflictscore import LexicalLabeler
from conflicteval.types import Document

TEXTS = [
    ("The canal opened in 1847.", "The canal opened in 1847 and is 38 km long.", "SUPPORTS"),
    ("The canal opened in 1847.", "The canal opened in 1851.", "CONTRADICTS"),
    ("The canal opened in 1847.", "Cats purr when they are content.", "IRRELEVANT"),
]


def _gold() -> GoldSet:
    items = [
        GoldItem(
            id=f"g{k}",
            claim=claim,
            documents=(Document(id=f"g{k}:0", text=doc),),
            gold=(gold,),  # type: ignore[arg-type]
        )
        for k, (claim, doc, gold) in enumerate(TEXTS * 4)
    ]
    return GoldSet("scripted", items)


def test_the_ray_executor_gives_the_local_result(ray_session: Any, tmp_path: Path) -> None:
    from conflicteval.runs.ray import RayExecutor

    local = run_labeler_bench(_gold(), LexicalLabeler())
    remote = run_labeler_bench(
        _gold(),
        LexicalLabeler(),
        executor=RayExecutor(actors=1),
        checkpoint=tmp_path / "ckpt.jsonl",
    )
    assert remote.batch is not None and remote.batch.executor == "ray"
    assert remote.metrics == local.metrics
    assert remote.metrics.n == 12
    resumed = run_labeler_bench(_gold(), LexicalLabeler(), checkpoint=tmp_path / "ckpt.jsonl")
    assert resumed.batch is not None and resumed.batch.resumed == 12
