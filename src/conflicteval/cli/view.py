"""``conflicteval view RUN [RUN ...] [-o report.html]``: write a run's HTML report.

``conflicteval view --demo`` scores the bundled demo responses offline (as
``conflicteval demo`` does) into a temporary run and writes its report.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from conflicteval.cli.options import add_out
from conflicteval.errors import UsageError

__all__ = ["register"]

DEMO_REPORT = "conflicteval-demo.html"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``view`` command."""
    p = subparsers.add_parser(
        "view",
        help="write one self-contained HTML report of one or more run directories",
        description=(
            "Write one self-contained HTML report (no server, no network) of run directories "
            "written by score, wikicontradict generate/judge, conflictbench detect, reports, "
            "regenerate or feverous verify: summary, charts, every item, and with several runs "
            "a side-by-side comparison. See docs/viewer.md."
        ),
    )
    p.add_argument("runs", nargs="*", metavar="RUN", help="run directories")
    add_out(
        p,
        f"where to write (default: report.html in the first run directory; "
        f"with --demo: {DEMO_REPORT})",
        required=False,
        metavar="FILE.html",
        short=True,
    )
    p.add_argument("--title", default=None, help="the page title")
    p.add_argument(
        "--kind",
        default=None,
        metavar="KIND",
        help="read the runs as this kind (default: detected; kinds: docs/viewer.md)",
    )
    p.add_argument(
        "--demo",
        action="store_true",
        help="score the bundled demo responses offline and write their report",
    )
    p.add_argument(
        "--max-items",
        type=int,
        default=None,
        metavar="N",
        help="list at most N items per run (the summary still counts every item; the page "
        "says what was left out)",
    )
    p.add_argument(
        "--failed-only",
        action="store_true",
        help="list only the failed items (the summary still counts every item)",
    )
    p.add_argument(
        "--charts",
        default=None,
        metavar="DIR",
        help="also write every chart as an .svg file into DIR (the page's own drawing)",
    )
    p.add_argument(
        "--png",
        action="store_true",
        help="with --charts: also a PNG of each chart (needs the operating system's Chromium)",
    )
    p.add_argument("--open", action="store_true", help="open the report in the web browser")
    p.set_defaults(func=_view)


def _view(args: argparse.Namespace) -> int:
    from conflicteval.view import LARGE_PAGE, load_run, select_items, write_report

    if args.png and not args.charts:
        raise UsageError("--png goes with --charts DIR")
    if args.max_items is not None and args.max_items < 1:
        raise UsageError(f"--max-items must be at least 1 (got {args.max_items})")

    if args.demo:
        if args.runs:
            raise UsageError("--demo takes no run directories")
        with tempfile.TemporaryDirectory(prefix="conflicteval-demo-") as tmp:
            from conflicteval.view.demo import write_demo_run

            run = load_run(write_demo_run(Path(tmp) / "demo"))
            run.path = "bundled demo (conflicteval demo)"
            run.provenance = [(k, v) for k, v in run.provenance if k != "data"]
            run.provenance.append(("data", "the bundled demo responses (conflicteval/demo)"))
            path = write_report([run], args.out or DEMO_REPORT, title=args.title)
    else:
        if not args.runs:
            raise UsageError("give one or more run directories (or --demo)")
        views = [load_run(r, args.kind) for r in args.runs]
        for v in views:
            select_items(v, max_items=args.max_items, failed_only=args.failed_only)
        path = write_report(views, args.out, title=args.title)
        if args.charts:
            from conflicteval.view.files import write_charts

            files = write_charts(views, args.charts, png=args.png)
            print(f"wrote {len(files)} chart files into {args.charts}")
    size = path.stat().st_size
    print(f"wrote {path} ({size / 1024:,.0f} KiB); open it in any web browser")
    if size > LARGE_PAGE:
        print(
            f"warning: the page is {size / 2**20:,.0f} MiB, more than browsers handle well "
            f"({LARGE_PAGE // 2**20} MiB); list fewer items with --max-items N or --failed-only",
            file=sys.stderr,
        )
    if args.open:
        import webbrowser

        webbrowser.open(path.resolve().as_uri())
    return 0
