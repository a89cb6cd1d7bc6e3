"""Batch export and import keep nothing per request in memory: counted with tracemalloc.

Each test writes (or imports) 1,000 and then 4,000 requests and compares the peaks of memory
allocated by Python. A set of the exported ids, a dict of the manifest's ids or a set of the
answered ids (as before they moved to scratch indexes on disk) grows by about 150 bytes per
id and set: several hundred kilobytes over the 3,000 extra requests.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch import importer
from conflicteval.batch.files import import_results, known_ids, write_requests
from conflicteval.cache import ResponseCache
from conflicteval.models.call import CallRequest
from conflicteval.models.ledger import CallLedger


def _requests(n: int) -> Iterator[CallRequest]:
    for i in range(n):
        body = {"model": "m", "messages": [{"role": "user", "content": f"question {i}"}]}
        yield CallRequest(custom_id=f"{i:064x}", model="openai/m", body=body)


def _peak(run: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


def _results(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for req in _requests(n):
            body = {
                "model": "m",
                "choices": [{"message": {"content": "yes"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 3, "completion_tokens": 1},
            }
            row = {"custom_id": req.custom_id, "response": {"status_code": 200, "body": body}}
            fh.write(json.dumps(row) + "\n")


def test_an_export_keeps_no_id_in_memory(tmp_path: Path) -> None:
    write_requests(tmp_path / "warm.jsonl", _requests(10))
    peaks = [
        _peak(lambda: write_requests(tmp_path / f"r{n}.jsonl", _requests(n)))  # noqa: B023
        for n in (1_000, 4_000)
    ]
    assert peaks[1] - peaks[0] < 150_000  # a set of the ids: about 450 KB more


def test_an_import_keeps_no_id_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "STORE_BATCH", 200)  # a transaction's replies: no item
    peaks = []
    for n in (10, 1_000, 4_000):  # the first one warms up
        folder = tmp_path / f"n{n}"
        folder.mkdir()
        write_requests(folder / "r.jsonl", _requests(n))
        _results(folder / "res.jsonl", n)
        cache = ResponseCache(folder / "cache")

        def run() -> None:
            report = import_results([folder / "res.jsonl"], cache, [folder / "r.jsonl"])  # noqa: B023
            assert report.imported == n and len(report.imported_ids) == n  # noqa: B023

        peaks.append(_peak(run))
    assert peaks[2] - peaks[1] < 150_000  # the manifest's ids and the answered ones: ~1.3 MB


def test_the_ids_a_manifest_knows_are_a_set_on_disk(tmp_path: Path) -> None:
    write_requests(tmp_path / "r.jsonl", _requests(50))
    ids = known_ids(tmp_path / "r.jsonl")
    assert len(ids) == 50 and f"{7:064x}" in ids and "other" not in ids
    assert set(ids) == {r.custom_id for r in _requests(50)}
    ledger = CallLedger(ids)
    assert ledger.batch_ids is ids  # used as it is, not copied into memory


def test_a_request_that_cannot_be_written_is_not_noted_as_exported(tmp_path: Path) -> None:
    from conflicteval.batch.files import ExportWriter
    from conflicteval.errors import ConflictEvalError

    writer = ExportWriter(tmp_path / "r.jsonl", max_bytes=400)
    small, big = list(_requests(2))
    big.body["messages"][0]["content"] = "z" * 1000
    assert writer.add(small) and not writer.add(small)
    with pytest.raises(ConflictEvalError, match="more than a batch file may hold"):
        writer.add(big)
    assert big.custom_id not in writer and len(writer) == 1
    writer.abort()


def test_an_id_set_on_disk_behaves_as_a_set() -> None:
    from conflicteval._diskindex import IdSet

    ids = IdSet(["b", "a", "b"])
    assert len(ids) == 2 and "a" in ids and "c" not in ids and 3 not in ids
    assert ids.insert("c") and not ids.insert("c")
    ids.discard("a")
    ids.discard("zz")
    assert sorted(ids) == ["b", "c"] == list(ids) and ids == {"b", "c"}
    ids |= IdSet([f"{i:05d}" for i in range(700)])  # more than one chunk of rows
    assert len(ids) == 702 and len(list(ids)) == 702
    ids.close()
