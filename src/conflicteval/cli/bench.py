"""``conflicteval bench labeler`` and ``conflicteval bench compare``."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from conflicteval.bench.names import GOLD_SETS
from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    model_from_args,
    note_limit,
    run_options,
)
from conflicteval.cli.options import (
    add_batch_options,
    add_json,
    add_labeler,
    add_limit,
    add_model_options,
    add_nli_model,
    add_out,
    add_plain_json,
    add_run_options,
    add_seed,
)
from conflicteval.cli.terminal import add_wide, for_terminal
from conflicteval.conflictscore.factory import LABELER_KINDS, needs_model
from conflicteval.errors import UsageError

__all__ = ["add_actions", "register"]


register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``bench labeler`` and ``bench compare`` to the ``bench`` command's actions."""
    lab = sub.add_parser(
        "labeler",
        help="run a labeler over a gold set: per-class P/R/F1, macro-F1, accuracy, intervals",
        description=(
            "Label every gold claim-document pair and report per-class precision, recall "
            "and F1, macro-F1, accuracy and the confusion matrix, each with a percentile "
            "bootstrap 95% interval; failed pairs count as wrong (an answered-only accuracy "
            "is shown beside). Writes DIR/bench.json, DIR/records.jsonl and a resumable "
            "DIR/checkpoint.jsonl, and saves the result where 'score' and 'conflictbench "
            "detect' find it. Exit code 0 when every pair got a label, 1 when some failed, "
            "2 for bad input, 3 when --batch-export left calls waiting."
        ),
    )
    lab.add_argument("--gold", required=True, choices=GOLD_SETS, help="the gold set")
    lab.add_argument(
        "--data",
        metavar="PATH",
        default=None,
        help="a local gold file (default: the registry's release; feverous-s needs one)",
    )
    lab.add_argument(
        "--db", metavar="FILE", default=None, help="feverous_wikiv1.db for --gold feverous"
    )
    add_labeler(
        lab,
        LABELER_KINDS,
        None,
        "llm with --model, else lexical",
        old_specs=True,
        model_list=True,
    )
    add_nli_model(lab)
    add_plain_json(lab)
    add_out(lab, "output directory")
    add_limit(lab, "source records")
    add_json(lab, "one object")
    add_wide(lab)
    lab.add_argument(
        "--resamples", type=int, default=1000, metavar="N", help="bootstrap resamples (1000)"
    )
    add_seed(lab, "the bootstrap")
    lab.add_argument(
        "--no-save",
        action="store_true",
        help="do not save the result in the user cache for 'score' / 'detect' to show",
    )
    add_model_options(
        lab,
        what="model of an llm labeler (repeat it to measure several models, each in DIR/<model>)",
        repeat=True,
        concurrency=16,
        concurrency_help="gold items in flight",
    )
    add_run_options(lab)
    add_batch_options(lab)
    lab.set_defaults(func=batch_command(_labeler))

    cmp = sub.add_parser(
        "compare",
        help="put saved bench results side by side (bench.json files or their directories)",
    )
    cmp.add_argument("paths", nargs="+", metavar="DIR|FILE", help="bench output directories")
    add_json(cmp)
    add_wide(cmp)
    cmp.set_defaults(func=_compare)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "model"


def _labeler(args: argparse.Namespace) -> int:
    from conflicteval.bench.gold import load_gold
    from conflicteval.conflictscore.factory import make_labeler

    models = list(args.model or [])
    kind = args.labeler or ("llm" if models else "lexical")
    if needs_model(kind) and not models:
        raise UsageError(f"--labeler {kind} needs --model SPEC")
    if models and not needs_model(kind):
        raise UsageError(f"--labeler {kind} calls no model; leave out --model")
    if args.resamples < 1:
        raise UsageError("--resamples must be at least 1")
    gold = load_gold(args.gold, args.data, db=args.db, limit=args.limit)
    # each source record read became an item or was left out (counted by reason)
    note_limit(args.limit, len(gold.items) + sum(gold.left_out.values()), "source records")
    if not gold.items:
        raise UsageError(f"the {args.gold} gold set read from {gold.path} has no items")
    structured = not args.plain_json
    runs: list[tuple[Any, Path]] = []
    if not models:
        runs.append((make_labeler(kind, nli_model=args.nli_model), Path(args.out)))
    for m in models:
        labeler = make_labeler(kind, model_from_args(args, m), structured=structured)
        out = Path(args.out) if len(models) == 1 else Path(args.out) / _slug(m)
        runs.append((labeler, out))
    status = EXIT_OK
    results = []
    for labeler, out in runs:
        result, rc = _run_one(args, gold, labeler, out)
        results.append(result)
        status = max(status, rc)
    if len(results) > 1 and not args.json:
        from conflicteval.bench.compare import results_table

        print()
        print(for_terminal(results_table([r.to_dict() for r in results]), args))
    return status


def _run_one(args: argparse.Namespace, gold: Any, labeler: Any, out: Path) -> tuple[Any, int]:
    from conflicteval._atomic import write_json
    from conflicteval.bench.run import run_labeler_bench
    from conflicteval.measurements import save_measurement
    from conflicteval.models.answerers import writes_outputs
    from conflicteval.runs import write_json_lines

    if writes_outputs():  # a dry run (--dry-run) writes nothing
        out.mkdir(parents=True, exist_ok=True)
    result = run_labeler_bench(
        gold,
        labeler,
        checkpoint=out / "checkpoint.jsonl",
        concurrency=args.concurrency,
        n_resamples=args.resamples,
        seed=args.seed,
        **run_options(args),
    )
    if not writes_outputs():  # a dry run: nothing written or saved, its counts are the report
        return result, EXIT_OK
    data = result.to_dict()
    write_json_lines(out / "records.jsonl", result.records)
    write_json(out / "bench.json", data)
    from conflicteval.results.build import timing_of
    from conflicteval.results.kinds_answers import write_bench

    write_bench(out, result, labeler, **timing_of(args))  # the run contract
    saved = None
    if not args.no_save and not result.pending:  # a final batch round (all answered) counts
        saved = save_measurement(data)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(result.summary())
        print(f"wrote {out / 'bench.json'} and {out / 'records.jsonl'}")
        if saved is not None:
            print(f"saved for 'score' / 'conflictbench detect' to show: {saved}")
        print(f"open the report: conflicteval view {shlex.quote(str(out))}")
    if result.batch is not None:
        print(result.batch.report("gold items"), file=sys.stderr)
    ok = result.metrics.failed == 0 and not result.pending
    return result, EXIT_OK if ok else EXIT_FAILED


def _compare(args: argparse.Namespace) -> int:
    from conflicteval.bench.compare import (
        difference_lines,
        paired_differences,
        read_records,
        read_result,
        results_table,
        same_gold_file,
    )

    rows = [read_result(p) for p in args.paths]
    dirs = [Path(p) if Path(p).is_dir() else Path(p).parent for p in args.paths]
    diffs: list[dict[str, Any]] = []
    unpaired: list[str] = []
    first_records = read_records(dirs[0])
    for k in range(1, len(rows)):
        why = same_gold_file(rows[0], rows[k])
        if why is not None:  # items are paired only within one gold file
            unpaired.append(f"{args.paths[k]} not paired with {args.paths[0]}: {why}")
            continue
        if first_records is None:
            continue
        records = read_records(dirs[k])
        diff = paired_differences(first_records, records) if records is not None else None
        if diff is not None:
            diffs.append({"first": str(args.paths[0]), "second": str(args.paths[k]), **diff})
    if args.json:
        out = {"results": rows, "paired_differences": diffs, "not_paired": unpaired}
        print(json.dumps(out, indent=2))
        return 0
    print(for_terminal(results_table(rows), args))
    for line in unpaired:
        print(line)
    for d in diffs:
        print()
        print("\n".join(difference_lines(d["first"], d["second"], d)))
    return 0
