"""``conflicteval compare RUN_A RUN_B`` and ``conflicteval export RUN --format eee``: commands
that read runs in the result contract (see docs/results.md)."""

from __future__ import annotations

import argparse
import json

from conflicteval.cli.options import add_json, add_out
from conflicteval.cli.terminal import add_wide
from conflicteval.tables import DEFAULT_WIDTH

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``compare`` and ``export`` commands."""
    p = subparsers.add_parser(
        "compare",
        help="compare two runs item by item: paired differences, intervals, p (Holm)",
        description=(
            "Compare run B with run A on the items both scored (aligned by id within the same "
            "data): per metric A, B, B - A with its paired bootstrap interval, p from exact "
            "McNemar (0/1 outcomes) or a paired permutation test (means), p after Holm's "
            "adjustment and a verdict. See docs/results.md."
        ),
    )
    p.add_argument("run_a", metavar="RUN_A", help="the first run directory")
    p.add_argument("run_b", metavar="RUN_B", help="the second run directory")
    p.add_argument(
        "--allow-different-data",
        action="store_true",
        help="compare runs over different input files by item id (with a warning)",
    )
    add_json(p)
    add_wide(p)
    p.set_defaults(func=_compare)

    e = subparsers.add_parser(
        "export",
        help="write a run in another result format (Every Eval Ever)",
        description=(
            "Write a run as an Every Eval Ever record (schema 0.3.0): the aggregate JSON and "
            "its instance-level _samples.jsonl. See docs/results.md."
        ),
    )
    e.add_argument("run", metavar="RUN", help="the run directory")
    e.add_argument("--format", choices=["eee"], default="eee", help="the format (eee)")
    add_out(e, "the folder to write into")
    e.set_defaults(func=_export)


def _compare(args: argparse.Namespace) -> int:
    from conflicteval.results.compare import compare

    result = compare(args.run_a, args.run_b, allow_different_data=args.allow_different_data)
    if args.json:
        print(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        print(result.text(width=None if args.wide else DEFAULT_WIDTH))
    return 0


def _export(args: argparse.Namespace) -> int:
    from conflicteval.results.eee import export_eee

    written = export_eee(args.run, args.out)
    for path in written:
        print(f"wrote {path}")
    return 0
