"""Items read lazily from a JSON-lines file: two passes, never all in memory, same results."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from conflicteval import run_batch_sync
from conflicteval.cli import main
from conflicteval.conflictscore import ConflictScorer
from conflicteval.errors import DataError
from conflicteval.jsonio import LazyItems
from conflicteval.readers import UniqueIds

WORDS = (
    "the river city bridge was built in opened closed after before year council mayor "
    "north south company records report museum library station tower"
).split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + f" in {rng.randint(1800, 2020)}."


def write_items(path: Path, n: int = 60, seed: int = 5) -> None:
    """Responses of 2-4 sentences and 3 documents of 2-5 sentences, with years that disagree."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            docs = [
                {"id": f"d{j}", "text": " ".join(_sentence(rng) for _ in range(rng.randint(2, 5)))}
                for j in range(3)
            ]
            response = " ".join(_sentence(rng) for _ in range(rng.randint(2, 4)))
            fh.write(json.dumps({"id": f"item-{i}", "response": response, "documents": docs}))
            fh.write("\n")


# The outputs of `conflicteval score --input fixed.jsonl --out out --no-cache --concurrency 4`
# (sentence decomposer, lexical labeler) on write_items(fixed.jsonl), written by the code that
# read every item into memory before the run, before the input was read lazily.
SCORES_SHA256 = "86c9a318bd08b759ae7104ac15b8b3ada3d44efbf252d23366f8edf528d51573"
CHECKPOINT_SORTED_SHA256 = "6a38171ecb90dd40bea30c3600eb8127f1db22f4d66aba574bd6b048ba794116"
SUMMARY = {
    "counts": {  # the run contract's counts
        "total": 60,
        "scored": 60,
        "failed": {"parse": 0, "model": 0},
        "pending": 0,
        "not_scored": {},
    },
    "mean_cs_c": 0.051388888888888894,
    "mean_cs_c_ci": [0.01944444444444444, 0.08888888888888888],
    "mean_cs_r": 0.9819444444444445,
    "mean_cs_r_ci": [0.9685185185185186, 0.9935185185185186],
    "failed_pairs": 0,
}


def _outputs(out: Path) -> tuple[str, str, dict[str, Any]]:
    scores = hashlib.sha256((out / "scores.jsonl").read_bytes()).hexdigest()
    lines = sorted((out / "checkpoint.jsonl").read_text(encoding="utf-8").splitlines(True))
    records = hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return scores, records, {k: summary[k] for k in SUMMARY}


def test_score_cli_results_are_those_of_the_items_read_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "fixed.jsonl"
    write_items(data)
    out = tmp_path / "out"
    argv = ["score", "--input", str(data), "--out", str(out), "--quiet", "--no-cache"]
    assert main([*argv, "--concurrency", "4"]) == 0
    assert _outputs(out) == (SCORES_SHA256, CHECKPOINT_SORTED_SHA256, SUMMARY)
    # the same items as a list through the Python API: the same records
    items = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    held = ConflictScorer().score_many(items, checkpoint=tmp_path / "held.jsonl", progress=False)
    lines = sorted((tmp_path / "held.jsonl").read_text(encoding="utf-8").splitlines(True))
    assert hashlib.sha256("".join(lines).encode()).hexdigest() == CHECKPOINT_SORTED_SHA256
    assert len(held.records) == 60
    # a re-run resumes every item from the checkpoint and writes the same outputs
    assert main([*argv, "--concurrency", "4"]) == 0
    assert _outputs(out) == (SCORES_SHA256, CHECKPOINT_SORTED_SHA256, SUMMARY)
    capsys.readouterr()


def _reader(path: Path) -> Any:
    def make() -> Any:
        seen = UniqueIds(path, "id", "item id")

        def convert(lineno: int, row: Any) -> dict[str, Any]:
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                raise DataError(path, lineno, "text", "missing or not a string")
            seen.add(row["id"], lineno)
            return row

        return convert

    return make


async def _length(item: dict[str, Any]) -> int:
    await asyncio.sleep(0)
    return len(item["text"])


def test_a_run_over_lazy_items_does_not_hold_them(tmp_path: Path) -> None:
    """1,000 items of 40 KB (40 MB of input) run through a few MB of memory."""
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(1000):
            fh.write(json.dumps({"id": f"i{i}", "text": f"{i} " + "w" * 40_000}) + "\n")
    items = LazyItems(path, _reader(path))
    tracemalloc.start()
    try:
        result = run_batch_sync(
            _length,
            items,
            checkpoint=tmp_path / "ckpt.jsonl",
            concurrency=8,
            keep_records=False,
            progress=False,
            inputs=lambda it: it["text"],
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.counts == {"ok": 1000, "parse_error": 0, "model_error": 0, "total": 1000}
    assert [r.result for r in result.records][:3] == [40_002, 40_002, 40_002]
    assert peak < 8_000_000  # a list of the items alone would be over 40 MB
    assert len(items) == 1000


def test_bad_rows_are_refused_before_any_item_runs(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    rows = [{"id": f"i{i}", "text": "ok"} for i in range(5)] + [{"id": "i2", "text": "again"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    ran: list[str] = []

    async def work(item: dict[str, Any]) -> None:
        ran.append(item["id"])

    with pytest.raises(
        DataError, match=r"row 6, field .id.: duplicate item id .i2. \(first at row 3\)"
    ):
        run_batch_sync(work, LazyItems(path, _reader(path)), checkpoint=tmp_path / "c.jsonl")
    assert ran == [] and not (tmp_path / "c.jsonl").exists()


def test_a_file_changed_between_the_passes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "b", "text": "y"}\n', encoding="utf-8")
    items = LazyItems(path, _reader(path))
    assert len(items) == 2  # the first pass
    path.write_text('{"id": "a", "text": "x"}\n{"id": "c", "text": "z"}\n', encoding="utf-8")
    os.utime(path, ns=(1, 1))  # a rewrite within the clock's resolution still changes mtime
    with pytest.raises(DataError, match="changed while it was being read"):
        list(items)


def test_an_empty_file_is_refused_when_told(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    assert list(LazyItems(path, _reader(path))) == []
    with pytest.raises(DataError, match="nothing to do"):
        len(LazyItems(path, _reader(path), empty="nothing to do"))


def test_mapped_items_are_read_lazily_with_their_index(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n\n{"id": "b", "text": "yy"}\n', encoding="utf-8")
    mapped = LazyItems(path, _reader(path)).map(lambda i, row: (i, row["id"]))
    assert list(mapped) == [(0, "a"), (1, "b")] == list(mapped)  # every pass the same
    assert len(mapped) == 2


def _checkpoint(path: Path, done: list[str]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "status": "ok"}) + "\n" for i in done))
    return path


def test_items_still_to_do_refuse_an_item_out_of_place(tmp_path: Path, resumed_index: Any) -> None:
    from conflicteval.errors import ConflictEvalError
    from conflicteval.runs.lazyrecords import TodoItems

    rows = [{"id": "a"}, {"id": "x"}, {"id": "c"}]  # "b" was counted second
    index = resumed_index(_checkpoint(tmp_path / "one.jsonl", ["b"]), ["a", "b", "c"])
    pending = TodoItems(rows, index, 2, lambda r: r["id"])
    assert len(pending) == 2
    with pytest.raises(ConflictEvalError, match="'x' is where 'b' was"):
        list(pending)
    index = resumed_index(_checkpoint(tmp_path / "two.jsonl", ["a"]), ["a", "b"])
    ok = TodoItems([{"id": "a"}, {"id": "b"}], index, 1, lambda r: r["id"])
    assert list(ok) == [("b", {"id": "b"})] and ok[0] == ("b", {"id": "b"})


def _score_rows(path: Path, n: int, duplicate_of: int | None = None) -> Path:
    rows = [
        {"id": f"response-{i:06d}-" + "k" * 64, "response": "R.", "documents": ["D."]}
        for i in range(n)
    ]
    if duplicate_of is not None:
        rows.append(dict(rows[duplicate_of]))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_score_input_ids_are_checked_without_keeping_them_in_memory(tmp_path: Path) -> None:
    """One pass over a ``score --input`` file: memory does not grow with its rows.

    Kept in a dict, 3,000 more ids of this length would cost several hundred kilobytes.
    """
    import gc
    import tracemalloc

    from conflicteval.conflictscore.score_inputs import lazy_items

    def peak(n: int) -> int:
        items = lazy_items(str(_score_rows(tmp_path / f"items{n}.jsonl", n)))
        gc.collect()
        tracemalloc.start()
        try:
            for _ in items:
                pass
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(10)  # imports and first-use caches
    assert peak(4_000) - peak(1_000) < 150_000


def test_a_duplicate_score_input_id_names_both_rows(tmp_path: Path) -> None:
    from conflicteval.conflictscore.score_inputs import read_items

    path = _score_rows(tmp_path / "items.jsonl", 5, duplicate_of=2)
    with pytest.raises(DataError, match=r"duplicate item id .* \(first at row 3\)") as info:
        read_items(str(path))
    assert (info.value.row, info.value.field) == (6, "id")
    # rows without an id are numbered by their line: a numeric id can collide with one
    path.write_text(
        '{"response": "R.", "documents": ["D."]}\n{"id": 1, "response": "R.", '
        '"documents": ["D."]}\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError, match=r"duplicate item id '1' \(first at row 1\)"):
        read_items(str(path))
