"""``conflicteval faitheval run|report``: FaithEval tasks with the Table 1 methods.

Exit codes as ``conflicteval ramdocs`` (0 all answered, 1 some failed, 2 bad input, 3 pending).
"""

from __future__ import annotations

import argparse

from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.data import add_data_option, resolve_data_arg
from conflicteval.cli.ramdocs import (
    add_method_options,
    add_report_options,
    report_runs,
    run_questions,
)
from conflicteval.faitheval.data import TASKS

register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``faitheval run`` and ``faitheval report`` to the ``faitheval`` command's actions."""
    p = sub.add_parser("run", help="answer one task's questions with one method into DIR")
    p.add_argument("--task", choices=TASKS, required=True, help="FaithEval task")
    add_data_option(p, "faitheval-<task>", what="the task's parquet file")
    add_method_options(p)
    p.set_defaults(func=batch_command(_run))
    p = sub.add_parser("report", help="accuracy (strict, non-strict) with intervals")
    add_report_options(p)
    p.set_defaults(func=batch_command(_report))


def _run(args: argparse.Namespace) -> int:
    from conflicteval.faitheval.data import load_faitheval
    from conflicteval.faitheval.questions import faitheval_questions

    source = resolve_data_arg(args, f"faitheval-{args.task}")
    args.data_source = source
    items = faitheval_questions(load_faitheval(args.task, source.path))
    return run_questions(args, items, "faitheval", args.task)


def _report(args: argparse.Namespace) -> int:
    from conflicteval.faitheval.report import faitheval_report, format_faitheval

    return report_runs(args, faitheval_report, format_faitheval)
