"""Reading a benchmark's items (id and stratum) from its data file, and writing the file of
the selected items that the workflow then reads (``DIR/data/<dataset>-<size>.<ext>``).

The selected file keeps the source's own form: JSON lines are copied line by line, byte for
byte; a WikiContradict CSV keeps its header and the selected rows (rewritten by the ``csv``
module); a JSON array keeps the selected records (``json.dumps``, indent 1); parquet keeps
the selected rows (pyarrow). Writing the same selection from the same file gives the same
bytes, so the runs of every model of a profile read one file with one sha256 (and
``compare`` pairs them).
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conflicteval.errors import DataError

from .suite import Benchmark, stratum_of

__all__ = ["SourceItems", "read_items", "write_subset"]

_EXT = {
    "jsonl": ".jsonl",
    "json-array": ".json",
    "wikicontradict-csv": ".csv",
    "parquet": ".parquet",
}


@dataclass
class SourceItems:
    """A data file's items: ``(id, stratum)`` in file order, and what writes a subset."""

    ids: list[tuple[str, str]]
    raw: list[Any]
    """Per item, what the subset writer copies (a line's bytes, a CSV row, a record, a row
    index)."""
    header: Any = None


def read_items(bench: Benchmark, path: Path) -> SourceItems:
    """The items of ``path`` read as ``bench.format``.

    Raises:
        DataError: The file cannot be read in that form (file, row and field named).
    """
    fmt = bench.format
    if fmt == "jsonl":
        return _jsonl(bench, path)
    if fmt == "json-array":
        return _json_array(bench, path)
    if fmt == "wikicontradict-csv":
        return _csv(bench, path)
    if fmt == "parquet":
        return _parquet(bench, path)
    raise DataError(None, None, "format", f"suite: benchmark {bench.id}: unknown format {fmt!r}")


def _jsonl(bench: Benchmark, path: Path) -> SourceItems:
    ids: list[tuple[str, str]] = []
    raw: list[Any] = []
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError as exc:
                raise DataError(path, lineno, None, f"not JSON: {exc}") from None
            if not isinstance(rec, dict):
                raise DataError(path, lineno, None, "not a JSON object")
            ids.append((str(len(raw)), stratum_of(bench.stratum, rec)))
            raw.append(line if line.endswith(b"\n") else line + b"\n")
    return SourceItems(ids, raw)


def _json_array(bench: Benchmark, path: Path) -> SourceItems:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise DataError(path, None, None, f"not JSON: {exc}") from None
    if not isinstance(data, list):
        raise DataError(path, None, None, "not a JSON array")
    ids = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise DataError(path, i + 1, None, "not a JSON object")
        own = rec.get("id")
        ids.append((str(own) if own is not None else str(i), stratum_of(bench.stratum, rec)))
    return SourceItems(ids, list(data))


def _csv(bench: Benchmark, path: Path) -> SourceItems:
    text = path.read_text(encoding="utf-8-sig")
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames or "question_ID" not in reader.fieldnames:
        raise DataError(path, 1, "question_ID", "missing from the header")
    ids, raw = [], []
    for rowno, row in enumerate(reader, start=2):
        qid = (row.get("question_ID") or "").strip()
        if not qid:
            raise DataError(path, rowno, "question_ID", "empty")
        ids.append((qid, stratum_of(bench.stratum, row)))
        raw.append(row)
    return SourceItems(ids, raw, header=list(reader.fieldnames))


def _parquet(bench: Benchmark, path: Path) -> SourceItems:
    """One item per row; ClashEval: one item per question (its rows, one per context
    modification, stay together), its id the question's first row."""
    from conflicteval.errors import require

    pq: Any = require("pyarrow.parquet", "parquet")
    table = pq.read_table(path)
    rows = table.to_pylist()
    if bench.dataset.startswith("clasheval") and "question" in table.column_names:
        groups: dict[Any, list[int]] = {}
        for i, r in enumerate(rows):
            groups.setdefault(r["question"], []).append(i)
        members = list(groups.values())
        ids = [(str(g[0]), stratum_of(bench.stratum, rows[g[0]])) for g in members]
        return SourceItems(ids, members, header=table)
    ids = [(str(i), stratum_of(bench.stratum, r)) for i, r in enumerate(rows)]
    return SourceItems(ids, [[i] for i in range(len(rows))], header=table)


def write_subset(
    bench: Benchmark, items: SourceItems, selected: Sequence[str], out_dir: Path, name: str
) -> Path:
    """Write the ``selected`` ids of ``items`` as ``out_dir/<name><ext>`` (atomically, and
    only when its bytes change); return its path."""
    keep = set(selected)
    pairs = zip(items.ids, items.raw, strict=True)
    chosen = [raw for (item_id, _), raw in pairs if item_id in keep]
    fmt = bench.format
    if fmt == "jsonl":
        data = b"".join(chosen)
    elif fmt == "json-array":
        data = (json.dumps(chosen, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    elif fmt == "wikicontradict-csv":
        buf = io.StringIO(newline="")
        writer = csv.DictWriter(buf, fieldnames=items.header, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(chosen)
        data = buf.getvalue().encode("utf-8")
    else:  # parquet
        import pyarrow.parquet as pq

        sink = io.BytesIO()
        pq.write_table(items.header.take([i for group in chosen for i in group]), sink)
        data = sink.getvalue()
    path = out_dir / f"{name}{_EXT[fmt]}"
    if not (path.exists() and path.read_bytes() == data):
        out_dir.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path
