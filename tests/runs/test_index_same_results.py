"""The runner's index on disk changes no result: the records, counts, reports and score files of
a fixed set of runs are exactly those the code wrote before it (stored in
``data/same_results_expected.json``, made by ``python tests/runs/test_index_same_results.py
OUT.json`` with the code that held every id, fingerprint and resumed record in memory).

The runs: a fresh run with failures of every kind, a resumed run with more items, some of them
changed (recomputed) and model errors retried, the same run again holding its records, a run
with items left pending (batch export), and ``conflicteval score --input`` run and resumed.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from conflicteval import ParseFailure, run_batch_sync
from conflicteval.errors import ModelError, PendingCall

EXPECTED = Path(__file__).with_name("data") / "same_results_expected.json"

WORDS = "the river city bridge was built opened closed after before council north south".split()


async def work(item: dict[str, Any]) -> dict[str, Any]:
    n = int(item["n"])
    if n % 7 == 3:
        raise ParseFailure(f"item {n}: no label", raw="???")
    if n % 11 == 5 and not item.get("fixed"):
        raise ModelError(f"server said no to item {n}")
    if n % 13 == 0 and item.get("export"):
        raise PendingCall(f"key{n}", "openai/m")
    return {"n": n, "v": item["v"], "square": n * n}


def _items(count: int, **extra: Any) -> list[dict[str, Any]]:
    changed = {2, 10, 40} if extra.pop("changed", False) else set()
    return [{"id": f"i{n:03d}", "n": n, "v": int(n in changed), **extra} for n in range(count)]


def _inputs(item: dict[str, Any]) -> dict[str, Any]:
    return {"n": item["n"], "v": item["v"]}


def _dump(result: Any, checkpoint: Path | None) -> dict[str, Any]:
    lines = checkpoint.read_text(encoding="utf-8").splitlines() if checkpoint else []
    return {
        "records": [r.model_dump(mode="json") for r in result.records],
        "counts": result.counts,
        "resumed": result.resumed,
        "changed": result.changed,
        "usage": result.total_usage.model_dump(mode="json"),
        "summary": result.summary(),
        "report": result.report("items"),
        "checkpoint": sorted(lines),  # order of finishing aside
    }


def _score_items(path: Path, n: int) -> None:
    rng = random.Random(5)

    def sentence() -> str:
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 10))]
        return " ".join(words).capitalize() + f" in {rng.randint(1800, 2020)}."

    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            docs = [{"id": f"d{j}", "text": f"{sentence()} {sentence()}"} for j in range(2)]
            response = "" if i % 17 == 4 else f"{sentence()} {sentence()}"
            fh.write(json.dumps({"id": f"r{i}", "response": response, "documents": docs}) + "\n")


def _score_files(out: Path) -> dict[str, Any]:
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    summary.pop("labeler_measured", None)  # the saved bench results of this machine
    for run_fields in ("started_at", "finished_at", "elapsed_s", "latency", "cost", "data"):
        summary.pop(run_fields, None)  # this run's time, calls sent and temporary input path
    return {"scores": (out / "scores.jsonl").read_text(encoding="utf-8"), "summary": summary}


def collect(tmp: Path) -> dict[str, Any]:
    """Every figure the comparison covers, from runs in ``tmp``."""
    from conflicteval.cli import main

    ck = tmp / "ck.jsonl"
    found: dict[str, Any] = {}
    options: dict[str, Any] = {"checkpoint": ck, "inputs": _inputs, "progress": False}
    first = run_batch_sync(work, _items(60), concurrency=4, keep_records=False, **options)
    found["fresh"] = _dump(first, ck)
    again = _items(90, changed=True, fixed=True)
    second = run_batch_sync(work, again, retry_failed=True, keep_records=False, **options)
    found["resumed"] = _dump(second, ck)
    found["held"] = _dump(run_batch_sync(work, again, **options), ck)
    pending_ck = tmp / "pending.jsonl"
    options["checkpoint"] = pending_ck
    pending = run_batch_sync(work, _items(40, export=True), keep_records=False, **options)
    found["pending"] = _dump(pending, pending_ck)
    data, out = tmp / "in.jsonl", tmp / "out"
    _score_items(data, 40)
    args = ["score", "--input", str(data), "--out", str(out), "--quiet", "--no-cache"]
    found["score_status"] = [main(args)]
    found["score"] = _score_files(out)
    found["score_status"].append(main(args))  # every item resumed
    found["score_resumed"] = _score_files(out)
    return found


def fingerprints(found: dict[str, Any]) -> dict[str, Any]:
    """Per run: the sha256 of all its figures, and its counts or summary to read."""
    out: dict[str, Any] = {}
    for name, value in found.items():
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        out[name] = {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
        if isinstance(value, dict):
            out[name]["shown"] = value.get("summary") or value.get("counts")
    return out


def test_the_index_changes_no_record_count_report_or_score(tmp_path: Path) -> None:
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    found = fingerprints(collect(tmp_path))
    assert found.keys() == expected.keys()
    for name in expected:
        assert found[name] == expected[name], name


if __name__ == "__main__":  # write the expected figures with the code on the path
    folder = Path(tempfile.mkdtemp())
    try:
        figures = fingerprints(collect(folder))
        Path(sys.argv[1]).write_text(
            json.dumps(figures, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
    finally:
        shutil.rmtree(folder)
