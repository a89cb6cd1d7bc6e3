"""``conflicteval feverous verify --out DIR`` runs: claim verdicts against gold labels.

The directory holds ``checkpoint.jsonl`` (per claim: the pair labels), ``records.jsonl``
(gold and predicted label per claim) and ``metrics.json`` (accuracy, macro-F1, the
confusion matrix, counts and usage). Each claim's row is shown with the model replies its
checkpoint record kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conflicteval.jsonio import iter_json_lines

from ..common import (
    LABEL_LETTER,
    headline,
    models_in,
    open_run,
    read_json,
    replies_by_id,
    stream_items,
    tally,
)
from ..model import Chart, ItemStream, RunView
from ..registry import RunKind, has_files
from ..svg import confusion_svg

CLASSES = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")


def _item(row: dict[str, Any]) -> dict[str, Any]:
    status = str(row.get("status", "ok"))
    pred = row.get("predicted_label")
    gold = row.get("label")
    errors = [e for e in row.get("errors") or [] if e]
    pairs = row.get("pair_labels") or []
    return {
        "id": str(row.get("id")),
        "status": status,
        "error": "; ".join(errors) if status != "ok" else None,
        "facets": {
            "gold": gold,
            "predicted": pred or "undecided",
            "outcome": "undecided" if pred is None else "right" if pred == gold else "wrong",
        },
        "value": pred or "undecided",
        "fields": [
            ["gold label", gold],
            ["predicted label", pred],
            ["relation", row.get("relation")],
            ["pair labels", " ".join(LABEL_LETTER.get(str(p), "!") for p in pairs)],
            ["failed pairs", row.get("failed_pairs")],
            ["model calls", row.get("calls")],
        ]
        + [["pair error", e] for e in errors],
    }


def _read(path: Path) -> RunView:
    run, records = open_run("feverous", "FEVEROUS verification run", path)
    metrics_file = read_json(path / "metrics.json") or {}
    metrics = metrics_file.get("metrics") or {}
    run.dataset = "FEVEROUS"
    records_file = path / "records.jsonl"
    # each row of records.jsonl is joined by id to the checkpoint's record it was made from,
    # for the model's kept replies: only each id's offset in the checkpoint is held, the
    # rows and records are read one at a time as the items are made
    replies = replies_by_id(run, records, "claims")

    def rows() -> Iterator[dict[str, Any]]:
        def make(pair: tuple[int, Any]) -> dict[str, Any]:
            item = _item(pair[1])
            item.update(replies(item["id"]))
            return item

        return stream_items(records_file, iter_json_lines(records_file), make)

    run.items = ItemStream(rows, sum(1 for _ in iter_json_lines(records_file)))
    run.facets = ["gold", "predicted", "outcome"]
    models = models_in(run.provenance)
    tally(run, records, models[0] if models else "offline")
    undecided = (metrics_file.get("counts") or {}).get("undecided")
    if undecided is not None:
        run.counts["undecided"] = undecided
    n = metrics.get("n")
    run.headlines = [
        headline("label accuracy", metrics, "label_accuracy", n=n),
        headline("macro-F1", metrics, "macro_f1", n=n),
    ]
    confusion = metrics.get("confusion") or {}
    cols = [*CLASSES, "FAILED"]
    matrix = [[int((confusion.get(g) or {}).get(p, 0)) for p in cols] for g in CLASSES]
    labeler = next((v for k, v in run.provenance if k == "labeler.labeler"), "labeler")
    mode = metrics_file.get("mode", "?")
    sub = f"n = {n} claims \u00b7 labeler {labeler} \u00b7 mode {mode} \u00b7 {run.dataset}"
    run.charts.append(
        Chart(
            "FEVEROUS confusion",
            confusion_svg(
                "FEVEROUS verdicts: gold vs predicted",
                sub,
                ["SUPPORTS", "REFUTES", "NEI"],
                matrix,
                columns=["SUPPORTS", "REFUTES", "NEI", "no verdict"],
            ),
        )
    )
    run.notes.append("claim texts and evidence are in the claims file, not in the run directory")
    return run


KIND = RunKind(
    "feverous",
    "FEVEROUS verification run (feverous verify)",
    has_files("records.jsonl", "metrics.json"),
    _read,
    priority=20,
)
