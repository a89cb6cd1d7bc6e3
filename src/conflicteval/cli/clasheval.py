"""``conflicteval clasheval reproduce|run|report``: ClashEval's figures from the released
responses (no model call), and the same figures for a new model.

Exit codes: 0 done, 1 some questions failed (kept and counted), 2 bad input, 3 when calls wait
for batch results (``--batch-export``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from conflicteval._sync import run_sync
from conflicteval.clasheval.names import RELEASED_MODELS
from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import limited, model_from_args, print_reports, run_options
from conflicteval.cli.data import add_data_option, close_run, resolve_data_arg
from conflicteval.cli.options import (
    add_batch_options,
    add_checksum_mismatch,
    add_json,
    add_limit,
    add_model_options,
    add_out,
    add_run_input,
    add_run_options,
)
from conflicteval.cli.terminal import add_wide

register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``clasheval reproduce``, ``run`` and ``report``."""
    p = sub.add_parser(
        "reproduce", help="the paper's figures from the released responses, beside the notebook's"
    )
    p.add_argument(
        "--released",
        nargs="+",
        choices=RELEASED_MODELS,
        default=None,
        help="released response files to score (default all six; fetched once, verified)",
    )
    p.add_argument(
        "--responses",
        nargs="+",
        metavar="PATH",
        default=None,
        help="response files already on disk (named by file stem: gpt4.pqt is GPT-4o)",
    )
    add_checksum_mismatch(p)
    add_json(p, "with the per-level curve")
    add_wide(p)
    p.set_defaults(func=_reproduce)
    p = sub.add_parser("run", help="ask a new model with the paper's prompts into DIR")
    add_data_option(p, "clasheval", what="the question set (dataset.pqt) or a response file")
    add_out(p, "run directory (resumable)")
    add_limit(p, "questions")
    add_model_options(p, what="model tested", required=True)
    add_run_options(p)
    add_batch_options(p)
    p.set_defaults(func=batch_command(_run))
    p = sub.add_parser("report", help="accuracy, context bias, prior bias with intervals")
    add_run_input(p, "run directory", repeat=True, required=True)
    add_json(p, "with the per-level curve")
    add_wide(p)
    p.set_defaults(func=_report)


def _print(reports: list[dict[str, Any]], args: argparse.Namespace) -> int:
    from conflicteval.clasheval.reproduce import format_reproduction

    return print_reports(reports, args, format_reproduction)


def _reproduce(args: argparse.Namespace) -> int:
    from conflicteval.clasheval.reproduce import reproduce_file

    reports = []
    for path in args.responses or []:
        stem = Path(path).stem
        reports.append(reproduce_file(path, stem if stem in RELEASED_MODELS else None))
    if args.released or not args.responses:
        for model in args.released or RELEASED_MODELS:
            source = resolve_data_arg(
                argparse.Namespace(**vars(args), data=None), f"clasheval-{model}"
            )
            reports.append(reproduce_file(source.path, model))
    return _print(reports, args)


def _run(args: argparse.Namespace) -> int:
    from conflicteval.clasheval.data import load_dataset
    from conflicteval.clasheval.run import ANSWERS_FILE, questions, run_clasheval

    source = resolve_data_arg(args, "clasheval")
    items = questions(load_dataset(source.path))
    items = limited(items, args.limit, "questions")
    model = model_from_args(args, max_concurrency=args.concurrency)
    result = run_sync(
        run_clasheval(items, model, args.out, concurrency=args.concurrency, **run_options(args))
    )

    def contract(timing: dict[str, Any]) -> None:
        if any(r.status == "ok" for r in result.records):  # the run contract, from its report
            from conflicteval.clasheval.contract import write_clasheval_run
            from conflicteval.clasheval.reproduce import clasheval_report

            write_clasheval_run(args.out, clasheval_report(args.out), result.usage, **timing)

    return close_run(args, result, ANSWERS_FILE, contract, source=source)


def _report(args: argparse.Namespace) -> int:
    from conflicteval.clasheval.reproduce import clasheval_report

    return _print([clasheval_report(run) for run in args.run], args)
