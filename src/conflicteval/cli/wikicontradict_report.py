"""``conflicteval wikicontradict report``: the aggregate tables, the per-item table, and
``--match`` (pairing measured models with a published table's rows), checked by name."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from conflicteval.runs import BatchResult


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def _emit(text: str, out: str | None, what: str = "", *, fit: bool = False) -> None:
    """Write ``text`` to the file ``out`` (saying so, with ``what`` it holds) or to stdout
    (``fit``: its Markdown tables fitted to 100 columns, :func:`~conflicteval.tables.fit_text`)."""
    if out:
        Path(out).write_text(text, encoding="utf-8")
        _err(f"written: {out}{what}")
    else:
        from conflicteval.tables import fit_text

        sys.stdout.write(fit_text(text) if fit else text)


def aliases_from_args(args: argparse.Namespace) -> dict[str, str]:
    from conflicteval.errors import ConflictEvalError

    out = {}
    for item in args.match:
        name, sep, row = item.rpartition("=")
        if not sep or not name or not row:
            raise ConflictEvalError(f"--match expects MODEL=PAPER_ROW, got {item!r}")
        out[name] = row
    if out and not args.compare:
        raise ConflictEvalError("--match pairs models with a published table's rows: add --compare")
    return out


def check_aliases(aliases: dict[str, str], measured: list[str], table: str) -> None:
    """Refuse a ``--match`` naming a model that was not measured or a row the paper lacks.

    Raises:
        UsageError: The unknown name, with the nearest known one.
    """
    from conflicteval.errors import UsageError
    from conflicteval.suggest import unknown
    from conflicteval.wikicontradict.published import published_table

    rows = published_table(table).models
    for name, row in aliases.items():
        if name not in measured:
            raise UsageError(f"--match {name}={row}: " + unknown("measured model", name, measured))
        if row not in rows:
            raise UsageError(f"--match {name}={row}: " + unknown(f"{table} row", row, rows))


def report_command(args: argparse.Namespace) -> BatchResult:
    """Print the report ``args`` ask for; return every generated row as a record (ok when
    graded, else why not) for the command's closing lines."""
    from conflicteval.errors import ConflictEvalError
    from conflicteval.wikicontradict.published import (
        compare_to_published,
        comparison_json,
        comparison_markdown,
    )
    from conflicteval.wikicontradict.report import build_report

    if args.compare and args.format == "csv":
        raise ConflictEvalError("--compare works with --format md or json")
    if args.per_item:
        return _report_items(args)
    aliases = aliases_from_args(args)
    report = build_report(args.run, args.judgements)
    if args.compare and args.compare not in PUBLISHED:
        return _report_against_run(args, report)
    if aliases:
        check_aliases(aliases, report.models, args.compare)
    rows = compare_to_published(report, args.compare, aliases=aliases) if args.compare else []
    if args.format == "csv":
        text = report.to_csv()
    elif args.format == "json":
        text = report.to_json()
        if rows:
            payload = json.loads(text)
            payload["comparison"] = comparison_json(rows)
            text = json.dumps(payload, indent=2, ensure_ascii=False)
    else:
        text = report.to_markdown(layout=args.layout)
        if rows:
            text += "\n" + comparison_markdown(rows)
    _emit(text, args.out, fit=args.format == "md" and not args.wide)
    if args.plot:  # the page's own chart (title, the paper's rows), one drawing code
        from conflicteval.errors import UsageError
        from conflicteval.view import load_run as view_run
        from conflicteval.view.files import write_chart

        charts = view_run(args.run).charts
        if not charts:
            raise UsageError(f"{args.run}: nothing graded to draw (run 'wikicontradict judge')")
        _err(f"written: {write_chart(charts[0], args.plot)}")
    return _report_records(args.run, args.judgements)


PUBLISHED = ("table2", "appendix_b", "table4", "table5")
"""The published tables ``--compare`` takes by name (anything else must be a run directory)."""


def _report_against_run(args: argparse.Namespace, report: Any) -> BatchResult:
    """``report --compare RUN``: the two runs' percentages, differences and intervals."""
    from conflicteval.errors import UsageError
    from conflicteval.wikicontradict.report import build_report
    from conflicteval.wikicontradict.runcompare import compare_runs, run_comparison_markdown

    if not Path(args.compare).is_dir():
        raise UsageError(
            f"--compare {args.compare}: neither a published table ({', '.join(PUBLISHED)}) "
            "nor a run directory"
        )
    rows = compare_runs(report, build_report(args.compare))
    if args.format == "json":
        payload = json.loads(report.to_json())
        payload["run_comparison"] = {"second_run": str(args.compare), "rows": rows}
        text = json.dumps(payload, indent=2, ensure_ascii=False)
    else:
        text = report.to_markdown(layout=args.layout) + "\n" + run_comparison_markdown(rows)
    _emit(text, args.out, fit=args.format == "md" and not args.wide)
    return _report_records(args.run, args.judgements)


def _report_items(args: argparse.Namespace) -> BatchResult:
    """``report --per-item``: the flat per-item table as CSV or JSON lines."""
    from conflicteval.errors import UsageError
    from conflicteval.wikicontradict.item_table import build_item_table

    if args.format == "md":
        raise UsageError("--per-item writes --format csv or --format json (JSON lines)")
    if args.compare or args.plot:
        raise UsageError("--per-item lists items; --compare and --plot are for the aggregate")
    table = build_item_table(args.run, args.judgements)
    text = table.to_csv() if args.format == "csv" else table.to_jsonl()
    _emit(text, args.out, f" ({len(table.rows)} rows)")
    return _report_records(args.run, args.judgements)


def _report_records(run: str, judgements: str | None) -> BatchResult:
    """Every generated row as a record: ok when graded, else why not (for the closing lines)."""
    from conflicteval.runs import BatchResult, Record, read_checkpoint
    from conflicteval.types import Status
    from conflicteval.wikicontradict.generate import read_generations
    from conflicteval.wikicontradict.judge import JUDGEMENTS_FILE, current_grades

    gens = read_generations(run)
    path = Path(judgements) if judgements else Path(run) / JUDGEMENTS_FILE
    graded = current_grades(read_checkpoint(path), gens)  # grades of these very responses
    records = []
    for g in gens:
        if g.status != "ok":
            status: Status = "parse_error" if g.status == "parse_error" else "model_error"
            rec = Record(id=g.id, status=status, error=f"generation failed: {g.error}")
        elif g.id not in graded:
            error = "not graded, or graded for another response (run 'wikicontradict judge')"
            rec = Record(id=g.id, status="model_error", error=error)
        elif graded[g.id].status != "ok":
            j = graded[g.id]
            rec = Record(id=g.id, status=j.status, error=f"judge failed: {j.error}")
        else:
            rec = Record(id=g.id, status="ok")
        records.append(rec)
    return BatchResult(records=records)
