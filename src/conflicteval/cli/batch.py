"""``--batch-export`` and ``--dry-run`` on every model-calling command; ``conflicteval batch``.

``add_batch_options(parser)`` (defined with the shared options in
:mod:`conflicteval.cli.options`) adds ``--batch-export FILE`` and ``--dry-run``
to a command and ``batch_command(func)`` wraps its function: the command runs
inside a :class:`~conflicteval.models.ledger.CallLedger` (cost and call
counts in its end-of-run summary) and under the answerer its options ask for
(:mod:`conflicteval.models.answerers`): with ``--batch-export``, the
``Export`` answerer (exit status 3 when requests wait for batch results);
with ``--dry-run``, ``Count``: the command runs as it would, its calls are
counted (cache hits, prompt tokens, money) instead of made, nothing is
written, and the count is what the command prints. This holds for every item
executor (``--executor ray`` carries the answerer to its actors).

``conflicteval batch import RESULTS... [--export FILE]``
    Store batch results in the response cache.
``conflicteval batch run [--export FILE] -- COMMAND ...``
    Rounds against the OpenAI Batch API until COMMAND completes
    (:func:`conflicteval.batch.rounds.run_rounds`, the command run in this process).
``conflicteval batch status [--export FILE]``
    Rounds, batches and how many exported calls are answered.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from conflicteval.cli.commands import area_register
from conflicteval.cli.common import EXIT_PENDING
from conflicteval.cli.options import add_batch_options, add_cache_dir, positive_float, positive_int
from conflicteval.errors import ConflictEvalError, PendingCall

if TYPE_CHECKING:  # imported where used: the command line starts without the model layer
    from conflicteval.models.answerers import Count
    from conflicteval.models.ledger import CallLedger

__all__ = [
    "add_actions",
    "add_batch_options",
    "batch_command",
    "batch_context_from_args",
    "register",
]

DEFAULT_EXPORT = "batch/requests.jsonl"


class CommandBatch:
    """The batch context of one command run (see :func:`batch_context_from_args`).

    Args:
        export: ``--batch-export FILE`` (None: calls are made online).
        dry_run: ``--dry-run``: calls are counted, not made (over ``export``).
    """

    def __init__(self, export: str | None, *, dry_run: bool = False, json: bool = False) -> None:
        from conflicteval.batch.export import BatchExport
        from conflicteval.batch.files import known_ids
        from conflicteval.models.answerers import Count
        from conflicteval.models.ledger import CallLedger

        self.export = Path(export) if export else None
        self.dry_run = dry_run
        self.json = json
        self.count: Count | None = Count() if dry_run else None
        self.ledger: CallLedger
        if self.export is not None and not dry_run:
            self.ledger = BatchExport(self.export)
        else:
            self.ledger = CallLedger(known_ids(self.export) if self.export else ())
        self._answering = contextlib.ExitStack()  # the dry run's Count while inside

    def __enter__(self) -> CommandBatch:
        self.ledger.__enter__()
        if self.count is not None:
            from conflicteval.models.answerers import answer_with

            self._answering.enter_context(answer_with(self.count))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._answering.__exit__(exc_type, exc, tb)
        self.ledger.__exit__(exc_type, exc, tb)

    def finish(self, rc: int) -> int:
        """Print the calls/cost summary and the export's (or the dry run's); the exit status."""
        if self.count is not None:
            return _dry_run_report(self.count, as_json=self.json)
        for line in self.ledger.cost_lines():
            print(line, file=sys.stderr)
        from conflicteval.batch.export import BatchExport

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
            "Batch API, Anthropic's Message Batches or vllm run-batch), import the results "
            "with 'conflicteval batch import "
            f"RESULTS --export {result.path}', then run this command again",
            file=sys.stderr,
        )
        return EXIT_PENDING


def _dry_run_report(count: Count, *, as_json: bool = False) -> int:
    """Print a dry run's reports (one per model called; JSON: a list); exit status 0."""
    reports = count.reports()
    if as_json:
        import json

        batches = [{"batch": d, "items": n, "pending": p} for d, n, p in count.batches]
        print(json.dumps({"reports": [r.to_dict() for r in reports], "batches": batches}, indent=2))
        return 0
    for line in count.batch_lines():
        print(line)
    if not reports:
        print("dry run: no model calls (the instruments of this command work offline)")
    for report in reports:
        print(report.summary())
    return 0


def batch_context_from_args(args: argparse.Namespace) -> CommandBatch:
    """The batch context for a command's parsed arguments (``--batch-export``, ``--dry-run``).

    It holds for every item executor: ``--executor ray`` carries the answerer
    (export or count) to its actors and folds their requests or counts back.
    """
    return CommandBatch(
        getattr(args, "batch_export", None),
        dry_run=bool(getattr(args, "dry_run", False)),
        json=bool(getattr(args, "json", False)),
    )


def batch_command(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Wrap a command function: ledger and answerer around it, exit status 3 when pending.

    Under ``--dry-run`` the command's own lines (provisional results of a run
    that made no call) are held back; its dry-run report is printed instead.
    An error the command reports with an exit status of 2 or more is shown.
    """

    @functools.wraps(func)
    def wrapper(args: argparse.Namespace) -> int:
        ctx = batch_context_from_args(args)
        held = io.StringIO()
        with ctx:
            try:
                if ctx.dry_run:
                    with contextlib.redirect_stdout(held), contextlib.redirect_stderr(held):
                        rc = int(func(args) or 0)
                else:
                    rc = int(func(args) or 0)
            except PendingCall:  # a call made outside the runner (one response, a stage)
                rc = 1
        if ctx.dry_run and rc >= 2 and rc != EXIT_PENDING:
            sys.stderr.write(held.getvalue())
            return rc
        return ctx.finish(rc)

    return wrapper


# --------------------------------------------------------------------------- batch ...


register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``conflicteval batch import|run|status`` to the ``batch`` command's actions."""
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
        help="run a command in rounds through the OpenAI Batch API (or Anthropic's Message "
        "Batches, for anthropic/ models) until it completes",
        description=(
            "Run COMMAND with --batch-export; while it exits 3, upload its request files, "
            "create batches (24 h window; a Message Batch for anthropic/ models), poll, "
            "download and import the results, and run it again. Example: conflicteval batch run "
            "-- score --input items.jsonl --out run "
            "--model openai/gpt-4o-mini"
        ),
    )
    p.add_argument(
        "--export",
        metavar="FILE",
        default=None,
        help=f"request file when COMMAND has no --batch-export (default {DEFAULT_EXPORT})",
    )
    p.add_argument(
        "--base-url",
        metavar="URL",
        default=None,
        help="Batch API server URL (OpenAI's, or the Anthropic API root for Message Batches)",
    )
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
    p.add_argument(
        "--azure",
        action="store_true",
        help="the batches are an Azure OpenAI resource's (--base-url or $AZURE_OPENAI_ENDPOINT)",
    )
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
    from conflicteval.batch.files import find_manifests, import_results
    from conflicteval.batch.progress import import_stalled

    for f in args.results:
        if Path(f).is_dir():
            raise ConflictEvalError(f"{f}: a directory, not a result file")
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
    stalled = import_stalled(manifests, report.n_failed, report.failure_digest, report.failed)
    if stalled:  # the same requests failed the same way as at the last import
        print(stalled)
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
    from conflicteval.batch.anthropic_batch import LazyBatchClient
    from conflicteval.batch.rounds import run_rounds

    argv, export = _command_argv(args.cmd, args.export)
    if argv[0] == "batch":
        raise ConflictEvalError("batch run runs a workflow command, not another batch command")
    command = _parse_command(argv)
    result = run_rounds(
        lambda: command.func(copy.copy(command)),  # in this process; each run its own args
        export,
        client=LazyBatchClient(args.base_url, azure=_is_azure(command)),
        poll_interval=args.poll_interval,
        max_poll_interval=args.max_poll_interval,
        max_rounds=args.max_rounds,
        served_models=tuple(args.served_model),
        command=True,
    )
    return result.status


def _is_azure(command: argparse.Namespace) -> bool:
    """Whether the command's model is an Azure deployment (its batches go to Azure)."""
    specs = getattr(command, "model", None)
    specs = specs if isinstance(specs, list) else [specs]
    return any(isinstance(s, str) and s.startswith("azure/") for s in specs)


def _parse_command(argv: list[str]) -> argparse.Namespace:
    """The command after ``--``, parsed once (a mistyped option: its usage, exit status 2)."""
    from conflicteval.cli.app import build_parser, main

    parsed, extras = build_parser().parse_known_args(argv)
    if extras:
        main(argv)  # says so as the command itself would: its usage and the nearest option
    if not callable(getattr(parsed, "func", None)) or extras:
        raise ConflictEvalError(f"batch run: {' '.join(argv)!r} is not a command to run")
    return parsed


def _status(args: argparse.Namespace) -> int:
    from conflicteval.batch.openai_batch import make_client
    from conflicteval.batch.status import status_lines

    client = make_client(args.base_url, azure=args.azure) if args.refresh else None
    for line in status_lines(Path(args.export), _cache(args), client):
        print(line)
    return 0
