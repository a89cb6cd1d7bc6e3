"""Evaluate a model on WikiContradict against any OpenAI-compatible endpoint.

Generates responses for templates 1-5 (resumable), grades them with the paper's
judge prompt (or the offline ``lexical`` baseline) and writes the report
(Markdown, CSV, JSON and, with matplotlib, a PNG) into the run directory.

Without arguments it needs only the WikiContradict release, fetched once by name
(``conflicteval data fetch wikicontradict``; offline and not cached, it says so in one
line and exits 2): the tested model is the library's local test server with canned
replies, the judge the offline lexical baseline, the first 5 instances. Everything is
written under one run directory, printed first (a new temporary directory, or ``--out``)::

    python examples/wikicontradict_eval.py

    # OpenAI (OPENAI_API_KEY set), judge with the paper's prompt on gpt-4o
    python examples/wikicontradict_eval.py --model openai/gpt-4o-mini --judge-model openai/gpt-4o \\
        --out runs/wc --limit 20

    # a local vLLM / llama.cpp / Ollama server, offline lexical baseline judge, your data file
    python examples/wikicontradict_eval.py --data WikiContradict_dataset_v1_rag_qa.csv \\
        --model openai/llama-3-8b-instruct --base-url http://localhost:8000/v1 \\
        --judge-model lexical --out runs/wc-local
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from conflicteval.data import resolve
from conflicteval.data.fetch import DatasetUnavailable
from conflicteval.errors import ConflictEvalError
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
    if not args.demo:
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
    parser.add_argument(
        "--data", default=None, help="WikiContradict CSV / JSON file (default: fetched by name)"
    )
    parser.add_argument(
        "--model", default=None, help="tested model spec (default: the local test server)"
    )
    parser.add_argument("--judge-model", default="lexical", help="judge model spec, or 'lexical'")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint")
    parser.add_argument("--templates", default="1,2,3,4,5")
    parser.add_argument("--out", default=None, help="run directory (default: a new temp dir)")
    parser.add_argument("--limit", type=int, default=None, help="first N instances only")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--local-test-server",
        action="store_true",
        help="serve canned replies locally (the default without --model and --base-url)",
    )
    args = parser.parse_args()
    args.demo = args.local_test_server or (args.model is None and args.base_url is None)
    if args.demo:
        args.model = args.model or "openai/test-model"
        args.limit = 5 if args.limit is None else args.limit
        data = args.data or "the WikiContradict release (fetched by name)"
        print(f"needs: {data}")
        print(f"tested model: a local test server with canned replies ({args.limit} instances)")
    else:
        print(f"needs: {args.model} (an API key, or --base-url for your server)")
    out = args.out or tempfile.mkdtemp(prefix="conflicteval-wikicontradict-")
    print(f"output: {out}")

    try:
        source = resolve(args.data, "wikicontradict")
    except DatasetUnavailable as exc:  # offline and not cached: one line, no traceback
        print(" ".join(str(exc).split()), file=sys.stderr)
        return 2
    instances = load_wikicontradict(source.path)[: args.limit]
    counts = summary(instances)
    print(
        f"{len(instances)} instances ({counts['explicit']} explicit, {counts['implicit']} implicit)"
    )
    templates = [t.strip() for t in args.templates.split(",") if t.strip()]

    with _endpoint(args) as base_url:
        options: dict[str, Any] = {"max_concurrency": args.concurrency}
        if base_url:
            options["base_url"] = base_url
        tested = get_model(args.model, **options)
        gen = generate_sync(instances, templates, [tested], out, concurrency=args.concurrency)
        print(f"generate: {gen.summary()}", file=sys.stderr)

        judge_model = (
            "lexical" if args.judge_model == "lexical" else get_model(args.judge_model, **options)
        )
        judged = Judge(judge_model).grade_run_sync(out, concurrency=args.concurrency)
        print(f"judge: {judged.summary()}", file=sys.stderr)

    report = build_report(out)
    print(report.to_markdown())
    for path in write_report(report, out):
        print(f"written: {path}", file=sys.stderr)
    return 0 if not (gen.failed or judged.failed) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ConflictEvalError as exc:  # a usage or input problem: one line, no traceback
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        sys.exit(2)
