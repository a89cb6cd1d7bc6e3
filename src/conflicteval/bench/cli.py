"""``conflicteval bench labeler`` and ``conflicteval bench compare``."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from conflicteval.cli_common import (
    EXIT_FAILED,
    EXIT_OK,
    add_batch_options,
    add_model_options,
    add_run_options,
    model_from_args,
    run_options,
)
from conflicteval.errors import UsageError
from conflicteval.executors.batch_cli import batch_command

from .names import GOLD_SETS

__all__ = ["labeler_from_spec", "register"]

LABELER_SPECS = "lexical, nli:DIR, llm, llm-per-document, llm-per-claim, or a model spec"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench labeler`` and ``bench compare``."""
    parser = subparsers.add_parser(
        "bench",
        help="measure the instruments: a labeler's accuracy on gold claim-document relations",
        description="Measure labelers on gold relations (see docs/bench.md).",
    )
    sub = parser.add_subparsers(dest="bench_command", metavar="ACTION", required=True)
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
    lab.add_argument(
        "--labeler", required=True, metavar="SPEC", help=f"the labeler: {LABELER_SPECS}"
    )
    lab.add_argument("--nli-model", metavar="DIR", default=None, help="NLI model directory")
    lab.add_argument(
        "--plain-json",
        action="store_true",
        help="llm labelers: ask for JSON in the prompt only (no response_format schema)",
    )
    lab.add_argument("--out", required=True, metavar="DIR", help="output directory")
    lab.add_argument("--limit", type=int, default=None, help="only the first N source records")
    lab.add_argument("--json", action="store_true", help="print one JSON object")
    lab.add_argument(
        "--resamples", type=int, default=1000, metavar="N", help="bootstrap resamples (1000)"
    )
    lab.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
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
    cmp.add_argument("--json", action="store_true", help="print JSON")
    cmp.set_defaults(func=_compare)


def labeler_from_spec(
    spec: str, model: Any = None, *, nli_model: str | None = None, plain_json: bool = False
) -> Any:
    """A labeler from its command-line spec.

    ``lexical``; ``nli:DIR`` (or ``nli`` with ``nli_model``); ``llm``,
    ``llm-per-document``, ``llm-per-claim`` (with ``model``); anything else is a
    model spec for the Table 7 ``llm`` labeler (as ``feverous verify --labeler`` reads it).
    """
    from conflicteval.conflictscore.factory import LABELER_KINDS, make_labeler

    structured = not plain_json
    if spec.startswith("nli:"):
        return make_labeler("nli", nli_model=spec[4:])
    if spec in LABELER_KINDS:
        return make_labeler(spec, model, nli_model=nli_model, structured=structured)
    if model is not None:
        raise UsageError(f"--labeler {spec}: unknown labeler (known: {LABELER_SPECS})")
    from conflicteval.models import get_model

    return make_labeler("llm", get_model(spec), structured=structured)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "model"


def _labeler(args: argparse.Namespace) -> int:
    from .gold import load_gold

    models = list(args.model or [])
    spec = args.labeler
    if spec.startswith("llm") and not models:
        raise UsageError(f"--labeler {spec} needs --model SPEC")
    if models and not spec.startswith("llm"):
        raise UsageError(f"--labeler {spec} calls no model; leave out --model")
    if args.resamples < 1:
        raise UsageError("--resamples must be at least 1")
    gold = load_gold(args.gold, args.data, db=args.db, limit=args.limit)
    if not gold.items:
        raise UsageError(f"the {args.gold} gold set read from {gold.path} has no items")
    runs: list[tuple[Any, Path]] = []
    if not models:
        runs.append((_offline_or_spec(args, spec), Path(args.out)))
    else:
        for m in models:
            labeler = labeler_from_spec(
                spec, model_from_args(args, m), nli_model=args.nli_model, plain_json=args.plain_json
            )
            out = Path(args.out) if len(models) == 1 else Path(args.out) / _slug(m)
            runs.append((labeler, out))
    status = EXIT_OK
    results = []
    for labeler, out in runs:
        result, rc = _run_one(args, gold, labeler, out)
        results.append(result)
        status = max(status, rc)
    if len(results) > 1 and not args.json:
        print()
        print(_table([r.to_dict() for r in results]))
    return status


def _offline_or_spec(args: argparse.Namespace, spec: str) -> Any:
    from conflicteval.conflictscore.factory import LABELER_KINDS

    if spec == "lexical" or spec.startswith("nli"):
        return labeler_from_spec(spec, nli_model=args.nli_model)
    if spec in LABELER_KINDS:
        raise UsageError(f"--labeler {spec} needs --model SPEC")
    # a model spec: the Table 7 labeler of that model, with the shared model options
    return labeler_from_spec("llm", model_from_args(args, spec), plain_json=args.plain_json)


def _run_one(args: argparse.Namespace, gold: Any, labeler: Any, out: Path) -> tuple[Any, int]:
    from conflicteval._atomic import atomic_write_text
    from conflicteval.models.answerers import writes_outputs
    from conflicteval.runner import write_json_lines

    from .run import run_labeler_bench
    from .store import save_measurement

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
    atomic_write_text(out / "bench.json", json.dumps(data, indent=2) + "\n")
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


def _read_result(path: str) -> dict[str, Any]:
    from conflicteval.errors import DataError
    from conflicteval.jsonio import load_json

    p = Path(path)
    if p.is_dir():
        p = p / "bench.json"
    if not p.is_file():
        raise UsageError(f"{path}: no bench.json (give a 'bench labeler' output directory)")
    data = load_json(p)
    if not isinstance(data, dict) or "macro_f1" not in data or "gold" not in data:
        raise DataError(p, None, "macro_f1", "not a bench result (bench.json)")
    return data


def _fmt(value: Any, ci: Any) -> str:
    if value is None:
        return "–"
    return f"{value:.4f} [{ci[0]:.4f}, {ci[1]:.4f}]" if ci else f"{value:.4f}"


def _table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| labeler | model | gold | pairs | failed | accuracy [95% CI] | macro-F1 [95% CI] | cost |"
    )
    lines = [head, "|---|---|---|---:|---:|---|---|---:|"]
    for r in rows:
        cost = "–" if r.get("cost_usd") is None else f"${r['cost_usd']:.4f}"
        lines.append(
            f"| {r.get('labeler')} | {r.get('model') or '–'} | {r.get('gold')} | {r.get('n')} "
            f"| {r.get('failed')} | {_fmt(r.get('accuracy'), r.get('accuracy_ci'))} "
            f"| {_fmt(r.get('macro_f1'), r.get('macro_f1_ci'))} | {cost} |"
        )
    return "\n".join(lines)


def _compare(args: argparse.Namespace) -> int:
    from .compare import difference_lines, paired_differences, read_records

    rows = [_read_result(p) for p in args.paths]
    dirs = [Path(p) if Path(p).is_dir() else Path(p).parent for p in args.paths]
    diffs: list[dict[str, Any]] = []
    first_records = read_records(dirs[0])
    for k in range(1, len(rows)):
        if rows[k]["gold"] != rows[0]["gold"] or first_records is None:
            continue
        records = read_records(dirs[k])
        diff = paired_differences(first_records, records) if records is not None else None
        if diff is not None:
            diffs.append({"first": str(args.paths[0]), "second": str(args.paths[k]), **diff})
    if args.json:
        print(json.dumps({"results": rows, "paired_differences": diffs}, indent=2))
        return 0
    print(_table(rows))
    for d in diffs:
        print()
        print("\n".join(difference_lines(d["first"], d["second"], d)))
    return 0
