"""Command-line sub-commands of ConflictBench.

``conflicteval conflictbench convert SOURCE PATH --out FILE``
    A source's release files → unified items (JSONL); with ``--rows`` the
    ConflictingQA pickle → JSONL rows with the same columns (``--allow-pickle``).
``conflicteval conflictbench build --source NAME=PATH ... --out bench.jsonl``
    Build ConflictBench (Appendix A); counts beside the paper's Table 1.
``conflicteval conflictbench detect --items bench.jsonl --out DIR``
    Conflict detection (§4.1) with a labeler; Table 2 per source and overall.
``conflicteval conflictbench report --out DIR`` (or ``--checkpoint FILE --items FILE``)
    Table 2 again from a detection checkpoint.
``conflicteval reports --items bench.jsonl --model SPEC ... --out DIR``
    Report benchmarking (§5, Table 3).
``conflicteval regenerate --questions TruthfulQA.csv --documents docs.jsonl --model SPEC --out DIR``
    Conflict-feedback regeneration (§6, Tables 4–5).

Batch commands write a checkpoint into their output directory (run the same
command again to resume), show progress on a terminal, end with a summary of
failures and tokens, and take ``--dry-run`` to count calls without making any.
The commands only parse, call the library and print: sources and their files are
resolved in ``source_files``, the labeler and scorer made in ``instruments``, dry
output files written in ``run_files``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conflicteval.cli_common import (
    SPEC_HELP,
    add_batch_options,
    add_model_options,
    add_run_options,
    finish,
    model_from_args,
    not_negative_int,
    positive_int,
    run_options,
)
from conflicteval.conflictbench.instruments import DECOMPOSERS, LABELERS, make_labeler, make_scorer
from conflicteval.conflictbench.source_files import parse_sources, source_options, source_path
from conflicteval.data.cli import add_data_option, record_input, resolve_data_arg
from conflicteval.errors import UsageError
from conflicteval.executors.batch_cli import batch_command

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``conflictbench`` (convert, build, detect, report), ``reports`` and ``regenerate``."""
    cb = subparsers.add_parser(
        "conflictbench",
        help="ConflictBench: convert sources, build the benchmark, run conflict detection",
        description="ConflictBench from its five sources, and the conflict-detection task.",
    )
    sub = cb.add_subparsers(dest="conflictbench_command", metavar="ACTION", required=True)
    _add_convert(sub).set_defaults(func=_convert)
    _add_build(sub).set_defaults(func=batch_command(_build))
    _add_detect(sub).set_defaults(func=batch_command(_detect))
    _add_report(sub).set_defaults(func=_report)
    _add_reports(subparsers).set_defaults(func=batch_command(_reports))
    _add_regenerate(subparsers).set_defaults(func=batch_command(_regenerate))


# ------------------------------------------------------------------ per-command options


def _add_convert(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """conflictbench convert: one source's release files as JSONL."""
    conv = sub.add_parser(
        "convert",
        help="read one source's release files and write unified items (or pickle rows) as JSONL",
    )
    conv.add_argument("source", help="conflictingqa, ambigdocs, contraqa, macnoise[-nq|-tqa]")
    conv.add_argument(
        "path",
        nargs="?",
        default=None,
        help=(
            "release file (ContraQA: the corpus directory); omitted: the pinned release is "
            "fetched (AmbigDocs, ContraQA) or the download instructions are shown"
        ),
    )
    conv.add_argument("--out", required=True, help="JSONL file to write")
    conv.add_argument(
        "--rows",
        action="store_true",
        help="ConflictingQA: write the DataFrame rows with their columns (pickle -> JSONL)",
    )
    _source_args(conv)
    return conv


def _add_build(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """conflictbench build: sources, seed, sizes, the claim writer."""
    build = sub.add_parser("build", help="build ConflictBench (Appendix A) as unified JSONL")
    build.add_argument(
        "--source",
        action="append",
        required=True,
        metavar="NAME[=PATH]",
        help=(
            "a source and its release file (without =PATH: the pinned release, fetched by "
            "name where the source allows it); repeat for several"
        ),
    )
    build.add_argument("--out", required=True, help="JSONL file to write")
    build.add_argument(
        "--seed", type=not_negative_int, default=0, help="seed of the split and draws (0)"
    )
    build.add_argument(
        "--sizes",
        choices=("all", "paper"),
        default="all",
        help="all usable records (split in the paper's proportions) or the paper's Table 1 sizes",
    )
    build.add_argument("--checkpoint", default=None, help="claim-writing checkpoint (resumable)")
    _source_args(build)
    add_model_options(
        build,
        what="claim writer model (default: deterministic template claims)",
        concurrency_help="claims written at once",
    )
    add_run_options(build)
    add_batch_options(build)
    return build


def _add_detect(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """conflictbench detect: items, labeler, model and run options."""
    det = sub.add_parser("detect", help="conflict detection (§4.1) and Table 2")
    det.add_argument("--items", required=True, help="ConflictBench JSONL (from 'build')")
    det.add_argument("--out", required=True, help="directory: checkpoint, metrics, table")
    det.add_argument(
        "--labeler",
        choices=LABELERS,
        default=None,
        help="llm (Table 7, one call per pair), llm-per-document, llm-per-claim, lexical "
        "(default: llm with --model, else lexical)",
    )
    det.add_argument("--limit", type=positive_int, default=None, help="only the first N items")
    det.add_argument("--paper", action="store_true", help="show the paper's numbers too")
    _plain_json_arg(det)
    add_model_options(det, what="labeler model")
    add_run_options(det)
    add_batch_options(det)
    return det


def _add_report(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """conflictbench report: Table 2 from a checkpoint."""
    rep = sub.add_parser("report", help="Table 2 from a detection checkpoint")
    rep.add_argument("--out", default=None, help="the detection output directory")
    rep.add_argument("--checkpoint", default=None, help="or: the checkpoint file")
    rep.add_argument("--items", default=None, help="the items (needed to count failed items)")
    rep.add_argument("--paper", action="store_true", help="show the paper's numbers too")
    rep.add_argument("--json", action="store_true", help="print the metrics as JSON")
    return rep


def _add_reports(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """reports: report models, settings, sampling and the scorer."""
    reports = subparsers.add_parser(
        "reports",
        help="report benchmarking with ConflictScore (ConflictBench §5, Table 3)",
        description=(
            "Write three-paragraph reports about each item's main entity with the RAG, "
            "RAG (Balanced) and RAG (Super-Balanced) prompts, score them with ConflictScore, "
            "and print mean CS-C / CS-R per model and setting."
        ),
    )
    reports.add_argument("--items", required=True, help="ConflictBench JSONL")
    reports.add_argument(
        "--model",
        action="append",
        required=True,
        metavar="[NAME=]SPEC",
        help="report model (repeatable), e.g. gpt41=openai/gpt-4.1; " + SPEC_HELP,
    )
    reports.add_argument(
        "--settings",
        default="rag,balanced,super_balanced",
        help="comma-separated settings (default: all three: rag,balanced,super_balanced)",
    )
    reports.add_argument(
        "--n", type=not_negative_int, default=100, help="items to sample (100; 0: all)"
    )
    reports.add_argument("--seed", type=not_negative_int, default=0, help="sampling seed (0)")
    reports.add_argument(
        "--source",
        default="conflictingqa",
        help="source to sample from (default conflictingqa, as in the paper; 'any' for all)",
    )
    reports.add_argument(
        "--entity-model",
        metavar="SPEC",
        default=None,
        help="model naming the main entity (default: the item's main_entity, else an offline "
        "heuristic)",
    )
    reports.add_argument(
        "--max-tokens", type=positive_int, default=800, help="report length limit (default 800)"
    )
    _batch_args(reports)
    add_model_options(reports, what=None, concurrency_help="reports in flight at once")
    add_run_options(reports)
    _scorer_args(reports)
    add_batch_options(reports)
    return reports


def _add_regenerate(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """regenerate: questions, documents, modes, models and the scorer."""
    regen = subparsers.add_parser(
        "regenerate",
        help="conflict-feedback regeneration on TruthfulQA (ConflictBench §6, Tables 4-5)",
        description=(
            "Answer TruthfulQA questions from retrieved documents (RAG, Control-RAG), score "
            "the answer's main claim with ConflictScore, regenerate when it is conflicted, "
            "and judge truthfulness / informativeness (free-form) or accuracy (binary choice)."
        ),
    )
    add_data_option(regen, "truthfulqa", flag="--questions", what="TruthfulQA CSV")
    regen.add_argument("--documents", required=True, help="retrieved documents (JSONL)")
    regen.add_argument(
        "--judge-model", metavar="SPEC", default=None, help="judge model (default: --model)"
    )
    regen.add_argument(
        "--mode",
        choices=("free", "choice", "both"),
        default="both",
        help="free-form answers, binary choice, or both (default)",
    )
    regen.add_argument(
        "--seed", type=not_negative_int, default=0, help="seed of the option order (0)"
    )
    regen.add_argument(
        "--max-docs", type=positive_int, default=10, help="documents per question (10)"
    )
    regen.add_argument(
        "--limit", type=positive_int, default=None, help="only the first N questions"
    )
    regen.add_argument(
        "--main-claim",
        choices=("first-conflicted", "first"),
        default="first-conflicted",
        help=(
            "free-form claim fed back for regeneration: the first claim that has conflicts "
            "(default) or the first claim only (regenerate only when it is conflicted)"
        ),
    )
    _batch_args(regen)
    add_model_options(
        regen, what="answering model", required=True, concurrency_help="questions in flight"
    )
    add_run_options(regen)
    _scorer_args(regen)
    add_batch_options(regen)
    return regen


# ------------------------------------------------------------------ shared arguments


def _source_args(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("source options")
    g.add_argument("--allow-pickle", action="store_true", help="ConflictingQA: read a pickle")
    g.add_argument(
        "--allow-checksum-mismatch",
        action="store_true",
        help="use a fetched release whose sha256 differs from its pin",
    )
    g.add_argument("--level", default="35", help="MacNoise perturbation level (35)")
    g.add_argument("--variant", choices=("nq", "tqa"), default=None, help="MacNoise variant")
    g.add_argument(
        "--keep-original", action="store_true", help="MacNoise: keep swapped passages' originals"
    )
    g.add_argument("--queries", default=None, help="ContraQA queries file")
    g.add_argument("--qrels", default=None, help="ContraQA qrels TSV")
    g.add_argument(
        "--claimed-index", type=not_negative_int, default=0, help="AmbigDocs claimed document (0)"
    )


def _batch_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="output directory (checkpoint, results)")
    parser.add_argument("--paper", action="store_true", help="show the paper's numbers too")


def _scorer_args(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("ConflictScore")
    g.add_argument(
        "--scorer-model",
        metavar="SPEC",
        default=None,
        help="model for decomposition and labelling (default: offline sentence + lexical)",
    )
    g.add_argument(
        "--decomposer",
        choices=DECOMPOSERS,
        default=None,
        help="default: llm with --scorer-model, else sentence",
    )
    g.add_argument(
        "--labeler",
        choices=LABELERS,
        default=None,
        help="default: llm with --scorer-model, else lexical",
    )
    _plain_json_arg(g)


def _plain_json_arg(parser: Any) -> None:
    parser.add_argument(
        "--plain-json",
        action="store_true",
        help="llm labelers: ask for the JSON in the prompt only, as the paper does (no "
        "response_format schema); default: send the schema",
    )


def _handled(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Usage errors (bad option, missing file) become one line and exit status 2 in
    :func:`conflicteval.cli.main`; kept as a marker of the command functions."""
    return func


def _scorer(args: argparse.Namespace) -> Any:
    model = model_from_args(args, args.scorer_model) if args.scorer_model else None
    return make_scorer(model, args.decomposer, args.labeler, args.plain_json)


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
    items = load(args.source, path, **source_options(args.source, args))
    n = write_items(items, args.out)
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
    print(result.table())
    print(result.summary())
    return 1 if result.claim_failures else 0


@_handled
def _detect(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench import adetect, read_items

    items = read_items(args.items)
    if not items:  # metrics of nothing would read as a run that went well
        from conflicteval.errors import DataError

        raise DataError(args.items, None, None, "no items (an empty file): nothing to detect")
    if args.limit is not None:
        items = items[: args.limit]
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
    text = write_detection_files(out, run, paper=args.paper)
    record_input(out, args.items)  # data.json: the items file and its sha256
    print(text)
    from conflicteval.bench.store import measured_lines

    for line in measured_lines(labeler):  # the instrument's measured accuracy, or how to get it
        print(line)
    print(run.pairs_line())  # the item counts and usage: finish's closing lines, not twice
    return finish(run.batch, "items", stream=sys.stdout, run_dir=out)


@_handled
def _report(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench import detection_metrics, outcomes_from_checkpoint, read_items
    from conflicteval.conflictbench.metrics import table2

    ckpt = args.checkpoint or (str(Path(args.out) / "checkpoint.jsonl") if args.out else None)
    if ckpt is None:
        raise UsageError("give --out DIR (from 'detect') or --checkpoint FILE")
    if not Path(ckpt).is_file():
        raise UsageError(f"no checkpoint at {ckpt}")
    items = read_items(args.items) if args.items else None
    metrics = detection_metrics(outcomes_from_checkpoint(ckpt, items))
    if args.json:
        print(json.dumps({k: m.model_dump() for k, m in metrics.items()}, indent=2))
    else:
        print(table2(metrics, paper=args.paper))
    return 0


# ------------------------------------------------------------------ reports / regenerate


@_handled
def _reports(args: argparse.Namespace) -> int:
    from conflicteval.conflictbench import read_items
    from conflicteval.conflictbench.reports import arun_reports, select_report_items

    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    models: dict[str, Any] = {}
    for value in args.model:
        name, sep, spec = value.partition("=")
        spec = spec if sep else name
        models[name] = model_from_args(args, spec)
    items = select_report_items(
        read_items(args.items),
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
    text = write_report_files(out, run, paper=args.paper)
    record_input(out, args.items)  # data.json: the items file and its sha256
    print(text)
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
    if args.limit is not None:
        questions = questions[: args.limit]
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
    text = write_regeneration_files(out, run, paper=args.paper)
    record_input(out, questions_path)  # data.json: the questions and documents with sha256
    record_input(out, args.documents)
    print(text)
    print(run.modes_line())  # the item counts and usage: finish's closing lines, not twice
    return finish(run.batch, "question-format items", stream=sys.stdout, run_dir=out)
