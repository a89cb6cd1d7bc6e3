"""The options of the ConflictBench commands (``conflictbench convert|build|detect|report``,
``reports``, ``regenerate``): one function per command, built from the shared option groups
of :mod:`conflicteval.cli.options`."""

from __future__ import annotations

import argparse
from typing import Any

from conflicteval.cli.data import add_data_option
from conflicteval.cli.options import (
    add_batch_options,
    add_checksum_mismatch,
    add_decomposer,
    add_items,
    add_json,
    add_labeler,
    add_limit,
    add_model_options,
    add_out,
    add_paper,
    add_plain_json,
    add_role_model,
    add_run_input,
    add_run_options,
    add_seed,
    not_negative_int,
    positive_int,
)
from conflicteval.cli.terminal import add_wide
from conflicteval.conflictbench.instruments import DECOMPOSERS, LABELERS

__all__ = [
    "add_build",
    "add_convert",
    "add_detect",
    "add_regenerate",
    "add_report",
    "add_reports",
]


def add_convert(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    add_out(conv, "JSONL file to write", metavar="FILE")
    conv.add_argument(
        "--rows",
        action="store_true",
        help="ConflictingQA: write the DataFrame rows with their columns (pickle -> JSONL)",
    )
    _source_args(conv)
    return conv


def add_build(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    add_out(build, "JSONL file to write", metavar="FILE")
    add_seed(build, "the split and draws")
    add_wide(build)
    build.add_argument(
        "--sizes",
        choices=("all", "paper"),
        default="all",
        help="all usable records (ConflictingQA by its own stances, the other sources in the "
        "paper's proportions) or the paper's Table 1 sizes",
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


def add_detect(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """conflictbench detect: items, labeler, model and run options."""
    det = sub.add_parser("detect", help="conflict detection (§4.1) and Table 2")
    add_items(det, "ConflictBench JSONL (from 'build')")
    add_out(det, "output directory: checkpoint, metrics, table")
    add_labeler(det, LABELERS, None, "llm with --model, else lexical")
    add_limit(det, "items")
    add_paper(det)
    add_wide(det)
    add_plain_json(det)
    add_model_options(det, what="labeler model")
    add_run_options(det)
    add_batch_options(det)
    return det


def add_report(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """conflictbench report: Table 2 from a checkpoint."""
    rep = sub.add_parser("report", help="Table 2 from a detection checkpoint")
    add_run_input(rep, "the output directory of 'detect'", default=None, old=("--out",))
    rep.add_argument("--checkpoint", default=None, help="or: the checkpoint file")
    add_items(rep, "the items (needed to count failed items)", required=False)
    add_paper(rep)
    add_json(rep, "the metrics")
    add_wide(rep)
    return rep


def add_reports(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    add_items(reports, "ConflictBench JSONL")
    reports.add_argument(
        "--settings",
        default="rag,balanced,super_balanced",
        help="comma-separated settings (default: all three: rag,balanced,super_balanced)",
    )
    reports.add_argument(
        "--n", type=not_negative_int, default=100, help="items to sample (100; 0: all)"
    )
    add_seed(reports, "the sampling")
    reports.add_argument(
        "--source",
        default="conflictingqa",
        help="source to sample from (default conflictingqa, as in the paper; 'any' for all)",
    )
    reports.add_argument(
        "--max-tokens", type=positive_int, default=800, help="report length limit (default 800)"
    )
    _scored_run_args(
        reports,
        "entity",
        "model naming the main entity (default: the item's main_entity, else an offline heuristic)",
        what="report model, e.g. gpt41=openai/gpt-4.1",
        repeat=True,
        metavar="[NAME=]SPEC",
        concurrency_help="reports in flight at once",
    )
    return reports


def add_regenerate(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
        "--mode",
        choices=("free", "choice", "both"),
        default="both",
        help="free-form answers, binary choice, or both (default)",
    )
    add_seed(regen, "the option order")
    regen.add_argument(
        "--max-docs", type=positive_int, default=10, help="documents per question (10)"
    )
    add_limit(regen, "questions")
    regen.add_argument(
        "--main-claim",
        choices=("first-conflicted", "first"),
        default="first-conflicted",
        help=(
            "free-form claim fed back for regeneration: the first claim that has conflicts "
            "(default) or the first claim only (regenerate only when it is conflicted)"
        ),
    )
    _scored_run_args(
        regen,
        "judge",
        "judge model (default: --model)",
        what="answering model",
        concurrency_help="questions in flight",
    )
    return regen


def _source_args(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("source options")
    g.add_argument("--allow-pickle", action="store_true", help="ConflictingQA: read a pickle")
    add_checksum_mismatch(g)
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


def _scored_run_args(
    parser: argparse.ArgumentParser, role: str, role_help: str, **model_options: Any
) -> None:
    """The options ``reports`` and ``regenerate`` end with: the output directory and
    ``--paper``, the required ``--model`` (``model_options``: :func:`add_model_options`'s) with
    the ``--<role>-model`` beside it, the run options, ConflictScore's and the batch options."""
    add_out(parser, "output directory (checkpoint, results)")
    add_paper(parser)
    add_wide(parser)
    models = add_model_options(parser, required=True, **model_options)
    add_role_model(models, role, role_help)
    add_run_options(parser)
    _scorer_args(parser)
    add_batch_options(parser)


def _scorer_args(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("ConflictScore")
    add_role_model(
        g,
        "scorer",
        "model for decomposition and labelling (default: offline sentence + lexical)",
    )
    add_decomposer(g, DECOMPOSERS, None, "llm with --scorer-model, else sentence")
    add_labeler(g, LABELERS, None, "llm with --scorer-model, else lexical")
    add_plain_json(g)
