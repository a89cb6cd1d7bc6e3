"""Per-kind builders: each turns a command's existing result object into the run contract
and writes it (``summary.json``, ``items.jsonl``) into the run directory.

:func:`write_batch_run` is the builder every kind goes through (and the one a new kind
calls): items from a batch's records, each with its per-item metric values; counts from the
items; the kind's metrics; models, instruments, money and time. The functions below only
say, for their kind, which values an item has and which metrics the run reports. They read
result objects by their attributes and import no protocol package (the contract sits below
the protocols).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from conflicteval.results.build import (
    build_summary,
    counts_of,
    data_of,
    item_record,
    write_run,
)
from conflicteval.results.contract import (
    Accuracy,
    Instrument,
    ItemRecord,
    Metric,
    ModelUse,
    RunSummary,
)
from conflicteval.types import Usage

__all__ = [
    "column",
    "instrument_of",
    "model_use",
    "protocol_metric",
    "write_batch_run",
]

Values = Mapping[str, float | bool | None]


def model_use(role: str, model: Any, decoding: Mapping[str, Any] | None = None) -> ModelUse:
    """A model of the run: ``model`` is a spec or a Model (its ``name``)."""
    spec = model if isinstance(model, str) else str(getattr(model, "name", model))
    return ModelUse(role=role, spec=spec, decoding=dict(decoding or {}))


def instrument_of(
    role: str, instrument: Any, settings: Mapping[str, Any] | None = None
) -> Instrument:
    """A judge or labeler with its saved bench measurement (the latest, if any), else
    ``"unmeasured"``."""
    name = str(getattr(instrument, "name", instrument))
    accuracy = None
    try:
        from conflicteval.measurements import load_measurements  # a lazy, optional read

        found = load_measurements(instrument)
    except Exception:  # a damaged store never stops a run's summary
        found = []
    if found:
        latest = max(found, key=lambda r: str(r.get("created") or ""))
        accuracy = Accuracy(
            gold=_text(latest.get("gold")),
            gold_sha256=_text(latest.get("gold_sha256")),
            pairs=latest.get("n") if isinstance(latest.get("n"), int) else None,
            macro_f1=latest.get("macro_f1"),
            macro_f1_ci=latest.get("macro_f1_ci"),
            measured_at=_text(latest.get("created")),
        )
    return Instrument(role=role, name=name, settings=dict(settings or {}), accuracy=accuracy)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def column(items: Iterable[ItemRecord], metric_id: str) -> list[float | None]:
    """The values of one metric over the items that have it."""
    return [it.values[metric_id] for it in items if metric_id in it.values]


def protocol_metric(
    metric_id: str,
    name: str,
    value: float | None,
    ci: Sequence[float] | None,
    n: int,
    n_counts: str,
    *,
    unit: str = "share",
    scale: float = 1.0,
    items: str | None = None,
    lower_is_better: bool = False,
    interval: str | None = None,
    published: Mapping[str, float | None] | None = None,
) -> Metric:
    """A metric the protocol computed (its value and interval carried as they are); null
    when ``n`` is 0 or the protocol left it undefined."""
    from conflicteval.results.build import BOOTSTRAP

    if not n:
        value, ci = None, None
    return Metric(
        id=metric_id,
        name=name,
        value=value,
        ci=list(ci) if (ci is not None and value is not None) else None,
        n=n,
        n_counts=n_counts,
        unit=unit,
        scale=scale,
        lower_is_better=lower_is_better,
        interval=(interval or BOOTSTRAP) if (ci is not None and value is not None) else None,
        items=items,  # type: ignore[arg-type]
        published=dict(published or {}),
        note=None if value is not None else "nothing to measure",
    )


def write_batch_run(
    kind: str,
    out: str | os.PathLike[str],
    batch: Any,
    *,
    values_of: Callable[[Any], Values] | None = None,
    id_of: Callable[[Any], str] | None = None,
    unscored: str = "metric undefined",
    metrics: Sequence[Metric] | Callable[[list[ItemRecord]], Sequence[Metric]] = (),
    models: Sequence[ModelUse] = (),
    instruments: Sequence[Instrument] = (),
    usages: Iterable[tuple[str | None, Usage]] | None = None,
    started: float | None = None,
    latencies: Sequence[float] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> RunSummary:
    """Build the contract of a run made of one batch and write it into ``out``.

    Args:
        kind: The run's kind.
        out: The run directory.
        batch: The :class:`~conflicteval.runs.BatchResult` (its records in input order).
        values_of: An ``ok`` record's per-item metric values (by metric id); an ``ok``
            item whose values are all None is *not scored* (reason ``unscored``).
        id_of: An item's id in the contract (default: the record's id), the key
            ``compare`` pairs two runs' items by.
        unscored: The reason counted for an ok item without any value.
        metrics: The run's metrics, or a function of the items that makes them.
        models: The models with their roles and decoding.
        instruments: The judges and labelers.
        usages: ``(role, usage)`` pairs (default: the batch's whole usage, no role).
        started: When the command started (epoch seconds).
        latencies: Seconds of every call answered.
        extra: The kind's own fields kept beside the contract.

    Returns:
        The summary written.
    """
    items: list[ItemRecord] = []
    status_counts: dict[str, int] = {}
    skipped: dict[str, int] = {}
    for rec in batch.records:
        values = dict(values_of(rec)) if (values_of and rec.status == "ok") else {}
        status = rec.status
        if status == "ok" and values and all(v is None for v in values.values()):
            status = "not_scored"
            skipped[unscored] = skipped.get(unscored, 0) + 1
        status_counts[rec.status] = status_counts.get(rec.status, 0) + 1
        item_id = id_of(rec) if id_of else rec.id
        items.append(
            item_record(
                item_id, status, error=rec.error, usage=rec.usage, values=values, calls=rec.calls
            )
        )
    made = metrics(items) if callable(metrics) else metrics
    summary = build_summary(
        kind,
        counts=counts_of(status_counts, skipped),
        metrics=made,
        models=models,
        instruments=instruments,
        usages=usages if usages is not None else [(None, batch.total_usage)],
        data=data_of(out, len(items)),
        started=started,
        latencies=latencies,
        extra=extra,
    )
    write_run(Path(out), summary, items)
    return summary
