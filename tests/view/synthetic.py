"""A large synthetic ConflictScore run directory (the layout ``conflicteval score --out``
writes), for the size and responsiveness tests: n responses with 3-5 claims each, 3
documents drawn from a pool of 400, a snippet and a reasoning on every cell, some failures."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

WORDS = (
    "bridge river opened year steel stone city council report census population museum "
    "built engineer record found later source claims article states however according "
    "village station railway company founded director season team championship won lost "
    "election votes district court ruling appeal first second third largest oldest"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + f" in {rng.randint(1800, 2024)}."


def _fingerprint(row: dict[str, object]) -> str:
    """The fingerprint ``conflicteval score`` records of an input row."""
    from conflicteval.conflictscore.score_results import ScoreItem
    from conflicteval.conflictscore.scorer import response_inputs
    from conflicteval.fingerprint import input_fingerprint

    return input_fingerprint(response_inputs(ScoreItem.coerce(row)))


def write_large_score_run(
    out: Path, n: int = 10_000, seed: int = 7, *, fingerprints: bool = False
) -> Path:
    """Write the run directory ``out`` with ``n`` responses; returns it. With
    ``fingerprints``, each record carries its input row's fingerprint (as ``score`` writes
    it), so the report shows the rows' questions and document texts."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    pool = [
        {
            "id": f"doc{k}",
            "title": f"Article {k}",
            "text": " ".join(_sentence(rng, 14) for _ in range(5)),
        }
        for k in range(400)
    ]
    labels = ("SUPPORTS", "CONTRADICTS", "IRRELEVANT")
    with (
        (out / "checkpoint.jsonl").open("w", encoding="utf-8") as ck,
        (out / "items.jsonl").open("w", encoding="utf-8") as inp,
    ):
        for i in range(n):
            docs = rng.sample(pool, 3)
            claims = [_sentence(rng, 9) for _ in range(rng.randint(3, 5))]
            response = " ".join(claims)
            row = {
                "id": f"q{i}",
                "question": _sentence(rng, 6),
                "response": response,
                "documents": docs,
            }
            inp.write(json.dumps(row) + "\n")
            inputs = _fingerprint(row) if fingerprints else None
            if i % 97 == 5:
                rec = {
                    "id": f"q{i}",
                    "status": "model_error",
                    "result": None,
                    "error": "model error: HTTP 503 after 6 attempts",
                    "raw": None,
                    **({"inputs": inputs} if inputs else {}),
                }
                ck.write(json.dumps(rec) + "\n")
                continue
            rows = []
            for c in range(len(claims)):
                row = []
                for d in range(3):
                    failed = (i + c + d) % 211 == 0
                    row.append(
                        {
                            "claim_index": c,
                            "doc_index": d,
                            "label": None if failed else rng.choice(labels),
                            "snippet": None if failed else _sentence(rng, 8),
                            "reasoning": None if failed else _sentence(rng, 12),
                            "error": "no label in reply" if failed else None,
                            "raw": "I cannot tell." if failed else None,
                        }
                    )
                rows.append(row)
            conflicted = [
                any(p["label"] == "SUPPORTS" for p in r)
                and any(p["label"] == "CONTRADICTS" for p in r)
                for r in rows
            ]
            cs_c = sum(conflicted) / len(rows)
            result = {
                "response": response,
                "document_ids": [d["id"] for d in docs],
                "claims": claims,
                "labels": rows,
                "cs_c": cs_c,
                "cs_r": round(cs_c / 2, 4),
                "aggregate": {
                    "n_claims": len(rows),
                    "n_conflicted": sum(conflicted),
                    "n_no_evidence": 0,
                    "n_failed_pairs": sum(p["label"] is None for r in rows for p in r),
                },
                "calls": 1 + len(rows) * 3,
                "decomposer": "llm",
                "labeler": "llm",
            }
            usage = {
                "prompt_tokens": 900,
                "completion_tokens": 300,
                "calls": result["calls"],
                "cached_calls": 0,
                "truncated": 0,
            }
            ck.write(
                json.dumps(
                    {
                        "id": f"q{i}",
                        "status": "ok",
                        "result": result,
                        "error": None,
                        "raw": None,
                        "usage": usage,
                        **({"inputs": inputs} if inputs else {}),
                    }
                )
                + "\n"
            )
    (out / "scores.jsonl").write_text("", encoding="utf-8")
    (out / "summary.json").write_text(
        json.dumps({"labeler": "llm", "decomposer": "llm"}), encoding="utf-8"
    )
    digest = hashlib.sha256((out / "items.jsonl").read_bytes()).hexdigest()
    record = {"files": [{"path": str((out / "items.jsonl").resolve()), "sha256": digest}]}
    (out / "data.json").write_text(json.dumps(record), encoding="utf-8")
    return out


def write_large_ramdocs_run(out: Path, n: int = 10_000, seed: int = 11) -> Path:
    """Write a RAMDocs run directory ``out`` of ``n`` questions answered by MADAM-RAG (3
    rounds; 3-5 documents each; every record with its question's fingerprint, 4 kept model
    replies, and every 41st a model error), with its data file; returns it.

    The data file is written as RAMDocs rows and read back with the library's loader; each
    answer is a :class:`~conflicteval.runs.Record` written as the run writes it, its
    ``inputs`` the fingerprint of the loader's question (so the page shows each question's
    text and document types from the data file)."""
    import dataclasses

    from conflicteval.fingerprint import input_fingerprint
    from conflicteval.ramdocs.data import load_ramdocs
    from conflicteval.ramdocs.items import ram_question
    from conflicteval.runs import Record
    from conflicteval.types import CallReply, Usage

    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    data = out / "ramdocs.jsonl"
    kinds = ("correct", "misinfo", "noise")
    with data.open("w", encoding="utf-8") as fh:
        for i in range(n):
            gold = f"Answer {i}"
            docs = [
                {"text": " ".join(_sentence(rng, 14) for _ in range(3)), "type": t, "answer": a}
                for t, a in (
                    (kinds[j % 3], gold if j % 3 == 0 else f"Other {i}")
                    for j in range(rng.randint(3, 5))
                )
            ]
            row = {
                "question": _sentence(rng, 8) + "?",
                "documents": docs,
                "disambig_entity": [f"Entity {i}"],
                "gold_answers": [gold],
                "wrong_answers": [f"Other {i}"],
            }
            fh.write(json.dumps(row) + "\n")
    with (out / "answers.jsonl").open("w", encoding="utf-8") as ck:
        for item in load_ramdocs(data):
            q = ram_question(item)
            inputs = input_fingerprint(dataclasses.asdict(q))
            k = int(item.id)
            if k % 41 == 7:
                rec = Record(
                    id=item.id,
                    status="model_error",
                    error="model error: HTTP 503 after 6 attempts",
                    usage=Usage(calls=6),
                    inputs=inputs,
                )
            else:
                agents = len(q.documents)
                answer = item.gold_answers[0] if k % 3 else item.wrong_answers[0]
                rounds = [
                    {
                        "answers": [answer] * agents,
                        "explanations": [_sentence(rng, 12) for _ in range(agents)],
                        "responses": [f"Answer: {answer}. {_sentence(rng, 16)}"] * agents,
                        "aggregation": f"All Correct Answers: [{answer}]. {_sentence(rng, 10)}",
                    }
                    for _ in range(3)
                ]
                output = rounds[-1]["aggregation"] if k % 29 else "I cannot tell."
                result = {"output": output, "rounds": rounds, "question": q.question, **q.meta}
                calls = [
                    CallReply(model="openai/gpt-4o-mini", reply=r, latency_s=0.8)
                    for r in [*rounds[0]["responses"][:3], rounds[-1]["aggregation"]]
                ]
                rec = Record(
                    id=item.id,
                    status="ok",
                    result=result,
                    usage=Usage(prompt_tokens=4000, completion_tokens=600, calls=3 * (agents + 1)),
                    inputs=inputs,
                    calls=calls,
                    more_calls=3 * (agents + 1) - len(calls),
                )
            ck.write(rec.model_dump_json() + "\n")
    info = {"benchmark": "ramdocs", "task": None, "method": "madam", "rounds": 3}
    info |= {"model": "openai/gpt-4o-mini", "items": n}
    (out / "run.json").write_text(json.dumps(info), encoding="utf-8")
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    record = {"files": [{"path": str(data.resolve()), "sha256": digest}]}
    (out / "data.json").write_text(json.dumps(record), encoding="utf-8")
    return out
