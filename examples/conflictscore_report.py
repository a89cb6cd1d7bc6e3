"""Write a Markdown report of the conflicted claims in a set of responses.

Scores each response with ConflictScore and lists, per response, CS-C / CS-R and every
conflicted claim with the snippets of its supporting (D+) and contradicting (D-) documents.

Needs nothing (offline, no key, no extra; sentence decomposer + lexical baseline) on the
bundled demo sample; it prints the report (``--out FILE`` writes it instead)::

    python examples/conflictscore_report.py

With an LLM and the paper's prompts, on your own JSONL of {"id", "response", "documents"}::

    python examples/conflictscore_report.py --input items.jsonl --model openai/gpt-4.1-mini \
        --out report.md --checkpoint runs/report.jsonl

``--base-url`` points at any OpenAI-compatible server (vLLM, Ollama, llama.cpp).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from conflicteval import get_model
from conflicteval.conflictscore import (
    ConflictScorer,
    LexicalLabeler,
    LLMDecomposer,
    LLMLabeler,
    ScoreResult,
    SentenceDecomposer,
)
from conflicteval.conflictscore.demo import load_demo_items


def load_items(path: str | None) -> list[dict[str, Any]]:
    """Items from a JSONL file, or the bundled demo sample."""
    if path is None:
        return [
            {"id": it["id"], "response": it["response"], "documents": it["documents"]}
            for it in load_demo_items()
        ]
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _short(text: str | None, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def report_section(item_id: str, result: ScoreResult) -> list[str]:
    """The Markdown lines of one response."""
    agg = result.aggregate
    lines = [f"## {item_id}", ""]
    if agg is None:
        return [*lines, f"Not scored: {result.error}", ""]
    lines.append(
        f"CS-C **{_fmt(result.cs_c)}** ({agg.n_conflicted} of {agg.n_scored} claims conflicted), "
        f"CS-R **{_fmt(result.cs_r)}** (over {agg.n_evidenced} claims with evidence; "
        f"{agg.n_no_evidence} without), {agg.n_failed_pairs} failed pairs, "
        f"{result.calls} model calls."
    )
    lines.append("")
    if not agg.conflicted_claims:
        return [*lines, "No conflicted claim.", ""]
    for i in agg.conflicted_claims:
        lines.append(f"- **{result.claims[i]}** (|D-|/(|D+|+|D-|) = {agg.ratios[i]:.2f})")
        sides = (("supports", agg.supporting[i]), ("contradicts", agg.contradicting[i]))
        for side, indices in sides:
            for j in indices:
                pair = result.labels[i][j]
                evidence = _short(pair.snippet or pair.reasoning)
                lines.append(f"  - `{result.document_ids[j]}` {side}: {evidence}")
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Score the items and write the report; returns an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", help="JSONL of {id, response, documents} (default: demo sample)")
    parser.add_argument("--model", help="model spec, e.g. openai/gpt-4.1-mini (default: offline)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint")
    parser.add_argument("--checkpoint", help="JSONL checkpoint for resuming a long run")
    parser.add_argument("--out", help="Markdown file to write (default: standard output)")
    args = parser.parse_args(argv)
    needs = f"{args.model} (an API key, or --base-url)" if args.model else "nothing (offline)"
    print(f"needs: {needs}", file=sys.stderr)
    where = args.out or "standard output"
    if args.checkpoint:
        where += f" (checkpoint {args.checkpoint})"
    print(f"output: {where}", file=sys.stderr)

    if args.model:
        options = {"base_url": args.base_url} if args.base_url else {}
        model = get_model(args.model, **options)
        scorer = ConflictScorer(LLMDecomposer(model), LLMLabeler(model))
    else:
        scorer = ConflictScorer(SentenceDecomposer(), LexicalLabeler())
    items = load_items(args.input)
    batch = scorer.score_many(items, checkpoint=args.checkpoint)

    lines = ["# ConflictScore report", "", f"Scorer: {scorer!r}. {batch.summary()}", ""]
    for record in batch.records:
        if record.status != "ok":
            lines += [f"## {record.id}", "", f"Failed ({record.status}): {record.error}", ""]
            continue
        lines += report_section(record.id, ScoreResult.model_validate(record.result))
    text = "\n".join(lines)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text)
    return 0 if batch.counts["ok"] == batch.counts["total"] else 1


if __name__ == "__main__":
    sys.exit(main())
