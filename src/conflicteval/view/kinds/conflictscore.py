"""``conflicteval score --input ... --out DIR`` runs: CS-C / CS-R per response, the grid.

The directory holds ``checkpoint.jsonl`` (one ScoreResult per response), ``scores.jsonl``
``summary.json`` and ``data.json`` (the input file and its sha256). Documents (with titles)
and questions come from that input file, when it is still there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from conflicteval.conflictscore.score_results import score_text
from conflicteval.record_errors import reading_record

from ..common import (
    LABEL_LETTER,
    LazyRecords,
    headline,
    input_file,
    read_json,
    record_item,
    run_provenance,
    stale_ids,
    stream_items,
    tally,
)
from ..model import Chart, ItemStream, RunView
from ..registry import RunKind, has_files
from ..svg import histogram_svg


def grid_of(result: dict[str, Any]) -> dict[str, Any]:
    """The claims x documents grid of a ScoreResult dict: cells ``[S|C|I|None, snippet,
    reasoning, error, raw]``."""
    cells = []
    for row in result.get("labels") or []:
        out_row = []
        for p in row:
            label = LABEL_LETTER.get(str(p.get("label"))) if p.get("label") else None
            raw = p.get("raw") if label is None else None
            out_row.append([label, p.get("snippet"), p.get("reasoning"), p.get("error"), raw])
        cells.append(out_row)
    return {
        "claims": list(result.get("claims") or []),
        "docs": result.get("document_ids") or [],
        "cells": cells,
    }


def grid_signature(grid: dict[str, Any], limit: int = 48) -> str:
    """The grid's labels row by row (``SCC/SSI/IIS``; ``!`` a failed pair), for comparing
    runs cell by cell."""
    text = "/".join("".join(c[0] or "!" for c in row) for row in grid["cells"])
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _RowsOnDisk(Mapping[str, dict[str, Any]]):
    """An input file's rows by id, each read from the file when asked: only each id's byte
    offset is held (the rows, with their documents, are most of a run's size)."""

    def __init__(self, path: Path) -> None:
        from conflicteval.jsonio import parse_json

        self.path = path
        self._offsets: dict[str, int] = {}
        with path.open("rb") as fh:
            pos = 0
            for lineno, raw in enumerate(fh, start=1):
                off, pos = pos, pos + len(raw)
                line = raw.decode("utf-8").removeprefix("\ufeff")
                if line.strip():
                    row = parse_json(line, path, lineno)
                    if isinstance(row, dict):
                        self._offsets[str(row.get("id", lineno))] = off

    def __getitem__(self, key: str) -> dict[str, Any]:
        from conflicteval.jsonio import parse_json

        off = self._offsets[key]
        with self.path.open("rb") as fh:
            fh.seek(off)
            row = parse_json(fh.readline().decode("utf-8").removeprefix("\ufeff"), self.path)
        return row if isinstance(row, dict) else {}

    def __contains__(self, key: object) -> bool:
        return key in self._offsets

    def __iter__(self) -> Iterator[str]:
        return iter(self._offsets)

    def __len__(self) -> int:
        return len(self._offsets)


def _input_rows(run: RunView, path: Path) -> Mapping[str, dict[str, Any]]:
    """The input rows by id (documents with titles, questions), when the input is readable;
    a plain file's rows are read from it one at a time when asked."""
    from conflicteval.jsonio import iter_json_lines

    name = input_file(path)
    if name is None:
        run.notes.append("the input file is not recorded or gone: documents are shown by id only")
        return {}
    try:
        if name.suffix != ".gz":
            return _RowsOnDisk(name)
        rows: dict[str, dict[str, Any]] = {}
        for lineno, row in iter_json_lines(name):
            if isinstance(row, dict):
                rows[str(row.get("id", lineno))] = row
        return rows
    except Exception as exc:  # the report still shows the run, without the input's texts
        run.notes.append(f"input {name} unreadable ({exc}): documents are shown by id only")
        return {}


def _stale_rows(run: RunView, records: Iterable[Any], rows: Mapping[str, Any]) -> set[str]:
    """The ids whose input row was edited since its record (response or documents): their
    rows are left out, so new texts are not shown beside old labels."""
    from conflicteval.conflictscore.score_results import ScoreItem
    from conflicteval.conflictscore.scorer import response_inputs

    def inputs_of(row: dict[str, Any]) -> dict[str, Any]:
        return response_inputs(ScoreItem.coerce(row))

    return stale_ids(
        run,
        records,
        rows,
        inputs_of,
        what="input file",
        shown="their documents are shown by id only",
    )


def _documents(row: dict[str, Any] | None, ids: list[str]) -> list[dict[str, Any]]:
    docs = row.get("documents") if row else None
    if not isinstance(docs, list):
        return [
            {"id": i, "title": None, "text": "(document text not in the run directory)"}
            for i in ids
        ]
    out = []
    for j, d in enumerate(docs):
        if isinstance(d, dict):
            text = d.get("text") or d.get("contents") or d.get("content") or d.get("passage") or ""
            out.append({"id": str(d.get("id", j)), "title": d.get("title"), "text": str(text)})
        else:
            out.append({"id": str(j), "title": None, "text": str(d)})
    return out


def score_item(rec: Any, row: dict[str, Any] | None) -> dict[str, Any]:
    """One response as a viewer item (its grid, scores, documents and failures)."""
    res = rec.result if rec.status == "ok" and isinstance(rec.result, dict) else {}
    agg = res.get("aggregate") or {}
    cs_c, cs_r = res.get("cs_c"), res.get("cs_r")
    n_failed = agg.get("n_failed_pairs")
    item = record_item(
        rec,
        rec.error or res.get("error"),
        response=res.get("response", (row or {}).get("response")),
        documents=_documents(row, list(res.get("document_ids") or [])),
        conflicted=(agg.get("n_conflicted") or 0) > 0 if agg else None,
        facets={
            "conflicted": "undefined" if not agg else "yes" if agg.get("n_conflicted") else "no",
            "failed pairs": "some" if n_failed else "none",
        },
        value="failed"
        if rec.status != "ok"
        else f"CS-C {score_text(cs_c)} \u00b7 CS-R {score_text(cs_r)}",
        numbers={"CS-C": cs_c, "CS-R": cs_r},  # sortable columns
    )
    if res.get("labels"):
        item["grid"] = grid_of(res)
        item["value"] += " \u00b7 " + grid_signature(item["grid"])
    if row:
        item["question"] = row.get("question")
        item["title"] = row.get("title")
    if agg:
        item["fields"] = [
            ["CS-C", cs_c],
            ["CS-R", cs_r],
            ["claims", agg.get("n_claims")],
            ["conflicted claims", agg.get("n_conflicted")],
            ["claims without evidence", agg.get("n_no_evidence")],
            ["failed pairs", n_failed],
            ["model calls", res.get("calls")],
        ]
    return item


def _in_input_order(records: LazyRecords, scores: Path) -> None:
    """Put the records in the order of ``scores.jsonl`` (the input's; the checkpoint holds
    them in the order they finished)."""
    from conflicteval.jsonio import iter_json_lines

    try:
        order = {
            str(row.get("id")): n for n, row in iter_json_lines(scores) if isinstance(row, dict)
        }
    except Exception:  # no usable order: the checkpoint's
        return
    if order:
        records.reorder(lambda rid: order.get(rid, len(order)))


def _read(path: Path) -> RunView:
    # records, input rows and items are read one at a time from the run's files, never all
    # held: the page is written with the memory of a few items however many the run has
    run = RunView("conflictscore", "ConflictScore run", str(path))
    run.provenance = run_provenance(path)
    with reading_record(path / "checkpoint.jsonl"):
        records = LazyRecords(path / "checkpoint.jsonl")
    _in_input_order(records, path / "scores.jsonl")
    summary = read_json(path / "summary.json")
    summary = summary if isinstance(summary, dict) else {}
    for key in ("decomposer", "labeler", "executor"):
        if summary.get(key) and not any(k.startswith(key) for k, _ in run.provenance):
            run.provenance.append((key, str(summary[key])))
    source = input_file(path)
    run.dataset = source.name if source is not None else path.name
    model = next((v for k, v in run.provenance if k.endswith(".model") and "/" in v), "")
    tally(run, records, model or "offline")
    rows = _input_rows(run, path)
    stale = _stale_rows(run, records, rows)

    def item(rec: Any) -> dict[str, Any]:
        return score_item(rec, rows[rec.id] if rec.id in rows and rec.id not in stale else None)

    run.items = ItemStream(
        lambda: stream_items(path / "checkpoint.jsonl", records, item), len(records)
    )
    run.facets = ["conflicted", "failed pairs"]
    cs_c: list[float] = []
    cs_r: list[float] = []
    for rec in records:
        x = rec.result
        if rec.status == "ok" and isinstance(x, dict):
            with reading_record(path / "checkpoint.jsonl", rec.id):
                cs_c += [float(x["cs_c"])] if x.get("cs_c") is not None else []
                cs_r += [float(x["cs_r"])] if x.get("cs_r") is not None else []
    if "mean_cs_c" not in summary and (cs_c or cs_r):
        _means_of_an_unfinished_run(run, summary, cs_c, cs_r)
    run.headlines = [
        headline("mean CS-C", summary, "mean_cs_c", n=len(cs_c)),
        headline("mean CS-R", summary, "mean_cs_r", n=len(cs_r)),
    ]
    who = str(summary.get("labeler") or model or "labeler")
    sub = f"n = {{n}} responses \u00b7 labeler {who} \u00b7 data {run.dataset}"
    per_response = (
        ("CS-C", "conflicted claims / claims", cs_c),
        ("CS-R", "mean |D-| / (|D+| + |D-|)", cs_r),
    )
    run.charts = [
        Chart(
            f"{name} distribution",
            histogram_svg(
                f"{name} per response ({formula})",
                sub.format(n=len(values)),
                [(who, values)],
                x_label=f"{name} (lower is better)",
            ),
        )
        for name, formula, values in per_response
    ]
    undefined = summary.get("cs_c_undefined"), summary.get("cs_r_undefined")
    if any(undefined):
        run.notes.append(
            f"CS-C undefined for {undefined[0] or 0} scored responses, CS-R for "
            f"{undefined[1] or 0} (no scored claim / no claim with evidence): left out of the means"
        )
    return run


def _means_of_an_unfinished_run(
    run: RunView, summary: dict[str, Any], cs_c: list[float], cs_r: list[float]
) -> None:
    """No ``summary.json`` (the run stopped before its end): the means of the records the
    checkpoint holds, with the same bootstrap intervals ``score`` gives, and a note saying so."""
    from conflicteval.stats import mean_ci

    for key, values in (("mean_cs_c", cs_c), ("mean_cs_r", cs_r)):
        if values:
            summary[key], summary[key + "_ci"] = mean_ci(values)
    run.notes.append(
        "no summary.json (the run did not finish): the means are of the records in its "
        "checkpoint; run the same command again to finish it"
    )


KIND = RunKind(
    "conflictscore",
    "ConflictScore run (conflicteval score)",
    has_files("checkpoint.jsonl", "scores.jsonl"),
    _read,
    priority=10,
)
