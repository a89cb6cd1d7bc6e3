"""Batch files written and read as a stream: the same bytes as a round split whole, flat memory."""

from __future__ import annotations

import hashlib
import json
import random
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from conflicteval.batch import importer
from conflicteval.batch.export import batch_export
from conflicteval.batch.files import (
    ExportWriter,
    import_results,
    read_manifest,
    split_requests,
    write_requests,
)
from conflicteval.cache import ResponseCache
from conflicteval.conflictscore import ConflictScorer
from conflicteval.conflictscore.decompose import SentenceDecomposer
from conflicteval.conflictscore.labelers import LLMLabeler
from conflicteval.errors import ConflictEvalError
from conflicteval.models import get_model
from conflicteval.models.call import CallRequest
from conflicteval.runs import run_batch_sync

# sha256 of every file of the export below, written by the code that built the whole round in
# memory before writing it (split_requests + one write per file), before export streamed
GOLDEN = {
    "requests.001.jsonl": "afa4aafa820bc77b121c3c7970a765de4b7aed127e411850f4c61a9e371d17e4",
    "requests.002.jsonl": "0587911521f5e2581904a89b4a6a86942d75967851a5974e9d7e2d8273e74c10",
    "requests.003.jsonl": "cd10f742c39c13a1e9640715420b41efc04e6cd1177780f9b68d50595c3802fe",
    "requests.004.jsonl": "d2bf8aa30c1fc2d967cb74cdf4122574c97e24f9137fc095a2e7a9e39e928fff",
    "requests.005.jsonl": "ed59243df9f63c58328d37cd08f08aef52f32bd2620320957da3107f77a4a891",
    "requests.006.jsonl": "4a278fd2e2d27e9b2d0c0f0a96ec3daa83ad1789433eb0dcbb06d339fd664491",
    "requests.007.jsonl": "9da911ada265cf599b8b44b69dbf8f4b6f8b650439f4995dd575978cec200881",
    "requests.008.jsonl": "52c471d48c738f419df26b305f056150cf4d7f642ae77ce62423f1ca199af506",
    "requests.009.jsonl": "b5282b8fe9d38b07da9af9407add1e69d5c58cd27046167b95e9989c2cdbbfd5",
    "requests.manifest.jsonl": "247ecf6fa8ee95fdcf1cc70bf8ae4b42de14a0cfae4876d0455bbfd9a15bbb21",
}


def _score_items(n: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"r{i}",
            "response": f"The canal opened in {1800 + i}. It closed in {1900 + i}.",
            "documents": [
                {"id": "d0", "text": f"The canal opened in {1801 + i}."},
                {"id": "d1", "text": "Nobody knows when the canal closed."},
            ],
        }
        for i in range(n)
    ]


def test_a_fixed_export_is_byte_identical_to_the_round_built_whole(tmp_path: Path) -> None:
    """Two rounds, two models, files split by lines and bytes: the same bytes as before."""
    cache = ResponseCache(tmp_path / "cache")
    url = "http://127.0.0.1:9/v1"  # nothing listens: every call must become a request line
    a = get_model("openai/model-a", base_url=url, api_key="k", cache=cache)
    b = get_model("openai/model-b", base_url=url, api_key="k", cache=cache)
    items = _score_items(12)
    req = tmp_path / "batch" / "requests.jsonl"
    scorer = ConflictScorer(decomposer=SentenceDecomposer(), labeler=LLMLabeler(a))
    for n in (6, 12):
        with batch_export(req, max_requests=7, max_bytes=40_000) as exp:
            scorer.score_many(items[:n], progress=False)
            run_batch_sync(
                lambda it: b.generate(it["response"], max_tokens=9), items[:n], progress=False
            )
        assert exp.result is not None and exp.result.requests == 5 * n
    found = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in req.parent.iterdir()}
    assert found == GOLDEN


def _requests(n: int, seed: int = 3) -> list[CallRequest]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        model = rng.choice(["m-a", "m-b", "m-c"])
        text = "é" * rng.randint(0, 300)  # lines of different sizes, not all ASCII
        body = {"model": model, "messages": [{"role": "user", "content": f"{i} {text}"}]}
        out.append(CallRequest(custom_id=f"id{i:05d}", model=f"openai/{model}", body=body))
    return out


@pytest.mark.parametrize(("max_requests", "max_bytes"), [(50, 10_000), (7, 2_000), (10**6, 10**9)])
def test_streamed_files_are_the_split_of_the_whole_round(
    tmp_path: Path, max_requests: int, max_bytes: int
) -> None:
    requests = _requests(400)
    result = write_requests(
        tmp_path / "r.jsonl", iter(requests), max_requests=max_requests, max_bytes=max_bytes
    )
    chunks = split_requests(requests, max_requests=max_requests, max_bytes=max_bytes)
    assert [f.model for f in result.files] == [model for model, _, _ in chunks]
    for f, (_, lines, _) in zip(result.files, chunks, strict=True):
        assert f.path.read_bytes() == b"".join(lines)
        assert (f.requests, f.bytes) == (len(lines), sum(map(len, lines)))
    manifest = read_manifest(tmp_path / "r.manifest.jsonl")
    pairs = zip(result.files, chunks, strict=True)
    expected = [(r.custom_id, f.path.name) for f, (_, _, reqs) in pairs for r in reqs]
    assert [(e.custom_id, e.file) for e in manifest] == expected
    assert {e.round for e in manifest} == {1}
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_writer_memory_does_not_hold_the_lines(tmp_path: Path) -> None:
    """5,000 requests of ~8 KB (40 MB of lines) pass through a few MB of memory."""
    pad = "x" * 8000

    def gen() -> Any:
        for i in range(5_000):
            body = {"model": "m", "messages": [{"role": "user", "content": f"{i}{pad}"}]}
            yield CallRequest(custom_id=f"{i:064d}", model="openai/m", body=body)

    tracemalloc.start()
    try:
        result = write_requests(tmp_path / "big.jsonl", gen())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.requests == 5_000 and sum(f.bytes for f in result.files) > 40_000_000
    assert peak < 8_000_000  # the ids (~0.6 MB) and the file buffers, not the 40 MB of lines


def test_an_abandoned_round_leaves_the_previous_one(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    first = write_requests(path, _requests(10))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    writer = ExportWriter(path, max_requests=3)
    for req in _requests(20, seed=9):
        writer.add(req)
    assert len(writer) == 20 and "id00003" in writer
    assert not writer.add(_requests(20, seed=9)[0])  # an id once only
    writer.abort()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert first.round == 1


def test_a_request_larger_than_a_file_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    requests = _requests(5)
    huge = {"model": "m-a", "messages": [{"role": "user", "content": "y" * 5000}]}
    requests.insert(3, CallRequest(custom_id="huge", model="openai/m-a", body=huge))
    with pytest.raises(ConflictEvalError, match="more than a batch file may hold"):
        write_requests(tmp_path / "r.jsonl", requests, max_bytes=4000)
    assert list(tmp_path.iterdir()) == []


def _result_line(custom_id: str, model: str, text: str | None) -> str:
    if text is None:
        return json.dumps({"custom_id": custom_id, "error": {"code": "x", "message": "boom"}})
    body = {
        "model": model,
        "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
    return json.dumps(
        {"custom_id": custom_id, "response": {"status_code": 200, "body": body}, "error": None}
    )


def test_import_in_small_transactions_counts_every_line_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Duplicates, failures answered later, cached entries: the same report in any batch size."""
    requests = _requests(30)
    write_requests(tmp_path / "r.jsonl", requests)
    lines = []
    for i, r in enumerate(requests):
        model = str(r.body["model"])
        if i % 5 == 0:
            lines.append(_result_line(r.custom_id, model, None))  # failed, answered below
        lines.append(_result_line(r.custom_id, model, f"answer {i}"))
        if i % 7 == 0:
            lines.append(_result_line(r.custom_id, model, "a second answer"))  # duplicate
    lines.append(_result_line("not-exported", "m-a", "who asked"))
    (tmp_path / "res.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")

    reports = []
    for batch in (3, 10_000):
        monkeypatch.setattr(importer, "STORE_BATCH", batch)
        cache = ResponseCache(tmp_path / f"cache{batch}")
        cache.put(requests[1].custom_id, "openai/x", {"text": "kept", "finish_reason": "stop"})
        report = import_results([tmp_path / "res.jsonl"], cache, [tmp_path / "r.jsonl"])
        assert cache.get(requests[2].custom_id) == {
            "text": "answer 2",
            "finish_reason": "stop",
            "prompt_tokens": 3,
            "completion_tokens": 2,
        }
        assert cache.get(requests[1].custom_id)["text"] == "kept"  # type: ignore[index]
        reports.append(report)
    small, whole = reports
    assert small.imported == whole.imported == 29 and small.already_cached == 1
    assert small.duplicates == whole.duplicates == 6 + 5  # 6 second answers, 5 failed lines
    assert small.n_failed == 0 and small.unknown == ["not-exported"]
    assert small.imported_ids == whole.imported_ids


def test_a_failed_export_leaves_the_previous_round_and_no_temporary_file(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache")
    model = get_model("openai/m", base_url="http://127.0.0.1:9/v1", api_key="k", cache=cache)
    req = tmp_path / "batch" / "requests.jsonl"

    async def work(item: dict[str, Any]) -> str:
        return (await model.generate(item["prompt"])).text

    items = [{"id": f"i{n}", "prompt": f"p{n} " + "z" * (50 if n < 5 else 5000)} for n in range(8)]
    with batch_export(req) as exp:
        run_batch_sync(work, items[:5], progress=False)
    assert exp.result is not None and exp.result.requests == 5
    before = {p.name: p.read_bytes() for p in req.parent.iterdir()}
    with pytest.raises(ConflictEvalError, match="more than a batch file may hold"):
        with batch_export(req, max_bytes=2000):
            run_batch_sync(work, items, progress=False)  # 3 prompts too large for a file
    assert {p.name: p.read_bytes() for p in req.parent.iterdir()} == before
