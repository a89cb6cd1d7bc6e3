"""Benchmark report writing with ConflictScore (§5, Table 3).

Without arguments the example needs nothing (offline, no key, no extra) and writes its
checkpoint under one output directory, printed first (a new temporary directory, or
``--out``). It starts the library's local
OpenAI-compatible test server with scripted replies, writes reports with two "models"
under the three prompt settings (Tables 8-10), scores them with the paper's LLM
decomposer and labeler (Tables 6-7, answered by the script), and prints Table 3::

    python examples/conflictbench_reports.py

On a real ConflictBench file (from ``conflicteval conflictbench build``) and real models::

    python examples/conflictbench_reports.py --items bench.jsonl \
        --model gpt41=openai/gpt-4.1 --model nano=openai/gpt-4.1-nano \
        --scorer-model openai/gpt-4.1 --out runs/reports
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from conflicteval import get_model
from conflicteval.conflictbench import (
    BenchDocument,
    BenchItem,
    read_items,
    run_reports,
    select_report_items,
)
from conflicteval.conflictscore import ConflictScorer, LLMDecomposer, LLMLabeler


def demo_items() -> list[BenchItem]:
    """Two small conflicting ConflictingQA-style items."""
    docs = [
        BenchDocument(
            id="p", text="Infinite scrolling is good: it keeps people engaged.", gold="SUPPORTS"
        ),
        BenchDocument(
            id="c", text="Infinite scrolling is bad for navigation and footers.", gold="CONTRADICTS"
        ),
    ]
    q = "Is infinite scrolling a good web design technique?"
    return [
        BenchItem(
            id=f"conflictingqa:demo{i}:conf",
            source="conflictingqa",
            question=q,
            claim="Infinite scrolling is a good web design technique.",
            documents=docs,
            conflict=True,
            kind="conflict",
        )
        for i in range(2)
    ]


def scripted_reply(body: dict[str, Any]) -> str:
    """Replies of the demo server: reports, claim lists and Table 7 JSON labels."""
    prompt = body["messages"][-1]["content"]
    if "Document-Claim Conflict Detection" in prompt:
        claim = (
            prompt.split("\n\nClaim to evaluate\n\n")[1]
            .split("\n\nDocument to evaluate")[0]
            .lower()
        )
        doc = (
            prompt.split("\n\nDocument to evaluate against\n\n")[1]
            .split("\n\nOutput format")[0]
            .lower()
        )
        if "some sources" in claim:
            label = "SUPPORTS"
        elif "is good" in claim:
            label = "SUPPORTS" if "is good" in doc else "CONTRADICTS"
        else:
            label = "IRRELEVANT"
        return json.dumps(
            {"claim": claim, "document_snippet": doc[:30], "reasoning": "demo", "answer": label}
        )
    if "Break down the following report" in prompt:
        report = prompt.split("Report: ")[1].split("\n\nPlease identify")[0]
        return "Claims: " + "\n".join(s.strip() + "." for s in report.split(".") if s.strip())
    if "hedge" in prompt or "balanced" in prompt:
        return "Some sources say infinite scrolling is good, while others disagree."
    if body["model"] == "nano":
        return "Infinite scrolling is good."
    return "Infinite scrolling is good. It keeps users scrolling."


def main() -> None:
    """Run the demo, or the real benchmark with --items."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default=None, help="ConflictBench JSONL")
    parser.add_argument("--model", action="append", metavar="NAME=SPEC")
    parser.add_argument("--scorer-model", default=None)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--out", default=None, help="output directory (default: a new temp dir)")
    args = parser.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="conflicteval-reports-"))
    if args.items is None:
        print("needs: nothing (offline: the local test server plays the models)")
    else:
        print("needs: the models' API key, or --base-url for your server")
    print(f"output: {out}")
    out.mkdir(parents=True, exist_ok=True)

    if args.items is None:
        from conflicteval.testing import OpenAICompatServer

        with OpenAICompatServer(replies=scripted_reply) as server:
            opts = {"base_url": server.base_url, "api_key": "demo", "cache": False}
            models = {
                "big": get_model("openai/big", **opts),
                "nano": get_model("openai/nano", **opts),
            }
            judge = get_model("openai/judge", **opts)
            scorer = ConflictScorer(LLMDecomposer(judge), LLMLabeler(judge))
            run = run_reports(
                demo_items(), models, scorer, checkpoint=out / "checkpoint.jsonl", progress=False
            )
    else:
        options = {"base_url": args.base_url} if args.base_url else {}
        models = {}
        for value in args.model or ["openai/gpt-4.1-mini"]:
            name, sep, spec = value.partition("=")
            models[name] = get_model(spec if sep else name, **options)
        judge = get_model(args.scorer_model or next(iter(models.values())).name, **options)
        scorer = ConflictScorer(LLMDecomposer(judge), LLMLabeler(judge))
        items = select_report_items(read_items(args.items), n=args.n)
        run = run_reports(
            items, models, scorer, entity_model=judge, checkpoint=out / "checkpoint.jsonl"
        )
    print(run.table(paper=True))
    print(run.summary())


if __name__ == "__main__":
    main()
