"""``conflicteval conflictqa run|report``: context against the model's own memory (ConflictQA).

Exit codes as ``conflicteval ramdocs`` (0 all answered, 1 some failed, 2 bad input, 3 when
calls wait for batch results).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from conflicteval._sync import run_sync
from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import limited, model_from_args, print_reports, run_options
from conflicteval.cli.data import add_data_option, close_run, resolve_data_arg
from conflicteval.cli.options import (
    add_batch_options,
    add_json,
    add_limit,
    add_model_options,
    add_out,
    add_run_input,
    add_run_options,
    add_seed,
)
from conflicteval.cli.terminal import add_wide
from conflicteval.conflictqa.names import DATASETS, LLMS, MULTI, SINGLE

register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``conflictqa run`` and ``conflictqa report`` to the ``conflictqa`` command."""
    p = sub.add_parser("run", help="the paper's experiments on one model into DIR (resumable)")
    p.add_argument("--dataset", choices=DATASETS, default="strategyqa", help="source dataset")
    p.add_argument(
        "--llm", choices=LLMS, default="chatgpt", help="whose memory file (default chatgpt)"
    )
    add_data_option(p, "conflictqa-<dataset>-<llm>", what="a ConflictQA JSON-lines file")
    p.add_argument(
        "--memory",
        choices=("release", "elicit"),
        default="release",
        help="release: the file's memory (testing that LLM); elicit: ask the model its own "
        "memory first with the paper's zero-shot prompt (StrategyQA)",
    )
    p.add_argument(
        "--experiments",
        nargs="+",
        choices=SINGLE + MULTI,
        default=None,
        help="experiments to run (default the single-source three)",
    )
    p.add_argument(
        "--multi-source", action="store_true", help="add the multi-source settings 2m1c 1m2c 2m2c"
    )
    add_seed(p, "the multi-source shuffles")
    add_out(p, "run directory (resumable)")
    add_limit(p, "questions")
    add_model_options(p, what="model tested", required=True)
    add_run_options(p)
    add_batch_options(p)
    p.set_defaults(func=batch_command(_run))
    p = sub.add_parser("report", help="memorization ratio and answer shares with intervals")
    add_run_input(p, "run directory", repeat=True, required=True)
    add_json(p, "with per-question outcomes")
    add_wide(p)
    p.set_defaults(func=_report)


def _run(args: argparse.Namespace) -> int:
    from conflicteval.conflictqa.data import load_conflictqa
    from conflicteval.conflictqa.run import ANSWERS_FILE, run_conflictqa

    experiments = list(args.experiments or SINGLE)
    if args.multi_source:
        experiments += [e for e in MULTI if e not in experiments]
    if args.memory == "elicit" and args.dataset != "strategyqa":
        print("error: --memory elicit is implemented for StrategyQA only", file=sys.stderr)
        return 2
    source = resolve_data_arg(args, f"conflictqa-{args.dataset}-{args.llm}")
    items = load_conflictqa(source.path)
    items = limited(list(items), args.limit, "questions")
    model = model_from_args(args, max_concurrency=args.concurrency)
    result = run_sync(
        run_conflictqa(
            items,
            model,
            args.out,
            dataset=args.dataset,
            llm=args.llm,
            experiments=experiments,
            memory=args.memory,
            seed=args.seed,
            concurrency=args.concurrency,
            **run_options(args),
        )
    )

    def contract(timing: dict[str, Any]) -> None:
        if any(r.status != "pending" for r in result.records):  # the contract, from its report
            from conflicteval.conflictqa.contract import write_conflictqa_run
            from conflicteval.conflictqa.report import conflictqa_report

            write_conflictqa_run(args.out, conflictqa_report(args.out), result.usage, **timing)

    return close_run(args, result, ANSWERS_FILE, contract, source=source)


def _report(args: argparse.Namespace) -> int:
    from conflicteval.conflictqa.report import conflictqa_report, format_conflictqa

    return print_reports([conflictqa_report(run) for run in args.run], args, format_conflictqa)
