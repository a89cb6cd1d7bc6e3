"""``--batch-export`` on every model-calling command, and ``conflicteval batch ...``.

``add_batch_options(parser)`` (defined with the shared options in
:mod:`conflicteval.cli.options`) adds ``--batch-export FILE`` to a command and
``batch_command(func)`` wraps its function: the command runs inside a
:class:`~conflicteval.executors.plan.CallLedger` (cost and call counts in its
end-of-run summary) or, with ``--batch-export``, a
:class:`~conflicteval.executors.plan.BatchExport`, and exits with status 3 when
requests wait for batch results.

``conflicteval batch import RESULTS... [--export FILE]``
    Store batch results in the response cache.
``conflicteval batch run [--export FILE] -- COMMAND ...``
    Rounds against the OpenAI Batch API until COMMAND completes
    (:func:`conflicteval.executors.rounds.run_rounds`, the command run in this process).
``conflicteval batch status [--export FILE]``
    Rounds, batches and how many exported calls are answered.
"""

from __future__ import annotations

import argparse
import copy
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval.cli.common import EXIT_PENDING
from conflicteval.cli.options import add_batch_options, add_cache_dir, positive_float, positive_int
from conflicteval.errors import ConflictEvalError, PendingCall

if TYPE_CHECKING:  # imported where used: the command line starts without the model layer
    from conflicteval.executors.plan import CallLedger

__all__ = ["add_batch_options", "batch_command", "batch_context_from_args", "register"]

DEFAULT_EXPORT = "batch/requests.jsonl"


class CommandBatch:
    """The batch context of one command run (see :func:`batch_context_from_args`)."""

    def __init__(self, export: str | None, *, dry_run: bool = False) -> None:
        from conflicteval.executors.plan import BatchExport, CallLedger

        self.export = Path(export) if export else None
        self.ledger: CallLedger
        if self.export is not None and not dry_run:
            self.ledger = BatchExport(self.export)
        else:
            from conflicteval.executors.batchfile import known_ids

            self.ledger = CallLedger(known_ids(self.export) if self.export else ())

    def __enter__(self) -> CommandBatch:
        self.ledger.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.ledger.__exit__(exc_type, exc, tb)

    def finish(self, rc: int) -> int:
        """Print the calls/cost summary and the export's; returns the exit status."""
        for line in self.ledger.cost_lines():
            print(line, file=sys.stderr)
        from conflicteval.executors.plan import BatchExport

        if not isinstance(self.ledger, BatchExport):
            return rc
        result = self.ledger.result
        if result is None:
            return rc
        print(result.summary(), file=sys.stderr)
        if not result.requests:
            return rc
        print(
            "the figures above are provisional (items waiting for these calls count as "
            "pending or unscored); submit the file(s) (conflicteval batch run, the OpenAI "
            "Batch API, or vllm run-batch), import the results with 'conflicteval batch import "
            f"RESULTS --export {result.path}', then run this command again",
            file=sys.stderr,
        )
        return EXIT_PENDING


def batch_context_from_args(args: argparse.Namespace) -> CommandBatch:
    """The batch context for a command's parsed arguments (``--batch-export``, ``--dry-run``).

    Raises:
        ConflictEvalError: ``--batch-export`` with an executor that runs items in other
            processes (their calls would not be seen, and would be sent online).
    """
    executor = getattr(args, "executor", None)
    if getattr(args, "batch_export", None) and executor not in (None, "local"):
        raise ConflictEvalError(
            f"--batch-export writes the calls to a file instead of making them; it cannot be "
            f"combined with --executor {executor}"
        )
    return CommandBatch(
        getattr(args, "batch_export", None), dry_run=bool(getattr(args, "dry_run", False))
    )


def batch_command(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Wrap a command function: ledger or batch export around it, exit status 3 when pending."""

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        ctx = batch_context_from_args(args)
        with ctx:
            try:
                rc = int(func(args) or 0)
            except PendingCall:  # a call made outside the runner (one response, a stage)
                rc = 1
        return ctx.finish(rc)

    return wrapper


# --------------------------------------------------------------------------- batch ...


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``conflicteval batch import|run|status``."""
    batch = subparsers.add_parser(
        "batch",
        help="batch execution: import batch results, run rounds against the OpenAI Batch API",
        description="Batch execution of any command's model calls; see 'conflicteval docs batch'.",
    )
    sub = batch.add_subparsers(dest="batch_command", metavar="ACTION", required=True)

    p = sub.add_parser("import", help="store batch result files in the response cache")
    p.add_argument("results", nargs="+", metavar="RESULTS.jsonl", help="result files")
    p.add_argument(
        "--export",
        metavar="FILE",
        action="append",
        default=None,
        help="the request file the results answer (its manifest names the requests; "
        "default: every *.manifest.jsonl beside the result files)",
    )
    _served_option(p)
    _cache_option(p)
    p.set_defaults(func=_import)

    p = sub.add_parser(
        "run",
        help="run a command in rounds through the OpenAI Batch API until it completes",
        description=(
            "Run COMMAND with --batch-export; while it exits 3, upload its request files, "
            "create batches (24 h window), poll, download and import the results, and run it "
            "again. Example: conflicteval batch run -- score --input items.jsonl --out run "
            "--model openai/gpt-4o-mini"
        ),
    )
    p.add_argument(
        "--export",
        metavar="FILE",
        default=None,
        help=f"request file when COMMAND has no --batch-export (default {DEFAULT_EXPORT})",
    )
    p.add_argument("--base-url", metavar="URL", default=None, help="Batch API server URL")
    p.add_argument(
        "--poll-interval", type=positive_float, default=15.0, help="first wait between polls (15 s)"
    )
    p.add_argument(
        "--max-poll-interval",
        type=positive_float,
        default=300.0,
        help="longest wait between polls (300 s)",
    )
    p.add_argument("--max-rounds", type=positive_int, default=20, help="stop after N rounds (20)")
    _served_option(p)
    p.add_argument(
        "cmd",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ...",
        help="the command to run in rounds, with its options, after '--'",
    )
    p.set_defaults(func=_run)

    p = sub.add_parser("status", help="where a batch run stands")
    p.add_argument(
        "--export",
        metavar="FILE",
        default=DEFAULT_EXPORT,
        help=f"the request file (default {DEFAULT_EXPORT})",
    )
    p.add_argument(
        "--refresh", action="store_true", help="ask the Batch API about unfinished batches"
    )
    p.add_argument("--base-url", metavar="URL", default=None, help="Batch API server URL")
    _cache_option(p)
    p.set_defaults(func=_status)


def _served_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--served-model",
        metavar="NAME",
        action="append",
        default=[],
        help="accept replies whose body names model NAME although the request asked for "
        "another (a server started with another served model name); without it such "
        "replies are refused. Repeatable.",
    )


def _cache_option(p: argparse.ArgumentParser) -> None:
    add_cache_dir(p)


def _cache(args: argparse.Namespace) -> Any:
    from conflicteval.cache import open_cache

    return open_cache(args.cache_dir)


def _import(args: argparse.Namespace) -> int:
    from conflicteval.executors.batchfile import find_manifests, import_results

    for f in args.results:
        if not Path(f).is_file():
            raise ConflictEvalError(f"{f}: no such result file")
    manifests = args.export or find_manifests(args.results)
    if not manifests:
        raise ConflictEvalError(
            "no manifest found beside the result files: say which export they answer with "
            "--export REQUESTS.jsonl"
        )
    report = import_results(
        args.results, _cache(args), manifests, served_models=tuple(args.served_model)
    )
    print(report.summary())
    if report.mismatched:
        return 1  # replies from another model were refused: say so in the exit status
    return 0 if report.usable or not report.lines else 1


def _command_argv(cmd: list[str], export: str | None) -> tuple[list[str], Path]:
    argv = list(cmd)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if argv and argv[0] in ("conflicteval", "python -m conflicteval"):
        argv = argv[1:]
    if not argv:
        raise ConflictEvalError("batch run needs a command after '--', e.g. -- score --input ...")
    for i, a in enumerate(argv):
        if a == "--batch-export" and i + 1 < len(argv):
            return argv, Path(argv[i + 1])
        if a.startswith("--batch-export="):
            return argv, Path(a.split("=", 1)[1])
    path = Path(export or DEFAULT_EXPORT)
    return [*argv, "--batch-export", str(path)], path


def _run(args: argparse.Namespace) -> int:
    from conflicteval.executors.openai_batch import make_client
    from conflicteval.executors.rounds import run_rounds

    argv, export = _command_argv(args.cmd, args.export)
    if argv[0] == "batch":
        raise ConflictEvalError("batch run runs a workflow command, not another batch command")
    command = _parse_command(argv)
    result = run_rounds(
        lambda: command.func(copy.copy(command)),  # in this process; each run its own args
        export,
        client=make_client(args.base_url),
        poll_interval=args.poll_interval,
        max_poll_interval=args.max_poll_interval,
        max_rounds=args.max_rounds,
        served_models=tuple(args.served_model),
        command=True,
    )
    return result.status


def _parse_command(argv: list[str]) -> argparse.Namespace:
    """The command after ``--``, parsed once (a mistyped option: its usage, exit status 2)."""
    from conflicteval.cli import build_parser, main

    parsed, extras = build_parser().parse_known_args(argv)
    if extras:
        main(argv)  # says so as the command itself would: its usage and the nearest option
    if not callable(getattr(parsed, "func", None)) or extras:
        raise ConflictEvalError(f"batch run: {' '.join(argv)!r} is not a command to run")
    return parsed


def _status(args: argparse.Namespace) -> int:
    from conflicteval.executors.openai_batch import make_client, status_lines

    client = make_client(args.base_url) if args.refresh else None
    for line in status_lines(Path(args.export), _cache(args), client):
        print(line)
    return 0
