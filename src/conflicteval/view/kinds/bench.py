"""``conflicteval bench labeler`` runs: a labeler measured on gold claim–document relations.

The directory holds ``bench.json`` (the figures with their intervals, the confusion matrix,
the gold set, the labeler and its identity, calls, tokens and cost) and ``records.jsonl`` (one
line per gold item: its gold relation per document, the labeler's label per document, and why
pairs failed), and ``checkpoint.jsonl`` (the records those rows were made from, whose kept
model replies each item shows).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..common import (
    failure_reasons,
    flatten,
    headline,
    read_json,
    replies_by_id,
    stream_items,
)
from ..model import Chart, ItemStream, RunView
from ..registry import RunKind, has_files
from ..svg import confusion_svg, hbar_svg

_SHORT = {"SUPPORTS": "S", "CONTRADICTS": "C", "IRRELEVANT": "I"}


def _records(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of ``records.jsonl``, read one at a time."""
    from conflicteval.jsonio import iter_json_lines

    return (row for _, row in iter_json_lines(path / "records.jsonl") if isinstance(row, dict))


def _outcome(row: dict[str, Any]) -> str:
    labels, gold = row.get("labels") or [], row.get("gold") or []
    if row.get("status") != "ok" or any(lab is None for lab in labels):
        return "failed"
    return "all right" if list(labels) == list(gold) else "some wrong"


def _item(row: dict[str, Any]) -> dict[str, Any]:
    gold = [str(g) for g in row.get("gold") or []]
    labels = list(row.get("labels") or [])
    pairs = [
        [f"document {j}", f"gold {g} · labeler {lab if lab is not None else 'failed'}"]
        for j, (g, lab) in enumerate(zip(gold, labels + [None] * len(gold), strict=False))
    ]
    outcome = _outcome(row)
    return {
        "id": str(row.get("id")),
        "status": row.get("status", "?"),
        "error": "; ".join(row.get("errors") or []) or None,
        "raw": None,
        "question": None,
        "gold": None,
        "response": None,
        "documents": [],
        "facets": {"outcome": outcome, "source": row.get("source") or "—"},
        "value": "".join(_SHORT.get(str(lab), "!") for lab in labels) or outcome,
        "fields": [*pairs, ["calls", str(row.get("calls", 0))]],
    }


def _per_class_chart(per_class: Any, sub: str) -> Chart | None:
    """Per-class precision, recall and F1 with their intervals (None when not recorded)."""
    bars: list[tuple[str, float | None]] = []
    whiskers: list[tuple[float, float] | None] = []
    for label, figures in per_class.items() if isinstance(per_class, dict) else ():
        if not isinstance(figures, dict):
            continue
        support = figures.get("support")
        for figure in ("precision", "recall", "f1"):
            line = headline(figure, figures, figure)
            bars.append((f"{label} {figure} (n={support})", line.value))
            whiskers.append(
                (line.low, line.high) if line.low is not None and line.high is not None else None
            )
    if not bars:
        return None
    return Chart(
        "per-class precision, recall and F1",
        hbar_svg(
            "Per-class precision, recall and F1 (n: gold pairs of the class)",
            sub,
            bars,
            x_label="score",
            y_label="class",
            intervals=whiskers,
        ),
    )


def _usage(data: dict[str, Any]) -> dict[str, Any]:
    """The run's calls, tokens and money as the bench recorded them."""
    return {
        "calls": data.get("calls", 0),
        "cached_calls": data.get("cached_calls", 0),
        "prompt_tokens": data.get("prompt_tokens", 0),
        "completion_tokens": data.get("completion_tokens", 0),
        "cost": "no model calls"
        if not data.get("calls")
        else f"est. ${data['cost_usd']:.6f}"
        if isinstance(data.get("cost_usd"), int | float)
        else "no price known",
    }


def _numbers(run: RunView, data: dict[str, Any], who: str, gold: str) -> None:
    """The bench's headline numbers and its charts (confusion matrix, per-class scores)."""
    n = data.get("n")
    # n names the unit the bootstrap resampled: gold items (a claim with its documents)
    units = (
        (data.get("bootstrap") or {}).get("units")
        if isinstance(data.get("bootstrap"), dict)
        else None
    )
    pairs = f"{n} gold pairs" if n is not None else ""
    run.headlines = [
        headline(label, data, key, n=units if isinstance(units, int) else n, note=pairs)
        for label, key in (
            ("accuracy", "accuracy"),
            ("macro-F1", "macro_f1"),
            ("accuracy of the answered pairs", "answered_accuracy"),
        )
    ]
    if isinstance(units, int):
        for h in run.headlines:
            h.unit = "gold items"
    confusion = data.get("confusion") or {}
    classes = list(confusion)
    if classes:
        cols = [*classes, "failed"]
        matrix = [[int((confusion.get(g) or {}).get(p, 0)) for p in cols] for g in classes]
        sub = f"n = {n} pairs · labeler {who} · gold {gold}"
        run.charts.append(
            Chart(
                "labeler confusion",
                confusion_svg("Labeler vs gold relations", sub, classes, matrix, columns=cols),
            )
        )
    chart = _per_class_chart(data.get("per_class"), f"n = {n} pairs · labeler {who} · gold {gold}")
    if chart is not None:
        run.charts.append(chart)


def _read(path: Path) -> RunView:
    data = read_json(path / "bench.json") or {}
    labeler = str(data.get("labeler") or "?")
    model = data.get("model")
    gold = str(data.get("gold") or "?")
    who = f"{labeler} ({model})" if model else labeler
    run = RunView("bench", f"labeler bench: {who} on {gold}", str(path))
    run.dataset = gold
    run.provenance = [
        ("gold set", gold),
        ("gold file", str(data.get("gold_path") or "")),
        ("labeler", labeler),
        ("model", str(model or "none (offline)")),
    ] + [(f"identity.{k}", v) for k, v in flatten(data.get("labeler_identity") or {})]
    # each row of records.jsonl is joined by id to the checkpoint's record it was made from,
    # for the labeler's kept replies: only each id's offset in the checkpoint is held, the
    # rows and records are read one at a time as the items are made
    replies = replies_by_id(run, path / "checkpoint.jsonl", "gold items")

    def items() -> Iterator[dict[str, Any]]:
        def make(row: dict[str, Any]) -> dict[str, Any]:
            item = _item(row)
            item.update(replies(item["id"]))
            return item

        return stream_items(path / "records.jsonl", _records(path), make)

    run.facets = ["outcome", "source"]
    counts = {k: int(v) for k, v in (data.get("counts") or {}).items() if isinstance(v, int)}
    n_rows = 0
    failed: list[tuple[str, str]] = []  # one pass over the rows: the failed ones' reasons
    for r in _records(path):
        n_rows += 1
        if _outcome(r) == "failed":
            failed.append((str(r.get("id")), "; ".join(r.get("errors") or [])))
    run.items = ItemStream(items, n_rows)
    counts.setdefault("total", n_rows)
    run.counts = counts
    run.failures = failure_reasons(failed)
    run.usage = _usage(data)
    _numbers(run, data, who, gold)
    run.notes.append(
        "each item lists its documents' gold relation beside the labeler's; the claims and "
        "document texts are in the gold file"
    )
    return run


KIND = RunKind(
    "bench",
    "labeler bench (bench labeler)",
    has_files("bench.json", "records.jsonl"),
    _read,
    priority=20,
)
