"""``conflicteval data list|fetch``: the dataset registry from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conflicteval._atomic import write_json
from conflicteval.cli.commands import area_register
from conflicteval.cli.common import finish, progress_from_args
from conflicteval.cli.options import add_checksum_mismatch, add_json, add_quiet

DATA_RECORD = "data.json"
"""The provenance record a run directory keeps: which dataset files (path, sha256, revision)."""


register = area_register(__name__)


def add_actions(sub: argparse._SubParsersAction) -> None:
    """Add ``data list`` and ``data fetch`` to the ``data`` command's actions."""
    ls = sub.add_parser("list", help="sources, licence, size, home, pinned revision, cached?")
    add_json(ls)
    ls.set_defaults(func=_list)
    fe = sub.add_parser("fetch", help="download and verify datasets into the local cache")
    fe.add_argument("names", nargs="+", metavar="NAME", help="registry names ('data list')")
    fe.add_argument("--force", action="store_true", help="download again even when cached")
    add_checksum_mismatch(fe)
    add_quiet(fe)
    fe.set_defaults(func=_fetch)


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    value = float(n)
    for unit in ("B", "KB", "MB"):
        if value < 1000:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def _list(args: argparse.Namespace) -> int:
    from conflicteval.data import list_datasets

    rows = list_datasets()
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    from conflicteval.tables import fit_text

    lines = []
    for row in rows:
        rev = (row["revision"] or "-")[:12]
        pin = "sha256 pinned" if row["sha256"] else "sha256 recorded at first use"
        if row["kind"] == "manual":
            pin = "manual download"
        cached = f"cached: {row['cached']}" if row["cached"] else "not cached"
        lines.append(f"{row['name']}  —  {row['title']}")
        lines.append(f"    from: {row['where']}  (revision {rev}; {pin})")
        lines.append(f"    licence: {row['licence']};  size: {_size(row['size'])};  {cached}")
        if row["note"]:
            lines.append(f"    note: {row['note']}")
    print(fit_text("\n".join(lines)))  # 100 columns: a long line wraps, indented
    return 0


def _fetch(args: argparse.Namespace) -> int:
    from conflicteval.data import fetch, get_entry
    from conflicteval.errors import ConflictEvalError

    for name in args.names:
        get_entry(name)  # unknown names fail before anything is downloaded
    failed = 0
    for name in args.names:
        try:
            source = fetch(
                name,
                force=args.force,
                allow_mismatch=args.allow_checksum_mismatch,
                progress=progress_from_args(args),
            )
        except ConflictEvalError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        print(source.describe())
    return 2 if failed else 0


def add_data_option(
    parser: argparse.ArgumentParser,
    name: str,
    *,
    flag: str = "--data",
    what: str = "data file",
) -> None:
    """Add an optional ``--data PATH`` (default: the registry's ``name``) and its mismatch flag."""
    parser.add_argument(
        flag,
        default=None,
        metavar="PATH",
        help=f"{what} (default: the pinned '{name}' release, fetched once and verified)",
    )
    if not any("--allow-checksum-mismatch" in a.option_strings for a in parser._actions):
        add_checksum_mismatch(parser)


def resolve_data_arg(args: argparse.Namespace, name: str, *, dest: str = "data") -> Any:
    """The :class:`~conflicteval.data.DataSource` for ``args.<dest>`` (fetching ``name`` if
    unset); its provenance line is printed on stderr."""
    from conflicteval.data import resolve
    from conflicteval.data.fetch import DatasetUnavailable

    try:
        source = resolve(
            getattr(args, dest, None),
            name,
            allow_mismatch=getattr(args, "allow_checksum_mismatch", False),
            progress=progress_from_args(args),
        )
    except DatasetUnavailable as exc:  # name this command's option, not a generic --data
        raise exc.naming(f"--{dest.replace('_', '-')} PATH") from exc
    print(source.describe(), file=sys.stderr)
    return source


def record_data_source(run_dir: str | Path, source: Any, *, replace: bool = False) -> Path:
    """Write a run's provenance record to ``<run_dir>/data.json`` (atomically); return its path.

    A run that reads several files (or the same command run again with other data) keeps one
    entry per file path, so the record says exactly which bytes every result came from.
    ``replace``: the record names ``source`` alone (a run directory that belongs to one file).
    """
    path = Path(run_dir) / DATA_RECORD
    try:
        existing = json.loads(path.read_text(encoding="utf-8"))
        files = existing.get("files", []) if isinstance(existing, dict) else []
    except (OSError, ValueError):
        files = []
    if replace:
        files = []
    # a record edited out of shape is rewritten, as an unreadable one is
    files = [f for f in files if isinstance(f, dict)] if isinstance(files, list) else []
    entry = source.to_dict()
    files = [f for f in files if f.get("path") != entry["path"]] + [entry]
    write_json(path, {"files": files})
    return path


def record_input(run_dir: str | Path, path: str | Path) -> Path:
    """Record a user's input file (its absolute path and sha256) in ``<run_dir>/data.json``."""
    from conflicteval.data.fetch import DataSource, sha256_file

    return record_data_source(run_dir, DataSource(Path(path).resolve(), sha256_file(path)))


def close_run(
    args: argparse.Namespace,
    result: Any,
    answers_file: str,
    contract: Callable[[dict[str, Any]], None],
    *,
    source: Any = None,
) -> int:
    """The end of a question protocol's ``run`` command (ClashEval, ConflictQA, RAMDocs and
    FaithEval): one rule, in this order.

    A dry run (nothing written) returns 0: its counts are the report. Otherwise ``source`` is
    recorded in the run's ``data.json`` (None: the command recorded it itself), the answers
    file in ``args.out`` is named on standard error, ``contract(timing)`` writes the run's
    summary (``timing`` from :func:`~conflicteval.results.build.timing_of`; the callback
    decides whether there is a report to build yet) and
    :func:`~conflicteval.cli.common.finish` prints the closing lines.

    Returns:
        The command's exit status.
    """
    from conflicteval.models.answerers import writes_outputs
    from conflicteval.results.build import timing_of

    if not writes_outputs():  # a dry run: nothing written, its counts are the report
        return 0
    if source is not None:
        record_data_source(args.out, source)
    print(f"written: {Path(args.out) / answers_file}", file=sys.stderr)
    contract(timing_of(args))
    return finish(result, "questions", run_dir=args.out)
