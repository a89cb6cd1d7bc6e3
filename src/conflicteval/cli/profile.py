"""``conflicteval profile`` and :func:`profile`: a model's conflict behaviour in one command.

Every benchmark of the suite (:mod:`conflicteval.profiles.suite`) runs through its own
workflow command, in this process, into ``DIR/<model>/<benchmark>/``; the card
(``DIR/summary.json``, kind ``profile``) is then built from the runs' contracts, and with two
or more models their paired comparison is written to ``DIR/compare.json``. See
docs/profile.md.

Exit codes: 0 when every cell that could run ran (cells without data are listed on the card
as not run, with the reason and what provides their data), 1 when a cell's command failed or
some of its items did, 2 for bad input, 3 when calls wait for batch results
(``--batch-export``; ``conflicteval batch run -- profile ...`` runs the rounds).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from conflicteval.errors import ConflictEvalError
from conflicteval.profiles.runner import ProfileOptions, run_profile

__all__ = ["add_options", "count_calls", "invoke", "profile", "register", "write_reports"]


class _Tee(io.TextIOBase):
    """Writes to a stream and keeps a copy."""

    def __init__(self, stream: TextIO, copy: io.StringIO) -> None:
        self.stream, self.copy = stream, copy

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def invoke(argv: list[str], quiet: bool) -> tuple[int, str | None]:
    """Run one ``conflicteval`` command line in this process (its output on stderr, or held
    back when ``quiet``); its exit status and its last ``error:`` line."""
    from conflicteval.cli.app import main

    held = io.StringIO()
    err: TextIO = held if quiet else _Tee(sys.stderr, held)  # type: ignore[assignment]
    with contextlib.redirect_stdout(err), contextlib.redirect_stderr(err):
        rc = main(argv)
    errors = [ln for ln in held.getvalue().splitlines() if ln.startswith("error:")]
    return rc, errors[-1].removeprefix("error:").strip() if errors else None


def count_calls(argv: list[str]) -> tuple[int, list[dict[str, Any]]]:
    """Run one ``conflicteval`` command line as its ``--dry-run`` in this process (nothing
    sent, nothing written, its output held back); its exit status and dry-run reports."""
    import json

    from conflicteval.cli.app import build_parser

    args, extras = build_parser().parse_known_args([*argv, "--dry-run"])
    if extras or not callable(getattr(args, "func", None)):
        return 2, []
    args.json = True  # the dry run's reports as JSON, also for a command without --json
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            rc = int(args.func(args) or 0)
        except (ConflictEvalError, ValueError, OSError):
            return 2, []
    try:
        reports = json.loads(out.getvalue())["reports"]
    except (ValueError, KeyError, TypeError):
        return rc or 2, []
    return rc, list(reports)


def profile(
    models: str | Sequence[str],
    out: str | os.PathLike[str],
    *,
    size: str = "small",
    data: Mapping[str, str | os.PathLike[str]] | None = None,
    judge_model: str | None = None,
    labeler: str = "lexical",
    base_url: str | None = None,
    max_usd: float | None = None,
    dry_run: bool = False,
    batch_export: str | None = None,
    executor: str | None = None,
    concurrency: int | None = None,
    benchmarks: Iterable[str] | None = None,
    quiet: bool = True,
) -> Any:
    """Profile one or more models on the suite; return the card (a
    :class:`~conflicteval.results.contract.RunSummary` of kind ``profile``), or under
    ``dry_run`` the cells with their counted calls, tokens and money (nothing sent or written).

    Args:
        models: Model specs (``openai/gpt-4o-mini``, ...).
        out: The profile directory (resumable: run again to go on; nothing is asked twice).
        size: ``small`` (about 100 items a benchmark), ``standard`` (500) or ``full``.
        data: Data files by dataset name (``{"ramdocs": "RAMDocs_test.jsonl"}``); a dataset not
            given is read from the registry's cache or fetched, else its cells are not run.
        judge_model: WikiContradict's judge (default: the offline ``lexical`` judge), and the
            model of an ``llm`` ConflictScore labeler.
        labeler: ConflictScore's labeler kind for the ConflictScore cells (default the
            offline ``lexical``; ``llm``, ``llm-per-document``, ``llm-per-claim`` with
            ``judge_model``).
        base_url: An OpenAI-compatible server for the models.
        max_usd: Stop before the estimated spend passes this many dollars.
        dry_run: Count calls, tokens and money per benchmark; send nothing.
        batch_export: Write the calls the cache cannot answer, of every benchmark, to this
            one request file (Batch API); cells waiting for them are ``pending``.
        executor: ``ray`` to run items in Ray actors.
        concurrency: Items in flight at once (each command's default otherwise).
        benchmarks: Only these benchmark ids of the suite.
        quiet: Hold the commands' own output back.
    """
    from conflicteval.profiles.card import build_card, write_card

    specs = [models] if isinstance(models, str) else list(models)
    if not specs:
        raise ConflictEvalError("profile: give at least one model")
    opts = ProfileOptions(
        models=specs,
        out=Path(out),
        size=size,
        data={k: str(v) for k, v in (data or {}).items()},
        judge_model=judge_model,
        labeler=labeler,
        base_url=base_url,
        max_usd=max_usd,
        dry_run=dry_run,
        exporting=bool(batch_export) and not dry_run,
        executor=executor,
        concurrency=concurrency,
        benchmarks=list(benchmarks) if benchmarks is not None else None,
        quiet=quiet,
    )
    if batch_export and not dry_run:  # one request file for every command's calls
        from conflicteval.cli.batch import CommandBatch

        with CommandBatch(batch_export):
            cells, _ = run_profile(opts, invoke, count_calls)
    else:
        cells, _ = run_profile(opts, invoke, count_calls)
    if dry_run:
        return cells
    write_card(opts.out)
    write_reports(opts.out)
    return build_card(opts.out)


def write_reports(out: Path) -> list[Path]:
    """Write each run's own report (``<run>/report.html``) and the card's
    (``DIR/report.html``), which links to them; return the files written."""
    from conflicteval.profiles.card import read_profile
    from conflicteval.view import load_run, write_report

    written = []
    for cell in read_profile(out)["cells"]:
        run_dir = out / cell["run"]
        if cell.get("status") == "ran" and (run_dir / "summary.json").exists():
            try:
                written.append(write_report([load_run(run_dir)], run_dir / "report.html"))
            except ConflictEvalError as exc:  # a run the viewer cannot read: said, not fatal
                print(f"warning: {run_dir}: no report: {exc}", file=sys.stderr)
    written.append(write_report([load_run(out)], out / "report.html"))
    return written


def _data_pairs(values: Sequence[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values or []:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise ConflictEvalError(f"--data {value!r}: give NAME=PATH (e.g. ramdocs=file.jsonl)")
        out[name] = path
    return out


# options of the shared model group passed on to every command that calls the model
_PASSED = (
    ("timeout", "--timeout"),
    ("max_attempts", "--max-attempts"),
    ("no_cache", "--no-cache"),
    ("max_output_tokens", "--max-output-tokens"),
    ("reasoning_effort", "--reasoning-effort"),
    ("model_family", "--model-family"),
    ("model_concurrency", "--model-concurrency"),
    ("concurrency", "--concurrency"),
)


def add_options(p: argparse.ArgumentParser) -> None:
    """The options of ``conflicteval profile`` (the shared ones from the options module)."""
    from conflicteval.cli.options import (
        add_batch_options,
        add_labeler,
        add_model_options,
        add_out,
        add_quiet,
        positive_float,
    )
    from conflicteval.cli.terminal import add_wide
    from conflicteval.profiles.suite import SIZES

    add_out(p, "profile directory (resumable)")
    p.add_argument("--size", choices=SIZES, default="small", help="suite size (default small)")
    p.add_argument(
        "--data",
        action="append",
        metavar="NAME=PATH",
        help="a dataset's file by its name (ramdocs, wikicontradict, feverous-s, ...; repeat)",
    )
    p.add_argument("--benchmark", action="append", metavar="ID", help="only this benchmark")
    p.add_argument("--max-usd", type=positive_float, help="stop before the spend passes this")
    p.add_argument(
        "--judge-model",
        metavar="SPEC",
        help="WikiContradict's judge (default: lexical), and an llm labeler's model",
    )
    add_labeler(
        p,
        ("lexical", "llm", "llm-per-document", "llm-per-claim"),
        "lexical",
        "lexical, offline; ConflictScore's labeler of the ConflictScore cells, an llm kind's "
        "model is --judge-model",
    )
    p.add_argument("--executor", choices=("local", "ray"), help="item executor of every command")
    p.add_argument("--export-eee", metavar="DIR", help="also export each run as an EEE record")
    add_quiet(p)
    add_wide(p)
    add_batch_options(p)
    add_model_options(p, what="model to profile (repeat for several)", repeat=True)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``conflicteval profile``."""
    p = subparsers.add_parser(
        "profile",
        help="a model's conflict profile: every benchmark of the suite, one card",
        description="Run every benchmark of the suite (conflicteval-suite/1) for each model "
        "through its own workflow into DIR/<model>/<benchmark>/, and write the card "
        "DIR/summary.json (and DIR/compare.json for two or more models). See docs/profile.md.",
    )
    add_options(p)
    p.set_defaults(func=_run)


def _model_words(args: argparse.Namespace) -> list[str]:
    """The shared model options the user set, as words for every model-calling command."""
    from conflicteval.cli.options import add_model_options

    defaults = argparse.ArgumentParser()
    add_model_options(defaults, what="m", repeat=True)
    default = defaults.parse_args([])
    words: list[str] = []
    for dest, flag in _PASSED:
        value = getattr(args, dest, None)
        if value is None or value == getattr(default, dest, None):
            continue
        words += [flag] if value is True else [flag, str(value)]
    return words


def _run(args: argparse.Namespace) -> int:

    out = Path(args.out)
    if not args.model:
        if args.export_eee:  # export a profile made before
            return _export(out, args.export_eee)
        raise ConflictEvalError("profile: give --model SPEC (repeat for several models)")
    exporting = bool(args.batch_export) and not args.dry_run
    opts = ProfileOptions(
        models=args.model,
        out=out,
        size=args.size,
        data=_data_pairs(args.data),
        judge_model=args.judge_model,
        labeler=args.labeler,
        base_url=args.base_url,
        max_usd=args.max_usd,
        dry_run=args.dry_run,
        exporting=exporting,
        executor=args.executor,
        model_words=_model_words(args),
        benchmarks=args.benchmark,
        quiet=args.quiet,
    )
    if exporting:  # every cell's commands in one batch export: one request file, exit 3
        from conflicteval.cli.batch import CommandBatch

        with CommandBatch(args.batch_export) as ctx:
            rc = _profile_lines(opts, out, args)
        return ctx.finish(rc)
    return _profile_lines(opts, out, args)


def _profile_lines(opts: ProfileOptions, out: Path, args: argparse.Namespace) -> int:
    """Run the profile, write and print the card (or the dry run's table); the exit status."""
    from conflicteval.cli.terminal import for_terminal
    from conflicteval.profiles.card import COMPARE_FILE, build_card, write_card
    from conflicteval.profiles.text import card_lines, compare_lines, dry_run_lines

    cells, _ = run_profile(opts, invoke, count_calls)
    if opts.dry_run:
        print("\n".join(dry_run_lines(cells, wide=args.wide)))
        return 0
    write_card(out)
    write_reports(out)
    print(for_terminal("\n".join(card_lines(build_card(out))), args))
    if (out / COMPARE_FILE).exists():
        import json

        compared = compare_lines(json.loads((out / COMPARE_FILE).read_text()))
        print(for_terminal("\n".join(compared), args))
    print(f"card: {out / 'summary.json'}; open it: conflicteval view {out}", file=sys.stderr)
    if args.export_eee:
        _export(out, args.export_eee)
    if any(c.status == "pending" for c in cells):
        return 3
    return 1 if any(c.status == "failed" or c.exit_status == 1 for c in cells) else 0


def _export(out: Path, target: str) -> int:
    from conflicteval.profiles.export import export_profile

    files = export_profile(out, target)
    print(f"exported {len(files)} file(s) under {target}", file=sys.stderr)
    return 0
