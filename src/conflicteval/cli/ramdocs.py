"""``conflicteval ramdocs run|report``: Table 1 methods on RAMDocs (and AmbigDocs).

Exit codes: 0 when every question was answered, 1 when some failed (kept and counted), 2 for
bad input, 3 when calls wait for batch results (``--batch-export``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval._sync import run_sync
from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import (
    limited,
    model_from_args,
    progress_from_args,
    reports_json,
    run_options,
    scorer_from_args,
)
from conflicteval.cli.data import (
    add_data_option,
    close_run,
    record_data_source,
    resolve_data_arg,
)
from conflicteval.cli.options import (
    add_batch_options,
    add_decomposer,
    add_json,
    add_labeler,
    add_limit,
    add_model_options,
    add_out,
    add_run_input,
    add_run_options,
    positive_int,
)
from conflicteval.cli.terminal import add_wide, for_terminal
from conflicteval.errors import ConflictEvalError
from conflicteval.ramdocs.names import DEFAULT_ROUNDS, METHODS

if TYPE_CHECKING:
    from conflicteval.ramdocs.methods import Question


def add_method_options(p: argparse.ArgumentParser) -> None:
    """``--method``, ``--out``, ``--limit``, ``--rounds`` and the shared model/run/batch options."""
    p.add_argument("--method", choices=METHODS, required=True, help="Table 1 method")
    add_out(p, "run directory (resumable)")
    add_limit(p, "questions")
    p.add_argument(
        "--rounds",
        type=positive_int,
        default=DEFAULT_ROUNDS,
        help=f"MADAM-RAG's maximum number of debate rounds (default {DEFAULT_ROUNDS})",
    )
    add_model_options(p, what="model answering (every MADAM-RAG role)", required=True)
    add_run_options(p)
    add_batch_options(p)


def add_report_options(p: argparse.ArgumentParser) -> None:
    """``--run`` (repeatable), ``--json`` and the ConflictScore options of a report."""
    from conflicteval.conflictscore.factory import DECOMPOSER_KINDS, LABELER_KINDS

    add_run_input(p, "run directory", repeat=True, required=True)
    add_json(p, "with per-question scores")
    add_wide(p)
    p.add_argument(
        "--conflictscore",
        action="store_true",
        help="also score each final answer with ConflictScore against its documents (CS-C, CS-R)",
    )
    add_decomposer(p, DECOMPOSER_KINDS, "sentence", "sentence; with --conflictscore")
    add_labeler(p, LABELER_KINDS, "lexical", "lexical; with --conflictscore")
    add_model_options(p, what="model of an llm decomposer or labeler (with --conflictscore)")
    add_run_options(p)
    add_batch_options(p)


register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``ramdocs run`` and ``ramdocs report`` to the ``ramdocs`` command's actions."""
    p = sub.add_parser("run", help="answer the questions with one method into DIR (resumable)")
    p.add_argument(
        "--dataset",
        choices=("ramdocs", "ambigdocs"),
        default="ramdocs",
        help="RAMDocs (default) or AmbigDocs, Table 1's other exact-match column",
    )
    add_data_option(
        p, "ramdocs", what="RAMDocs JSONL, or the AmbigDocs JSON with --dataset ambigdocs"
    )
    add_method_options(p)
    p.set_defaults(func=batch_command(_run))
    p = sub.add_parser("report", help="exact match with intervals, Table 1 beside it")
    add_report_options(p)
    p.set_defaults(func=batch_command(_report))


def run_questions(
    args: argparse.Namespace, items: list[Question], benchmark: str, task: str | None
) -> int:
    """Run ``args.method`` over ``items`` into ``args.out``; print the closing lines."""
    from conflicteval.models.answerers import writes_outputs
    from conflicteval.ramdocs.run import ANSWERS_FILE, run_method

    items = limited(items, args.limit, "questions")
    model = model_from_args(args, max_concurrency=args.concurrency)
    try:
        result = run_sync(
            run_method(
                items,
                args.method,
                model,
                args.out,
                benchmark=benchmark,
                task=task,
                rounds=args.rounds,
                data_sha256=args.data_source.sha256,
                concurrency=args.concurrency,
                **run_options(args),
            )
        )
    finally:
        # the directory belongs to the data file its identity names (also after an interrupted
        # run): data.json then names that file alone, and nothing when the run was refused
        if writes_outputs():
            _record_owned_data(Path(args.out) / ANSWERS_FILE, args.data_source)
    return close_run(
        args, result, ANSWERS_FILE, lambda timing: _write_contract(args, result, timing)
    )


def _record_owned_data(answers: Path, source: Any) -> None:
    """Write ``data.json`` naming ``source`` alone when the run's identity names its sha256."""
    from conflicteval.runs.checkpoint import read_identity

    try:
        ident = read_identity(answers)
    except ConflictEvalError:
        return
    if ident is not None and ident.get("data_sha256") == source.sha256:
        record_data_source(answers.parent, source, replace=True)


def _write_contract(args: argparse.Namespace, result: Any, timing: dict[str, Any]) -> None:
    """The run's summary.json in the run contract, from its report."""
    from conflicteval.faitheval.report import faitheval_report
    from conflicteval.ramdocs.report import ramdocs_report
    from conflicteval.ramdocs.run import read_run
    from conflicteval.results.kinds_answers import write_question_run

    if not any(r.status != "pending" for r in result.records):
        return  # nothing answered yet (every call waits for a batch): no report to build
    report = faitheval_report if read_run(args.out)["benchmark"] == "faitheval" else ramdocs_report
    write_question_run(args.out, report(args.out), result.usage, **timing)


def _run(args: argparse.Namespace) -> int:
    from conflicteval.ramdocs.data import load_ramdocs
    from conflicteval.ramdocs.items import ambigdocs_items, questions

    source = resolve_data_arg(args, args.dataset)
    args.data_source = source
    raw = load_ramdocs(source.path) if args.dataset == "ramdocs" else ambigdocs_items(source.path)
    return run_questions(args, questions(raw), args.dataset, None)


def report_runs(
    args: argparse.Namespace,
    build: Callable[[str], dict[str, Any]],
    fmt: Callable[[dict[str, Any]], str],
) -> int:
    """Build, optionally ConflictScore, and print the reports of ``args.run``."""
    from conflicteval.models.answerers import writes_outputs
    from conflicteval.results.kinds_answers import rewrite_question_run

    reports = [build(run) for run in args.run]
    if writes_outputs():  # the run's contract says what this report prints (today's rules)
        for run, rep in zip(args.run, reports, strict=True):
            rewrite_question_run(run, rep)
    if args.conflictscore:
        scorer = _scorer(args)
        from conflicteval.ramdocs.conflict import conflict_scores
        from conflicteval.ramdocs.report import run_records

        for run, rep in zip(args.run, reports, strict=True):
            rep["conflictscore"] = run_sync(
                conflict_scores(
                    run,
                    run_records(run),
                    scorer,
                    concurrency=args.concurrency,
                    progress=progress_from_args(args),
                    restart=bool(args.restart),
                    options=run_options(args)["options"],
                )
            )
    measured: list[str] = []
    if args.conflictscore:  # the instrument's measured accuracy travels with its numbers
        from conflicteval.conflictscore.score_files import measured as measured_rows
        from conflicteval.measurements import measured_lines

        measured = measured_lines(scorer.labeler)
        for rep in reports:
            rep["conflictscore"]["labeler_measured"] = measured_rows(scorer.labeler)
    if args.json:
        print(reports_json(reports))
        return 0
    from conflicteval.ramdocs.conflict import format_conflict
    from conflicteval.ramdocs.report import format_table

    for i, rep in enumerate(reports):
        if i:
            print()
        print(for_terminal(fmt(rep), args))
        if "conflictscore" in rep:
            print(for_terminal(format_conflict(rep["conflictscore"]), args))
            print(for_terminal("\n".join(measured), args))
    if len(reports) > 1:
        print()
        print(for_terminal(format_table(reports), args))
    return 0


def _scorer(args: argparse.Namespace) -> Any:
    return scorer_from_args(args, max_concurrency=args.concurrency)


def _report(args: argparse.Namespace) -> int:
    from conflicteval.ramdocs.report import format_ramdocs, ramdocs_report

    return report_runs(args, ramdocs_report, format_ramdocs)
