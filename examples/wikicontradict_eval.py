"""Evaluate a model on WikiContradict against any OpenAI-compatible endpoint.

Generates responses for templates 1-5 (resumable), grades them with the paper's
judge prompt (or the offline ``lexical`` baseline) and writes the report
(Markdown, CSV, JSON and, with matplotlib, a PNG) into the run directory.

Examples::

    # OpenAI (OPENAI_API_KEY set), judge with the paper's prompt on gpt-4o
    python examples/wikicontradict_eval.py --data WikiContradict_dataset_v1_rag_qa.csv \\
        --model openai/gpt-4o-mini --judge openai/gpt-4o --out runs/wc --limit 20

    # a local vLLM / llama.cpp / Ollama server, offline lexical baseline judge
    python examples/wikicontradict_eval.py --data WikiContradict_dataset_v1_rag_qa.csv \\
        --model openai/llama-3-8b-instruct --base-url http://localhost:8000/v1 \\
        --judge lexical --out runs/wc-local

    # no endpoint at all: conflicteval's local test server with canned replies
    python examples/wikicontradict_eval.py --data WikiContradict_dataset_v1_rag_qa.csv \\
        --local-test-server --out runs/wc-demo --limit 5
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

from conflicteval.models import get_model
from conflicteval.wikicontradict import (
    Judge,
    build_report,
    generate_sync,
    load_wikicontradict,
    summary,
    write_report,
)


@contextlib.contextmanager
def _endpoint(args: argparse.Namespace) -> Iterator[str | None]:
    """The base URL to use: the user's, or a local test server started for the demo."""
    if not args.local_test_server:
        yield args.base_url
        return
    from conflicteval.testing import OpenAICompatServer

    def reply(body: dict[str, Any]) -> str:
        prompt = str(body["messages"][-1]["content"])
        if prompt.startswith("Please evaluate"):
            return "comment: The response names one answer.\nevaluation: partially correct"
        return "According to one passage it is so; however, another passage disagrees."

    with OpenAICompatServer(replies=reply) as server:
        yield server.base_url


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="WikiContradict CSV / JSON file")
    parser.add_argument("--model", default="openai/test-model", help="tested model spec")
    parser.add_argument("--judge", default="lexical", help="judge model spec, or 'lexical'")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint")
    parser.add_argument("--templates", default="1,2,3,4,5")
    parser.add_argument("--out", required=True, help="run directory")
    parser.add_argument("--limit", type=int, default=None, help="first N instances only")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--local-test-server", action="store_true", help="serve canned replies locally"
    )
    args = parser.parse_args()

    instances = load_wikicontradict(args.data)[: args.limit]
    print(f"{len(instances)} instances: {summary(instances)}")
    templates = [t.strip() for t in args.templates.split(",") if t.strip()]

    with _endpoint(args) as base_url:
        options: dict[str, Any] = {"max_concurrency": args.concurrency}
        if base_url:
            options["base_url"] = base_url
        tested = get_model(args.model, **options)
        gen = generate_sync(instances, templates, [tested], args.out, concurrency=args.concurrency)
        print(f"generate: {gen.summary()}", file=sys.stderr)

        judge_model = "lexical" if args.judge == "lexical" else get_model(args.judge, **options)
        judged = Judge(judge_model).grade_run_sync(args.out, concurrency=args.concurrency)
        print(f"judge: {judged.summary()}", file=sys.stderr)

    report = build_report(args.out)
    print(report.to_markdown())
    for path in write_report(report, args.out):
        print(f"written: {path}", file=sys.stderr)
    return 0 if not (gen.failed or judged.failed) else 1


if __name__ == "__main__":
    sys.exit(main())
