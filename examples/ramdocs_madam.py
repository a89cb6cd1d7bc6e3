"""MADAM-RAG and the Table 1 baselines on RAMDocs-style questions, scored by exact match.

Offline, with no arguments: three made-up questions (ambiguity, misinformation, noise) and a
scripted model whose replies follow the MADAM-RAG prompts; the runs go to a temporary
directory, printed first::

    python examples/ramdocs_madam.py

With a real model on the RAMDocs release (fetched and verified on first use) or your copy::

    python examples/ramdocs_madam.py --model openai/gpt-4o-mini --limit 20
    python examples/ramdocs_madam.py --data RAMDocs_test.jsonl --model openai/<model> \
        --base-url http://localhost:8000/v1 --out runs/ramdocs

Each method's run is resumable: run the same command again and finished questions are kept.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from conflicteval import get_model
from conflicteval.conflictscore import ConflictScorer
from conflicteval.ramdocs import (
    conflict_scores,
    format_ramdocs,
    load_ramdocs,
    questions,
    ramdocs_report,
    run_method,
)
from conflicteval.ramdocs.conflict import format_conflict
from conflicteval.ramdocs.report import run_records


def _doc(text: str, kind: str, answer: str) -> dict[str, str]:
    return {"text": text, "type": kind, "answer": answer}


SAMPLE = [
    {
        "question": "What is the population of Broken Bow?",
        "documents": [
            _doc("Broken Bow, Nebraska has a population of 3,559.", "correct", "3,559"),
            _doc("Broken Bow, Oklahoma has a population of 4,120.", "correct", "4,120"),
            _doc("Broken Bow, Nebraska has a population of 9,870.", "misinfo", "9,870"),
            _doc("Broken Bow Lake is a reservoir in Oklahoma.", "noise", "unknown"),
        ],
        "disambig_entity": ["Broken Bow, Nebraska", "Broken Bow, Oklahoma"],
        "gold_answers": ["3,559", "4,120"],
        "wrong_answers": ["9,870"],
    },
    {
        "question": "Who founded Acme?",
        "documents": [
            _doc("Acme was founded by Ann Lee in 1901.", "correct", "Ann Lee"),
            _doc("Acme was founded by Bo Ek in 1901.", "misinfo", "Bo Ek"),
        ],
        "disambig_entity": ["Acme"],
        "gold_answers": ["Ann Lee"],
        "wrong_answers": ["Bo Ek"],
    },
    {
        "question": "When did the Millbrook canal open?",
        "documents": [
            _doc("The Millbrook canal opened in 1847.", "correct", "1847"),
            _doc("Millbrook is known for its mills.", "noise", "unknown"),
        ],
        "disambig_entity": ["Millbrook canal"],
        "gold_answers": ["1847"],
        "wrong_answers": [],
    },
]

_FACT = re.compile(r"(?:population of|founded by|opened in) ([A-Z0-9][\w,]*(?: [A-Z]\w*)?)")


def scripted_reply(messages: list[dict[str, Any]]) -> str:
    """A stand-in model: agents read the fact in their document; the aggregator lists every
    agent's answer but ``unknown`` (for a "founded" question only the first one); the baselines
    list every fact in their prompt."""
    prompt = messages[-1]["content"]
    if prompt.startswith("You are an agent"):
        document = prompt.split("Document: ", 1)[1].split("\n", 1)[0]
        found = _FACT.search(document)
        answer = found.group(1).rstrip(".") if found else "unknown"
        return f"Answer: {answer}. Explanation: the document states it."
    if prompt.startswith("You are an aggregator"):
        joined = prompt.rsplit("Agent responses:\n", 1)[1]
        answers = [a for a in re.findall(r"Answer: ([^.]*)\.", joined) if a != "unknown"]
        if len(answers) > 1 and "founded" in prompt:
            answers = answers[:1]  # the scripted aggregator trusts the first founder named
        listed = ", ".join(f'"{a}"' for a in dict.fromkeys(answers))
        return f"All Correct Answers: [{listed}]. Explanation: from the agents' documents."
    found = [m.group(1).rstrip(".") for m in _FACT.finditer(prompt)]
    listed = ", ".join(f'"{a}"' for a in dict.fromkeys(found)) or '"unknown"'
    return f"All Correct Answers: [{listed}]. Explanation: as the documents say."


async def main() -> None:
    """Run every method, then print each report with ConflictScore (offline labeler)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=None, help="RAMDocs JSONL (default: a made-up sample)")
    parser.add_argument("--model", default=None, help="model spec (default: a scripted model)")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible server")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--out", default=None, help="run directory (default: a temporary one)")
    args = parser.parse_args()

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="ramdocs-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"runs: {out}")
    if args.model is None and args.data is None:
        data = out / "sample.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in SAMPLE), encoding="utf-8")
    else:
        data = args.data  # None: the pinned release, fetched on first use
    items = questions(load_ramdocs(data))[: args.limit]
    if args.model is None:
        model = get_model("scripted", replies=scripted_reply)
    else:
        model = get_model(args.model, base_url=args.base_url)
    for method in ("no-rag", "rag", "madam"):
        run = out / method
        result = await run_method(items, method, model, run, progress=False)
        report = ramdocs_report(run)
        scores = await conflict_scores(run, run_records(run), ConflictScorer(), progress=False)
        print()
        print(format_ramdocs(report))
        print(format_conflict(scores))
        print(result.summary())


if __name__ == "__main__":
    asyncio.run(main())
