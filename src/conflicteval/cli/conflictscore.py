"""Command-line sub-commands of ConflictScore: ``demo`` and ``score``.

``conflicteval demo [--model SPEC] [--base-url URL]``
    The bundled offline demo (see :mod:`conflicteval.conflictscore.demo`).

``conflicteval score --response FILE|- --documents DOCS.jsonl [...]``
    Score one response. DOCS.jsonl has one document per line: a JSON string,
    or an object with ``text`` (and optional ``id``, ``title``); a JSON array
    file works too.

``conflicteval score --input ITEMS.jsonl --out DIR [--dry-run]``
    Score many responses, one per line ``{"id", "response", "documents"}``.
    Writes ``DIR/checkpoint.jsonl`` (resume by running the same command
    again), ``DIR/scores.jsonl`` (one row per response) and
    ``DIR/summary.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from conflicteval.cli.batch import batch_command
from conflicteval.cli.common import finish, model_from_args, run_options
from conflicteval.cli.data import record_input
from conflicteval.cli.options import (
    add_batch_options,
    add_decomposer,
    add_json,
    add_labeler,
    add_model_options,
    add_nli_model,
    add_out,
    add_plain_json,
    add_run_options,
)
from conflicteval.conflictscore.factory import DECOMPOSER_KINDS, LABELER_KINDS
from conflicteval.conflictscore.score_inputs import lazy_items, read_documents
from conflicteval.errors import UsageError
from conflicteval.readers import read_text

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``demo`` and ``score`` sub-commands."""
    demo = subparsers.add_parser(
        "demo",
        help="ConflictScore on a few bundled responses (offline, seconds, no key)",
        description=(
            "Score three bundled responses (one takes a side although its documents conflict, "
            "one hedges, one is about documents that agree) and print a per-claim table with "
            "CS-C and CS-R. Offline by default; --model uses the paper's LLM prompts."
        ),
    )
    add_model_options(demo, what="model for the paper's LLM decomposer and labeler")
    demo.set_defaults(func=_demo)

    score = subparsers.add_parser(
        "score",
        help="ConflictScore (CS-C, CS-R) of a response against its documents",
        description=(
            "Score one response (--response/--documents) or a batch (--input/--out). Without "
            "--model the offline sentence decomposer and lexical labeler are used."
        ),
    )
    one = score.add_argument_group("one response")
    one.add_argument("--response", metavar="FILE|-", help="the response text ('-': stdin)")
    one.add_argument("--documents", metavar="FILE.jsonl", help="its documents, one per line")
    add_json(one, "the full result")
    batch = score.add_argument_group("batch")
    batch.add_argument(
        "--input",
        metavar="FILE.jsonl",
        help='one row per response: {"id", "response", "documents"}',
    )
    add_out(batch, "output directory (checkpoint, scores, summary)", required=False)
    add_model_options(
        score,
        what="model for the LLM decomposer and labeler",
        concurrency_help="responses in flight at once (batch)",
    )
    add_run_options(score)
    add_decomposer(score, DECOMPOSER_KINDS, None, "llm with --model, else sentence")
    add_labeler(score, LABELER_KINDS, None, "llm with --model, else lexical")
    add_nli_model(score)
    add_plain_json(score)
    add_batch_options(score)
    score.set_defaults(func=batch_command(_score))


def _demo(args: argparse.Namespace) -> int:
    from conflicteval.conflictscore.demo import run_demo
    from conflicteval.models.ledger import track_calls

    model = model_from_args(args) if args.model else None
    with track_calls() as ledger:
        status = run_demo(model=model)
    for name, calls in sorted(ledger.models.items()):  # never silent: they cost minutes
        if calls.retries or calls.timeouts:
            print(f"{name}: {calls.retries} retried attempt(s), {calls.timeouts} timed out")
    return status


def _scorer(args: argparse.Namespace) -> Any:
    from conflicteval.cli.common import scorer_from_args

    return scorer_from_args(args, nli_model=args.nli_model)


def _score(args: argparse.Namespace) -> int:
    if args.input:
        if args.response or args.documents:
            raise UsageError("use either --input/--out (batch) or --response/--documents")
        if not args.out and not getattr(args, "dry_run", False):
            raise UsageError("--input needs --out DIR")
        return _score_batch(args)
    if not (args.response and args.documents):
        raise UsageError(
            "give --response FILE|- and --documents FILE.jsonl, or --input FILE.jsonl --out DIR"
        )
    return _score_one(args)


def _score_one(args: argparse.Namespace) -> int:
    from conflicteval.conflictscore.scorer import format_result

    response = sys.stdin.read() if args.response == "-" else read_text(args.response)
    documents = read_documents(args.documents)
    scorer = _scorer(args)
    result = scorer.score(response, documents)
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        from conflicteval.tables import fit_text

        print(fit_text(format_result(result)))  # within 100 columns
        u = result.usage
        print(
            f"{result.calls} model calls ({u.cached_calls} from cache{u.truncated_note()}), "
            f"{u.tokens_text()}; {result.n_failed_pairs} failed pairs"
        )
        _print_measured(scorer.labeler)
    # 0: every pair labelled; 1: some pairs (or the decomposition) failed
    return 0 if result.error is None and result.n_failed_pairs == 0 else 1


def _refuse_other_kind(out: Path) -> None:
    """A run directory belongs to one command: ``score`` writes only into a new or empty
    directory or one of its own (a ConflictScore run, or a bare checkpoint waiting for batch
    results).

    Raises:
        UsageError: ``out`` holds the run of another command (its kind is named).
    """
    from conflicteval.errors import ConflictEvalError
    from conflicteval.view.registry import detect_kind

    if not out.is_dir():
        return
    try:
        kind = detect_kind(out)
    except ConflictEvalError:  # empty, or no run of a known kind
        return
    if kind.name not in ("conflictscore", "run"):
        raise UsageError(
            f"{out}: holds a {kind.title} ({kind.name}), not a ConflictScore run; "
            "a run directory belongs to one command: give 'score' another --out"
        )


def _score_batch(args: argparse.Namespace) -> int:
    items = lazy_items(args.input)  # read twice (check and count, then run): never held
    scorer = _scorer(args)
    from conflicteval.models.answerers import writes_outputs

    out = Path(args.out or ".")
    _refuse_other_kind(out)
    if writes_outputs():  # a dry run (--dry-run) writes nothing
        out.mkdir(parents=True, exist_ok=True)
    result = scorer.score_many(
        items,
        checkpoint=out / "checkpoint.jsonl",
        concurrency=args.concurrency,
        keep_records=False,  # records stay in the checkpoint: memory flat in the items
        **run_options(args),
    )
    if not writes_outputs():  # a dry run: nothing written, its counts are the report
        return 0
    from conflicteval.conflictscore.score_files import write_score_files

    summary, n_cs_c, n_cs_r = write_score_files(out, result, scorer)
    record_input(out, args.input)  # data.json: the input and its sha256 (the report reads it)
    from conflicteval.results.build import timing_of
    from conflicteval.results.kinds_conflict import write_conflictscore

    write_conflictscore(out, result, scorer, summary, **timing_of(args))  # the run contract

    from conflicteval.formatting import UNDEFINED, format_ci, number

    cs_c, cs_r = (
        number(summary["mean_cs_c"], missing=UNDEFINED),
        number(summary["mean_cs_r"], missing=UNDEFINED),
    )
    print(
        f"mean CS-C {cs_c} {format_ci(summary['mean_cs_c_ci'])} over "
        f"{n_cs_c} responses; mean CS-R {cs_r} "
        f"{format_ci(summary['mean_cs_r_ci'])} over {n_cs_r}; "
        f"{summary['failed_pairs']} failed pairs (95% bootstrap intervals over responses)"
    )
    _print_measured(scorer.labeler)
    written = [out / "scores.jsonl", out / "summary.json"]
    if (out / "checkpoint.jsonl").exists():  # not yet when every item waits for batch results
        written.append(out / "checkpoint.jsonl")
    print(f"wrote {', '.join(map(str, written[:-1]))} and {written[-1]}")
    return finish(result, "responses", stream=sys.stdout, run_dir=out)


def _print_measured(labeler: Any) -> None:
    """The labeler's measured macro-F1 (or how to measure it), beside CS-C and CS-R."""
    from conflicteval.measurements import measured_lines

    for line in measured_lines(labeler):
        print(line)
