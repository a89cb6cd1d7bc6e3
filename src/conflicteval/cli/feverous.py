"""``conflicteval feverous``: score prediction files and verify claims with a labeler."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from conflicteval._atomic import write_json
from conflicteval.cli.batch import batch_command
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import finish, model_from_args, note_limit, run_options
from conflicteval.cli.data import add_data_option, resolve_data_arg
from conflicteval.cli.options import (
    add_batch_options,
    add_json,
    add_labeler,
    add_limit,
    add_model_options,
    add_out,
    add_paper,
    add_run_options,
    positive_int,
)
from conflicteval.errors import UsageError

SCORE_NAMES = ("strict", "label_accuracy", "precision", "recall", "f1")

VERIFY_LABELERS = ("lexical", "llm")


register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``feverous score`` and ``feverous verify`` to the ``feverous`` command's actions."""
    sc = sub.add_parser(
        "score",
        help="FEVEROUS score, label accuracy and evidence P/R/F1 of a prediction file",
        description=(
            "Score predictions (JSON lines with predicted_label and predicted_evidence) "
            "exactly as the official FEVEROUS scorer does."
        ),
    )
    sc.add_argument("--pred", required=True, help="prediction file (JSON lines)")
    sc.add_argument(
        "--gold",
        default=None,
        help="gold claim file (e.g. feverous_dev_challenges.jsonl); omit when the "
        "predictions carry label and evidence",
    )
    sc.add_argument(
        "--max-sentences", type=positive_int, default=5, help="sentence budget (default 5)"
    )
    sc.add_argument("--max-cells", type=positive_int, default=25, help="cell budget (default 25)")
    sc.add_argument("--per-claim", default=None, help="also write per-claim scores (JSON lines)")
    add_paper(sc)
    add_json(sc)
    sc.set_defaults(func=_score)

    ve = sub.add_parser(
        "verify",
        help="label claims against their evidence with a ConflictScore labeler",
        description=(
            "Label each claim against its gold evidence with a labeler and report label "
            "accuracy and macro-F1. --claims is a FEVEROUS JSON-lines file (needs --db) or a "
            "FEVEROUS-S JSON array (evidence text included). Exit code 0 when every claim got "
            "a verdict, 1 when some are undecided or failed, 2 for bad input, 3 when "
            "--batch-export left calls waiting for batch results."
        ),
    )
    add_data_option(
        ve, "feverous-dev", flag="--claims", what="claim file (.jsonl release or FEVEROUS-S .json)"
    )
    ve.add_argument("--db", default=None, help="feverous_wikiv1.db (for .jsonl claim files)")
    add_labeler(ve, VERIFY_LABELERS, None, "llm with --model, else lexical", old_specs=True)
    ve.add_argument(
        "--mode",
        choices=("concat", "per_element"),
        default="concat",
        help="one document with all evidence (default) or one per element",
    )
    ve.add_argument(
        "--evidence",
        choices=("gold_union", "gold_first"),
        default="gold_union",
        help="which gold evidence to show (default: every set, merged)",
    )
    add_limit(ve, "claims")
    ve.add_argument("--keep-links", action="store_true", help="keep [[Target|anchor]] markup")
    add_out(ve, "directory for checkpoint, records and metrics", required=False)
    add_json(ve)
    add_model_options(
        ve,
        what="model of the llm labeler (the paper's Table 7 prompt), e.g. openai/gpt-4o-mini",
        concurrency=16,
        concurrency_help="claims in flight",
    )
    add_run_options(ve)
    add_batch_options(ve)
    ve.set_defaults(func=batch_command(_verify))


def _score(args: argparse.Namespace) -> int:
    from conflicteval.feverous.scorefiles import score_files

    result = score_files(
        args.pred, args.gold, max_sentences=args.max_sentences, max_cells=args.max_cells
    )
    if args.per_claim:
        from conflicteval.runs import write_json_lines

        write_json_lines(args.per_claim, result.per_claim)
    if args.json:
        summary = result.summary()
        if args.paper:
            from conflicteval.feverous.published import DEV_BASELINE, PAPER_TABLE3

            summary["published"] = {"dev_baseline": DEV_BASELINE, "paper_table3": PAPER_TABLE3}
        print(json.dumps(summary, indent=2))
    else:
        from conflicteval.stats import format_ci

        print(f"claims: {result.n}")
        for name in SCORE_NAMES:
            text = f"{name}: {getattr(result, name):.4f}"
            interval = getattr(result, f"{name}_ci")
            print(text if interval is None else f"{text} {format_ci(interval)}")
        if args.paper:
            print(_published_lines())
    return 0


def _published_lines() -> str:
    """The published baseline figures, for ``feverous score --paper``."""
    from conflicteval.feverous.published import DEV_BASELINE, PAPER_TABLE3

    official = ", ".join(f"{name} {DEV_BASELINE[name]:.4f}" for name in SCORE_NAMES)
    table3 = "; ".join(
        f"{split} score {row['feverous_score']:.2f}, evidence recall {row['evidence_recall']:.2f}"
        for split, row in PAPER_TABLE3.items()
    )
    return (
        f"published full baseline, dev set, official evaluate.py ({DEV_BASELINE['claims']:,} "
        f"claims): {official}\npublished full baseline, paper Table 3: {table3}"
    )


def _verify(args: argparse.Namespace) -> int:
    from conflicteval.errors import DataError
    from conflicteval.feverous.verify import verify_sync

    path, items = _load_items(args)
    if items is None:  # not a FEVEROUS-S array: JSON lines, or nothing
        if not any(line.strip() for line in _first_lines(path)):
            raise DataError(path, None, None, "no claims (an empty file): nothing to verify")
        raise UsageError(
            f"{path} is not a FEVEROUS-S JSON array; a FEVEROUS JSON-lines claim file needs "
            "--db to resolve its evidence"
        )
    if not items:  # label accuracy of nothing would read as a run that went well
        raise DataError(path, None, None, "no claims (an empty file): nothing to verify")
    labeler = _make_labeler(args)
    from conflicteval.models.answerers import writes_outputs

    out = Path(args.out) if args.out else None
    result = verify_sync(
        items,
        labeler,
        mode=args.mode,
        checkpoint=out / "checkpoint.jsonl" if out else None,
        concurrency=args.concurrency,
        **run_options(args),
    )
    if not writes_outputs():  # a dry run: nothing written, its counts are the report
        return 0
    if out is not None:
        from conflicteval.runs import write_json_lines

        write_json_lines(out / "records.jsonl", result.records)
        write_json(out / "metrics.json", result.model_dump(exclude={"records"}))
        from conflicteval.results.build import timing_of
        from conflicteval.results.kinds_answers import write_feverous

        write_feverous(out, result, labeler, **timing_of(args))  # the run contract
    summary = result.summary()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print_summary(summary)
    # 0: every claim got a verdict; 1: some are undecided or failed (kept and counted).
    status = finish(result.batch, "claims", run_dir=out) if result.batch is not None else 0
    return 0 if result.counts["ok"] == result.counts["total"] else max(status, 1)


def _print_summary(summary: dict[str, Any]) -> None:
    """One ``key: value`` line per headline number, a figure followed by its 95% interval."""
    from conflicteval.stats import format_ci

    for key, value in summary.items():
        if key.endswith("_ci"):
            continue
        if value is None:  # a share of no claim: undefined, never 0
            value = "undefined (no claim with a gold label to score)"
        elif isinstance(value, float):
            value = f"{value:.4f} {format_ci(summary.get(key + '_ci'))}"
        print(f"{key}: {value}")


def _first_lines(path: Path, n: int = 5) -> list[str]:
    """The first lines of a claim file as the readers see them (BOM dropped, .gz opened)."""
    import itertools

    from conflicteval.readers import iter_lines

    return [line for _, line in itertools.islice(iter_lines(path), n)]


def _load_items(args: argparse.Namespace) -> tuple[Path, list[Any] | None]:
    """The claim file and its verification items; None when a .jsonl file comes without --db."""
    from conflicteval.feverous.items import verification_items

    path = resolve_data_arg(args, "feverous-dev", dest="claims").path
    items = verification_items(
        path,
        db=args.db,
        evidence=args.evidence,
        strip_links=not args.keep_links,
        limit=args.limit,
    )
    if items is not None:  # one item per claim read
        note_limit(args.limit, len(items), "claims")
    return Path(path), items


def _make_labeler(args: argparse.Namespace) -> Any:
    """``lexical`` → ``LexicalLabeler()``; ``llm`` → ``LLMLabeler(model)`` of ``--model``."""
    from conflicteval.conflictscore.factory import make_labeler

    kind = args.labeler or ("llm" if args.model else "lexical")
    if kind == "lexical":
        return make_labeler("lexical")
    if not args.model:
        raise UsageError("--labeler llm needs --model SPEC")
    return make_labeler("llm", model_from_args(args))
