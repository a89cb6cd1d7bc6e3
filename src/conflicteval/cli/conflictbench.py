"""Command-line sub-commands of ConflictBench.

``conflicteval conflictbench convert SOURCE PATH --out FILE``
    A source's release files → unified items (JSONL); with ``--rows`` the
    ConflictingQA pickle → JSONL rows with the same columns (``--allow-pickle``).
``conflicteval conflictbench build --source NAME=PATH ... --out bench.jsonl``
    Build ConflictBench (Appendix A); counts beside the paper's Table 1.
``conflicteval conflictbench detect --items bench.jsonl --out DIR``
    Conflict detection (§4.1) with a labeler; Table 2 per source and overall.
``conflicteval conflictbench report --run DIR`` (or ``--checkpoint FILE --items FILE``)
    Table 2 again from a detection checkpoint.
``conflicteval reports --items bench.jsonl --model SPEC ... --out DIR``
    Report benchmarking (§5, Table 3).
``conflicteval regenerate --questions TruthfulQA.csv --documents docs.jsonl --model SPEC --out DIR``
    Conflict-feedback regeneration (§6, Tables 4–5).

Batch commands write a checkpoint into their output directory (run the same
command again to resume), show progress on a terminal, end with a summary of
failures and tokens, and take ``--dry-run`` to count calls without making any.
The commands only parse, call the library and print: their options are defined in
``conflictbench_options``, sources and their files are resolved in ``source_files``, the
labeler and scorer made in ``instruments`` and output files written in ``run_files``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import (
    finish,
    limited,
    model_from_args,
    run_options,
    scorer_from_args,
)
from conflicteval.cli.conflictbench_options import (
    add_build,
    add_convert,
    add_detect,
    add_regenerate,
    add_report,
    add_reports,
)
from conflicteval.cli.data import record_input, resolve_data_arg
from conflicteval.cli.terminal import for_terminal
from conflicteval.conflictbench.instruments import make_labeler
from conflicteval.conflictbench.source_files import parse_sources, source_options, source_path
from conflicteval.errors import UsageError

__all__ = ["add_actions", "add_commands", "register"]


register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add the ``conflictbench`` actions: convert, build, detect, report."""
    add_convert(sub).set_defaults(func=_convert)
    add_build(sub).set_defaults(func=batch_command(_build))
    add_detect(sub).set_defaults(func=batch_command(_detect))
    add_report(sub).set_defaults(func=_report)


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Add the top-level ``reports`` and ``regenerate`` commands."""
    add_reports(subparsers).set_defaults(func=batch_command(_reports))
    add_regenerate(subparsers).set_defaults(func=batch_command(_regenerate))


def _handled(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Usage errors (bad option, missing file) become one line and exit status 2 in
    :func:`conflicteval.cli.main`; kept as a marker of the command functions."""
    return func


def _scorer(args: argparse.Namespace) -> Any:
    return scorer_from_args(args, args.scorer_model or "", option="--scorer-model")


def _source_path(name: str, path: str | None, args: argparse.Namespace) -> str | None:
    allow = getattr(args, "allow_checksum_mismatch", False)
    convert = args.conflictbench_command == "convert"
    return source_path(name, path, allow_mismatch=allow, convert=convert)


def _run_dir(args: argparse.Namespace) -> Path:
    from conflicteval.models.answerers import writes_outputs

    out = Path(args.out)
    if writes_outputs():  # a dry run (--dry-run) writes nothing
        out.mkdir(parents=True, exist_ok=True)
    return out


def _dry() -> bool:
    """True in a dry run: the command's results are provisional and nothing is written."""
    from conflicteval.models.answerers import writes_outputs

    return not writes_outputs()


def _write_run_files(
    write: Callable[..., str], out: Path, run: Any, args: argparse.Namespace, *inputs: str | Path
) -> None:
    """Write the run's files into ``out``, record its input files (data.json: each file
    and its sha256) and print the tables ``write`` returns."""
    text = write(out, run, paper=args.paper)
    for path in inputs:
        record_input(out, path)
    from conflicteval.results.build import timing_of
    from conflicteval.results.kinds_conflict import write_conflictbench

    write_conflictbench(write.__name__, out, run, **timing_of(args))  # the run contract
    print(for_terminal(text, args))


# ------------------------------------------------------------------ conflictbench


@_handled
def _convert(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench import convert_conflictingqa_pickle, load, write_items

    if args.rows:
        if args.source.lower() != "conflictingqa":
            raise UsageError("--rows is for the ConflictingQA pickle only")
        if args.path is None:
            raise UsageError("--rows needs the path of the ConflictingQA pickle")
        n = convert_conflictingqa_pickle(args.path, args.out, allow_pickle=args.allow_pickle)
        print(f"wrote {n} rows to {args.out}")
        return 0
    path = _source_path(args.source, args.path, args)
    items = iter(load(args.source, path, **source_options(args.source, args)))
    first = next(items, None)
    if first is None:  # an empty items file would only fail later, further from its cause
        from conflicteval.errors import DataError

        raise DataError(path, None, None, "no item read (with these options): nothing written")
    n = write_items(itertools.chain([first], items), args.out)
    print(f"wrote {n} items to {args.out}")
    return 0


@_handled
def _build(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench import PAPER_TABLE1, LLMClaimWriter, abuild_conflictbench

    specs = [
        (n, _source_path(n, p, args), source_options(n, args))
        for n, p in parse_sources(args.source)
    ]
    sizes: Any = PAPER_TABLE1 if args.sizes == "paper" else None
    writer = LLMClaimWriter(model_from_args(args)) if args.model else None
    from conflicteval._sync import run_sync

    result = run_sync(
        abuild_conflictbench(
            specs,
            output=args.out,
            seed=args.seed,
            sizes=sizes,
            claim_writer=writer,
            checkpoint=args.checkpoint,
            concurrency=args.concurrency,
            **run_options(args),
        )
    )
    print(for_terminal(result.table(), args))
    print(result.summary())
    return 1 if result.claim_failures else 0


def _read_some_items(path: str, doing: str) -> list[Any]:
    """The items of an ``--items`` file; an empty one is one error line naming it (figures of
    nothing would read as a run that went well)."""
    from conflicteval.conflictbench import read_items
    from conflicteval.errors import DataError

    items = read_items(path)
    if not items:
        raise DataError(path, None, None, f"no items (an empty file): nothing to {doing}")
    return items


@_handled
def _detect(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench import adetect

    items = _read_some_items(args.items, "detect")
    items = limited(items, args.limit, "items")
    model = model_from_args(args) if args.model else None
    kind = args.labeler or ("llm" if model is not None else "lexical")
    labeler = make_labeler(kind, model, args.plain_json)
    out = _run_dir(args)
    from conflicteval._sync import run_sync
    from conflicteval.conflictbench.run_files import write_detection_files

    run = run_sync(
        adetect(
            items,
            labeler,
            checkpoint=out / "checkpoint.jsonl",
            concurrency=args.concurrency,
            **run_options(args),
        )
    )
    if _dry():
        return 0
    _write_run_files(write_detection_files, out, run, args, args.items)
    from conflicteval.measurements import measured_lines

    for line in measured_lines(labeler):  # the instrument's measured accuracy, or how to get it
        print(line)
    print(run.pairs_line())  # the item counts and usage: finish's closing lines, not twice
    status = finish(run.batch, "items", stream=sys.stdout, run_dir=out)
    # an undetermined item (a failed pair might have been the conflict) was not scored
    return 1 if status == 0 and run.metrics["overall"].failed_items else status


@_handled
def _report(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench import detection_metrics, outcomes_from_checkpoint
    from conflicteval.conflictbench.metrics import table2

    ckpt = args.checkpoint or (str(Path(args.run) / "checkpoint.jsonl") if args.run else None)
    if ckpt is None:
        raise UsageError("give --run DIR (the output directory of 'detect') or --checkpoint FILE")
    if not Path(ckpt).is_file():
        raise UsageError(f"no checkpoint at {ckpt}")
    items = _read_some_items(args.items, "report") if args.items else None
    outcomes = outcomes_from_checkpoint(ckpt, items)
    metrics = detection_metrics(outcomes)
    if args.json:
        print(json.dumps({k: m.model_dump() for k, m in metrics.items()}, indent=2))
    else:
        print(for_terminal(table2(metrics, paper=args.paper), args))
    missing = len(items) - len(outcomes) if items is not None else 0
    if missing:  # a run not finished: the table covers fewer items than the file, said so
        print(
            f"note: {missing} of {len(items or [])} items in {args.items} have no record in "
            f"{ckpt}, so the table leaves them out; run 'conflictbench detect' again to "
            "finish the run",
            file=sys.stderr,
        )
        return 1
    return 0


# ------------------------------------------------------------------ reports / regenerate


@_handled
def _reports(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench.report_benchmark import arun_reports, select_report_items

    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    models: dict[str, Any] = {}
    for value in args.model:
        name, sep, spec = value.partition("=")
        spec = spec if sep else name
        models[name] = model_from_args(args, spec)
    every = _read_some_items(args.items, "report on")
    items = select_report_items(
        every,
        n=args.n or None,
        seed=args.seed,
        source=None if args.source == "any" else args.source,
    )
    if not items:
        raise UsageError(
            f"no item qualifies (--source {args.source}: check --source, 'any' for every "
            "source, and that the items have conflicts)"
        )
    scorer = _scorer(args)
    entity_model = model_from_args(args, args.entity_model) if args.entity_model else None
    out = _run_dir(args)
    from conflicteval._sync import run_sync
    from conflicteval.conflictbench.run_files import write_report_files

    run = run_sync(
        arun_reports(
            items,
            models,
            scorer,
            settings=settings,
            entity_model=entity_model,
            checkpoint=out / "checkpoint.jsonl",
            concurrency=args.concurrency,
            max_tokens=args.max_tokens,
            **run_options(args),
        )
    )
    if _dry():
        return 0
    _write_run_files(write_report_files, out, run, args, args.items)
    print(run.entity_line())  # the report counts and usage: finish's closing lines, not twice
    return finish(run.batch, "reports", stream=sys.stdout, run_dir=out)


@_handled
def _regenerate(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench.regenerate import arun_regeneration
    from conflicteval.conflictbench.truthfulqa import (
        load_retrieved_documents,
        load_truthfulqa,
        require_binary_choice,
    )

    questions_path = resolve_data_arg(args, "truthfulqa", dest="questions").path
    questions = load_truthfulqa(questions_path)
    questions = limited(questions, args.limit, "questions")
    modes: Any = ("free", "choice") if args.mode == "both" else (args.mode,)
    if "choice" in modes:
        require_binary_choice(questions, questions_path)
    documents = load_retrieved_documents(args.documents, questions)
    model = model_from_args(args)
    judge = model_from_args(args, args.judge_model) if args.judge_model else None
    scorer = _scorer(args)
    missing = sum(1 for q in questions if not documents.get(q.index))
    if missing:
        print(f"note: {missing} questions have no documents and are skipped", file=sys.stderr)
    out = _run_dir(args)
    from conflicteval._sync import run_sync
    from conflicteval.conflictbench.run_files import write_regeneration_files

    run = run_sync(
        arun_regeneration(
            questions,
            documents,
            model,
            scorer,
            judge=judge,
            modes=modes,
            seed=args.seed,
            max_docs=args.max_docs,
            checkpoint=out / "checkpoint.jsonl",
            concurrency=args.concurrency,
            **run_options(args),
            main_claim=args.main_claim.replace("-", "_"),
        )
    )
    if _dry():
        return 0
    _write_run_files(write_regeneration_files, out, run, args, questions_path, args.documents)
    print(run.modes_line())  # the item counts and usage: finish's closing lines, not twice
    return finish(run.batch, "question-format items", stream=sys.stdout, run_dir=out)
