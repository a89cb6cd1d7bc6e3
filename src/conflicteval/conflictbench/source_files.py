"""Which files a ConflictBench source is read from, and that source's loader options.

``NAME=PATH`` pairs as the build command takes them; a source given without a path
is fetched from the dataset registry (or the error says where to download it). Each
file's ``data: ...`` provenance line is printed on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from conflicteval.errors import UsageError

REGISTRY_NAMES = {"ambigdocs": "ambigdocs", "contraqa": "contraqa-corpus"}
"""The dataset registry's name for a source that can be fetched (the rest are manual)."""


def parse_sources(values: list[str]) -> list[tuple[str, str | None]]:
    """``NAME=PATH`` or ``NAME`` values as (name, path or None)."""
    out: list[tuple[str, str | None]] = []
    for value in values:
        name, sep, path = value.partition("=")
        if not name or (sep and not path):
            raise UsageError(f"--source expects NAME=PATH or NAME, got {value!r}")
        out.append((name.strip(), path.strip() if sep else None))
    return out


def source_options(source: str, args: Any) -> dict[str, Any]:
    """The loader options of ``source`` from the parsed source options (``args``)."""
    name = source.lower()
    if name == "conflictingqa":
        return {"allow_pickle": args.allow_pickle}
    if name.startswith("macnoise"):
        opts: dict[str, Any] = {"level": args.level, "keep_original": args.keep_original}
        if args.variant and name == "macnoise":
            opts["variant"] = args.variant
        return opts
    if name == "contraqa":
        return {k: getattr(args, k) for k in ("queries", "qrels") if getattr(args, k)}
    if name == "ambigdocs":
        return {"claimed_index": args.claimed_index}
    return {}


def source_path(name: str, path: str | None, *, allow_mismatch: bool, convert: bool) -> str | None:
    """The file to load for a source, printing its ``data: ...`` provenance line on stderr.

    Without a path the registry's file is fetched (or, for a manual source, the error says
    where to download it). ContraQA's corpus and queries are two files: its loader fetches both.
    ``convert`` names the convert command's way to pass a file in that error.
    """
    from conflicteval.data import fetch, resolve
    from conflicteval.data.fetch import DatasetUnavailable

    base = name.lower().split("-")[0]
    if path is not None:
        if Path(path).is_file():
            print(resolve(path, base).describe(), file=sys.stderr)
        return path
    try:
        source = fetch(REGISTRY_NAMES.get(base, base), allow_mismatch=allow_mismatch)
    except DatasetUnavailable as exc:  # name this command's way to pass a file
        way = "PATH (the argument after the source)" if convert else f"--source {base}=PATH"
        raise exc.naming(way) from exc
    print(source.describe(), file=sys.stderr)
    return None if base == "contraqa" else str(source.path)
