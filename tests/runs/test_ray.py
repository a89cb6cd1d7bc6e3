"""The Ray executor on a local Ray instance (2 CPUs): the same records as the local executor,
for offline ConflictScore, the NLI labeler and an LLM workflow against the fault-injecting test
server; failures inside actors (an actor that dies too) recorded; kill and resume; a re-run of
a finished run sends nothing."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conflicteval import ParseFailure, get_model, run_batch_sync
from conflicteval.cache import ResponseCache
from conflicteval.cli import main
from conflicteval.conflictscore import ConflictScorer, LLMLabeler, SentenceDecomposer
from conflicteval.errors import ModelError
from conflicteval.runs import Record, read_checkpoint
from conflicteval.testing import Fault, OpenAICompatServer

HAVE_RAY = all(importlib.util.find_spec(m) is not None for m in ("ray", "pyarrow"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed (extra: pip install '.[ray]')"),
]


def _dump(records: list[Record]) -> list[dict[str, Any]]:
    # every field, the replies kept with each item too, but for how long each call took
    return [r.model_dump(exclude={"calls": {"__all__": {"latency_s"}}}) for r in records]


def _ray(**options: Any) -> Any:
    from conflicteval.runs.ray import RayExecutor

    return RayExecutor(**options)


# -- every way an item can end, and an actor that dies --------------------------------


def test_item_failures_inside_actors_are_recorded_as_locally(ray_session: Any) -> None:
    driver = os.getpid()

    async def work(item: dict[str, Any]) -> Any:
        n = item["n"]
        if n == 13 and os.getpid() != driver:
            os._exit(3)  # the process running this item dies (only on a Ray worker)
        if n % 5 == 1:
            raise ParseFailure(f"no label in reply {n}", raw=f"raw {n}")
        if n % 5 == 2:
            raise ModelError(f"gave up on {n}")
        if n % 5 == 3:
            raise KeyError(n)
        if n % 5 == 4:
            return {"not json": object()}
        return (n, {"square": n * n})

    items = [{"id": f"i{n}", "n": n} for n in range(30)]
    local = run_batch_sync(work, items, concurrency=4)
    on_ray = run_batch_sync(
        work, items, concurrency=4, executor=_ray(batch_size=4, max_task_retries=0)
    )
    assert on_ray.executor == "ray" and "executor ray" in on_ray.summary()
    died = {r.id: r for r in on_ray.records}["i13"]
    assert died.status == "model_error"
    assert died.error is not None
    assert died.error.startswith("the Ray worker running this item failed: ")
    others = [r for r in on_ray.records if r.id != "i13"]
    assert _dump(others) == _dump([r for r in local.records if r.id != "i13"])
    assert on_ray.counts == {"ok": 6, "parse_error": 6, "model_error": 18, "total": 30}


# -- offline ConflictScore through the command line ---------------------------------------


def test_offline_conflictscore_on_ray_matches_local(
    ray_session: Any, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from conflicteval.wikicontradict.data import load_wikicontradict

    instances = load_wikicontradict(
        shared_data / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    )[:40]
    rows = [
        {
            "id": inst.id,
            "response": f"{inst.passage_1} The answer is {inst.answer_1}.",
            "documents": [inst.passage_2, inst.passage_1],
        }
        for inst in instances
    ]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    outputs = {}
    for executor in ("local", "ray"):
        out = tmp_path / executor
        argv = ["score", "--input", str(items), "--out", str(out), "--executor", executor]
        ray_only = ["--ray-actors", "2"] if executor == "ray" else []  # refused with local
        assert main([*argv, *ray_only]) in (0, 1)
        outputs[executor] = out
    local = (outputs["local"] / "scores.jsonl").read_text(encoding="utf-8")
    assert (outputs["ray"] / "scores.jsonl").read_text(encoding="utf-8") == local
    assert len(local.splitlines()) == 40 and '"cs_c": 0.' in local  # real, non-trivial scores
    summaries = {
        k: json.loads((v / "summary.json").read_text(encoding="utf-8")) for k, v in outputs.items()
    }
    assert summaries["ray"].pop("executor") == "ray"
    assert summaries["local"].pop("executor") == "local"
    for summary in summaries.values():  # this run's time, latency (not seen in Ray actors)
        for run_fields in ("started_at", "finished_at", "elapsed_s", "latency", "data"):
            summary.pop(run_fields)  # and input path
    assert summaries["ray"] == summaries["local"]
    ray_records = read_checkpoint(outputs["ray"] / "checkpoint.jsonl")
    local_records = read_checkpoint(outputs["local"] / "checkpoint.jsonl")
    assert {k: r.model_dump() for k, r in ray_records.items()} == {
        k: r.model_dump() for k, r in local_records.items()
    }
    captured = capsys.readouterr()
    assert "executor ray" in captured.out + captured.err  # the closing lines name it


# -- the NLI labeler, reloaded in every actor ---------------------------------------------


def test_nli_labeler_on_ray_matches_local(ray_session: Any, tiny_nli_dir: Path) -> None:
    from conflicteval.conflictscore import NLILabeler

    scorer = ConflictScorer(SentenceDecomposer(), NLILabeler(tiny_nli_dir, batch_size=3))
    words = ["the canal opened in 1847 .", "the canal opened in 1851 .", "cats purr ."]
    items = [
        {
            "id": f"n{k}",
            "response": f"{words[k % 3]} {words[(k + 1) % 3]}",
            "documents": [words[(k + 2) % 3], words[k % 3], f"in {1840 + k} the canal opened ."],
        }
        for k in range(12)
    ]
    local = scorer.score_many(items)
    on_ray = scorer.score_many(items, executor=_ray(actors=2))
    assert local.counts["ok"] == 12
    assert _dump(on_ray.records) == _dump(local.records)
    reasons = {p["reasoning"] for r in local.records for row in r.result["labels"] for p in row}
    assert len(reasons) > 3  # the model's own probabilities, not one constant label


# -- an LLM workflow against the fault-injecting server ------------------------------------


class Labelling:
    """The labelling model behind the test server, with faults that depend on the prompt only
    (so the local and the Ray run meet the same ones whatever the order of requests)."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    @staticmethod
    def _between(text: str, start: str, end: str) -> str:
        return text.split(start, 1)[1].split(end, 1)[0].strip()

    def reply(self, body: dict[str, Any]) -> str:
        prompt = body["messages"][0]["content"]
        claim = self._between(prompt, "\nClaim to evaluate\n", "\nDocument to evaluate against\n")
        doc = self._between(prompt, "\nDocument to evaluate against\n", "\nOutput format\n")
        if "garbled" in claim:
            return "I would rather not say."
        answer = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")[zlib.crc32((claim + doc).encode()) % 3]
        return json.dumps(
            {"claim": claim, "document_snippet": doc[:30], "reasoning": "r", "answer": answer}
        )

    def fault(self, n: int, body: dict[str, Any]) -> Fault | None:
        prompt = json.dumps(body["messages"])
        with self.lock:
            self.seen[prompt] += 1
            attempt = self.seen[prompt]
        if "refused" in prompt:
            return Fault.status_code(400)
        if zlib.crc32(prompt.encode()) % 4 == 0 and attempt == 1:
            return Fault.status_code(503)  # retried, then answered
        return None


def _llm_items() -> list[dict[str, Any]]:
    items = []
    for k in range(24):
        response = f"Fact {k} holds. Item {k} is blue."
        docs = [f"Document {k} says fact {k} holds.", f"Document {k + 1} is about colours."]
        if k % 8 == 3:
            response = f"A garbled claim {k}. Another garbled claim {k}."
        if k % 8 == 5:
            docs = [f"This document is refused {k}."]
        items.append({"id": f"q{k}", "response": response, "documents": docs})
    return items


def _scorer(server: OpenAICompatServer, cache: Path) -> ConflictScorer:
    model = get_model(
        "openai/labeller",
        base_url=server.base_url,
        api_key="test-key",
        cache=cache,
        max_attempts=3,
        backoff_initial=0.01,
        backoff_max=0.02,
        timeout=60,  # generous: a plain reply must not time out on a loaded machine
    )
    return ConflictScorer(SentenceDecomposer(), LLMLabeler(model))


def test_llm_workflow_on_ray_matches_local_and_a_rerun_sends_nothing(
    ray_session: Any, tmp_path: Path
) -> None:
    items = _llm_items()
    results = {}
    for executor in ("local", "ray"):
        script = Labelling()
        with OpenAICompatServer(replies=script.reply, faults=script.fault) as server:
            scorer = _scorer(server, tmp_path / f"cache-{executor}")
            ck = tmp_path / f"{executor}.jsonl"
            ex = None if executor == "local" else _ray(actors=2)
            results[executor] = scorer.score_many(items, checkpoint=ck, concurrency=4, executor=ex)
            sent = len(server.completions())
            if executor == "ray":
                again = scorer.score_many(items, checkpoint=ck, executor=_ray(actors=2))
                assert len(server.completions()) == sent  # nothing asked again
                assert again.resumed == 24 and again.usage.calls == 0
                assert _dump(again.records) == _dump(results["ray"].records)
        results[executor + "-sent"] = sent
    local, on_ray = results["local"], results["ray"]
    assert local.counts == {"ok": 18, "parse_error": 3, "model_error": 3, "total": 24}
    assert _dump(on_ray.records) == _dump(local.records)
    assert on_ray.usage == local.usage and local.usage.calls > 0
    assert results["ray-sent"] == results["local-sent"]
    failed = {r.id: r for r in on_ray.failed}
    assert failed["q5"].error is not None and "HTTP 400" in failed["q5"].error
    assert failed["q3"].status == "parse_error"
    # every actor wrote the replies it got into the one cache on disk
    entries = ResponseCache(tmp_path / "cache-ray").info()["entries"]
    assert entries == ResponseCache(tmp_path / "cache-local").info()["entries"] > 0


# -- kill and resume ----------------------------------------------------------------------


DRIVER = textwrap.dedent(
    """
    import json, sys
    from conflicteval import get_model
    from conflicteval.conflictscore import ConflictScorer, LLMLabeler, SentenceDecomposer
    from conflicteval.runs.ray import RayExecutor

    base_url, cache, checkpoint, items = sys.argv[1:5]
    model = get_model("openai/labeller", base_url=base_url, api_key="k", cache=cache)
    scorer = ConflictScorer(SentenceDecomposer(), LLMLabeler(model))
    rows = json.loads(open(items, encoding="utf-8").read())
    scorer.score_many(rows, checkpoint=checkpoint, concurrency=2,
                      executor=RayExecutor(actors=1, batch_size=2))
    print("finished")
    """
)


def test_a_killed_ray_run_resumes_from_its_checkpoint(ray_session: Any, tmp_path: Path) -> None:
    items = [
        {"id": f"k{n}", "response": f"Claim number {n} holds.", "documents": [f"Doc {n}."]}
        for n in range(30)
    ]
    (tmp_path / "items.json").write_text(json.dumps(items), encoding="utf-8")
    (tmp_path / "driver.py").write_text(DRIVER, encoding="utf-8")
    script = Labelling()
    ck = tmp_path / "ck.jsonl"
    with OpenAICompatServer(replies=script.reply, latency=0.3) as server:
        env = dict(os.environ, RAY_ADDRESS=ray_session.get_runtime_context().gcs_address)
        args = [server.base_url, str(tmp_path / "cache"), str(ck), str(tmp_path / "items.json")]
        proc = subprocess.Popen(
            [sys.executable, str(tmp_path / "driver.py"), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline and proc.poll() is None:
                if ck.exists() and len(ck.read_text(encoding="utf-8").splitlines()) >= 6:
                    break
                time.sleep(0.2)
            assert proc.poll() is None, proc.communicate()[0].decode()[-3000:]
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait(30)
        done_before = read_checkpoint(ck)
        assert 6 <= len(done_before) < 30
        mark = len(server.completions())

        scorer = _scorer(server, tmp_path / "cache")
        resumed = scorer.score_many(items, checkpoint=ck, executor=_ray(actors=1))
        assert resumed.resumed == len(done_before)
        assert resumed.counts["ok"] == 30
        after = [r.prompt for r in server.completions()[mark:]]
        for item_id in done_before:
            claim = next(it["response"] for it in items if it["id"] == item_id)
            assert not any(claim in prompt for prompt in after), item_id

        before_rerun = len(server.completions())
        rerun = scorer.score_many(items, checkpoint=ck, executor=_ray(actors=1))
        assert rerun.resumed == 30 and len(server.completions()) == before_rerun


def test_a_refused_key_stops_a_ray_batch_as_it_stops_a_local_one(
    ray_session: Any, tmp_path: Path
) -> None:
    from conflicteval.errors import BatchAborted

    items = _llm_items()[:6]
    with OpenAICompatServer(faults=lambda n, body: Fault.status_code(401)) as server:
        scorer = _scorer(server, tmp_path / "cache")
        for name, executor in (("local", None), ("ray", _ray(actors=1))):
            ck = tmp_path / f"{name}.jsonl"
            with pytest.raises(BatchAborted, match="HTTP 401") as info:
                scorer.score_many(items, checkpoint=ck, executor=executor)
            assert "API key" in str(info.value), name
            assert read_checkpoint(ck) == {}, name  # no item written as failed: a re-run does it


def test_a_work_function_that_cannot_be_pickled_is_refused_before_any_item(
    ray_session: Any, tmp_path: Path
) -> None:
    from conflicteval.errors import ConflictEvalError

    lock = threading.Lock()

    async def work(item: dict[str, Any]) -> int:
        with lock:
            return 1

    with pytest.raises(ConflictEvalError, match="cannot be sent to Ray workers"):
        run_batch_sync(work, [{"id": "a"}], checkpoint=tmp_path / "ck.jsonl", executor=_ray())
    assert read_checkpoint(tmp_path / "ck.jsonl") == {}
