"""Building a run's contract from the pieces every kind has: counts, metrics, models,
usage, timing and inputs; and writing it (``summary.json`` and ``items.jsonl``) atomically.

A kind's builder (:mod:`conflicteval.results.kinds`) turns its result object into these
pieces and calls :func:`build_summary`; the files are written by :func:`write_run`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_open, atomic_write_text
from conflicteval.results.contract import (
    Cost,
    Counts,
    DataInput,
    Instrument,
    ItemRecord,
    Latency,
    Metric,
    ModelCost,
    ModelUse,
    Progress,
    RunSummary,
    Tokens,
)
from conflicteval.types import CallReply, Usage

__all__ = [
    "BOOTSTRAP",
    "ITEMS_FILE",
    "SUMMARY_FILE",
    "build_summary",
    "cost_of",
    "cost_with",
    "counts_of",
    "data_of",
    "item_record",
    "latency_of",
    "mean_metric",
    "timing_of",
    "write_run",
]

SUMMARY_FILE = "summary.json"
ITEMS_FILE = "items.jsonl"
BOOTSTRAP = "percentile bootstrap over items (1000 resamples, seed 0, 95%)"
"""How every interval :func:`mean_metric` makes is computed (see :mod:`conflicteval.stats`)."""


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def timing_of(source: Any) -> dict[str, Any]:
    """``started`` (epoch seconds) and ``latencies`` (seconds per call answered) recorded on
    ``source`` (the command line's parsed arguments: ``started_at`` and ``call_seconds``);
    nothing recorded gives ``None`` for both."""
    return {
        "started": getattr(source, "started_at", None),
        "latencies": getattr(source, "call_seconds", None),
    }


def latency_of(seconds: Sequence[float] | None) -> Latency | None:
    """Quantiles of the calls' wall times (None when no call was timed)."""
    if seconds is None:
        return None
    import numpy as np

    if not seconds:
        return Latency(calls=0)
    q = np.quantile(np.asarray(seconds, dtype=float), [0.5, 0.9, 0.99])
    return Latency(
        calls=len(seconds),
        p50=round(float(q[0]), 4),
        p90=round(float(q[1]), 4),
        p99=round(float(q[2]), 4),
        max=round(float(max(seconds)), 4),
    )


def counts_of(
    status_counts: Mapping[str, int], not_scored: Mapping[str, int] | None = None
) -> Counts:
    """Counts from items per status (``ok``, ``parse_error``, ``model_error``, ``pending``)
    and, among the ``ok`` ones, those without a metric value (by reason)."""
    skipped = {k: int(v) for k, v in (not_scored or {}).items() if v}
    ok = int(status_counts.get("ok", 0))
    failed = {
        "parse": int(status_counts.get("parse_error", 0)),
        "model": int(status_counts.get("model_error", 0)),
    }
    pending = int(status_counts.get("pending", 0))
    total = ok + sum(failed.values()) + pending
    return Counts(
        total=total,
        scored=ok - sum(skipped.values()),
        failed=failed,
        pending=pending,
        not_scored=skipped,
    )


def mean_metric(
    metric_id: str,
    name: str,
    values: Sequence[float | bool | None],
    n_counts: str,
    *,
    unit: str = "share",
    scale: float = 1.0,
    lower_is_better: bool = False,
    binary: bool = False,
    published: Mapping[str, float | None] | None = None,
    note: str | None = None,
) -> Metric:
    """A metric that is the mean of per-item values (``None`` values left out), times
    ``scale``, with its bootstrap interval; null (never 0) when no item has a value. A share of
    0/1 values (``binary``) over fewer than :data:`~conflicteval.stats.MIN_INTERVAL_UNITS`
    items takes the Wilson score interval instead, as every report does
    (:func:`conflicteval.stats_text.proportion_ci`): it does not collapse at 0 or 1."""
    from conflicteval.stats import MIN_INTERVAL_UNITS, mean_ci
    from conflicteval.stats_text import proportion_ci

    known = [float(v) for v in values if v is not None]
    value, ci = mean_ci(known)
    method = BOOTSTRAP if ci is not None else None
    if binary and known and len(known) < MIN_INTERVAL_UNITS:
        ci = proportion_ci(known, ci)
        method = f"Wilson score interval (95%; under {MIN_INTERVAL_UNITS} items)"
    return Metric(
        id=metric_id,
        name=name,
        value=None if value is None else scale * value,
        ci=None if ci is None else [scale * ci[0], scale * ci[1]],
        n=len(known),
        n_counts=n_counts,
        unit=unit,
        scale=scale,
        lower_is_better=lower_is_better,
        interval=method if ci is not None else None,
        items="binary" if binary else "mean",
        published=dict(published or {}),
        note=note if note is not None else (None if known else "nothing to measure"),
    )


def cost_of(uses: Iterable[tuple[str | None, Usage]]) -> Cost:
    """The money of a run from its usages by role: calls and tokens sent and replayed, per
    model; ``usd`` of the sent calls, null when a model that sent calls has no price."""
    from conflicteval.errors import DataError
    from conflicteval.pricing import ENV_PRICES, PRICES_AS_OF, lookup

    rows: list[ModelCost] = []
    unpriced: list[str] = []
    for role, usage in uses:
        if not usage.calls:
            continue
        models = list(usage.models)
        try:
            missing = [m for m in models if lookup(m) is None]
        except DataError:
            missing = list(models) or ["(unreadable price file)"]
        unpriced += [m for m in missing if m not in unpriced]
        row_sent = Tokens(
            calls=usage.sent_calls,
            prompt_tokens=usage.sent_prompt_tokens,
            completion_tokens=usage.sent_completion_tokens,
        )
        row_replayed = Tokens(
            calls=usage.cached_calls,
            prompt_tokens=usage.cached_prompt_tokens,
            completion_tokens=usage.cached_completion_tokens,
        )
        rows.append(
            ModelCost(
                model=" + ".join(models) or "(replayed from the cache)",
                role=role,
                usd=None if missing else round(usage.cost_usd, 6),
                sent=row_sent,
                replayed=row_replayed,
            )
        )
    return Cost(
        prices_as_of=PRICES_AS_OF,
        price_file=os.environ.get(ENV_PRICES) or None,
        **_totals(rows, unpriced),
    )


def _totals(rows: Sequence[ModelCost], unpriced: Sequence[str]) -> dict[str, Any]:
    """The fields of a :class:`Cost` that follow from its rows: sent and replayed totals,
    the money (null when a model that sent calls has no price) and the rows themselves."""
    sent, replayed = Tokens(), Tokens()
    for row in rows:
        for total, part in ((sent, row.sent), (replayed, row.replayed)):
            total.calls += part.calls
            total.prompt_tokens += part.prompt_tokens
            total.completion_tokens += part.completion_tokens
    usd = None if unpriced else round(sum(r.usd or 0.0 for r in rows), 6)
    return {
        "usd": usd,
        "unpriced": list(unpriced),
        "sent": sent,
        "replayed": replayed,
        "per_model": list(rows),
    }


def cost_with(cost: Cost, rows: Sequence[ModelCost], unpriced: Sequence[str] = ()) -> Cost:
    """``cost`` with the calls of ``rows`` (another stage of the same run, e.g. the answers a
    judge grades) added: per model, sent and replayed totals, and the money (null when any
    model that sent calls has no price)."""
    missing = list(dict.fromkeys([*unpriced, *cost.unpriced]))
    return cost.model_copy(update=_totals([*rows, *cost.per_model], missing))


def data_of(run_dir: str | os.PathLike[str] | None, items: int | None = None) -> list[DataInput]:
    """The inputs recorded in ``<run_dir>/data.json`` (path and sha256 of every file read);
    ``items`` is set on a single input."""
    if run_dir is None:
        return []
    try:
        record = json.loads((Path(run_dir) / "data.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    files = record.get("files") if isinstance(record, dict) else None
    out: list[DataInput] = []
    for entry in files if isinstance(files, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            path = entry["path"]
            out.append(
                DataInput(
                    name=str(entry.get("name") or Path(path).name),
                    path=path,
                    sha256=entry.get("sha256") if isinstance(entry.get("sha256"), str) else None,
                )
            )
    if len(out) == 1 and items is not None:
        out[0].items = items
    return out


def item_record(
    item_id: str,
    status: str,
    *,
    error: str | None = None,
    usage: Usage | None = None,
    values: Mapping[str, float | bool | None] | None = None,
    calls: Sequence[CallReply] = (),
) -> ItemRecord:
    """One flat item record; booleans become 0/1.

    ``calls``: the replies the item's record kept; ``latency_s`` is the seconds its model calls
    took, added up (a reply replayed from the cache took none), None without a kept reply.
    """
    u = usage or Usage()
    return ItemRecord(
        id=str(item_id),
        status=status,  # type: ignore[arg-type]
        error=error,
        latency_s=round(sum(c.latency_s or 0.0 for c in calls), 4) if calls else None,
        cost_usd=round(u.cost_usd, 8) if u.sent_calls else (0.0 if u.calls else None),
        prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens,
        cached_calls=u.cached_calls,
        values={k: (None if v is None else float(v)) for k, v in (values or {}).items()},
    )


def build_summary(
    kind: str,
    *,
    counts: Counts,
    metrics: Sequence[Metric] = (),
    models: Sequence[ModelUse] = (),
    instruments: Sequence[Instrument] = (),
    usages: Iterable[tuple[str | None, Usage]] = (),
    data: Sequence[DataInput] = (),
    started: float | None = None,
    latencies: Sequence[float] | None = None,
    asked: int | None = None,
    extra: Mapping[str, Any] | None = None,
) -> RunSummary:
    """The contract of a run.

    Args:
        kind: One of :data:`~conflicteval.results.contract.KINDS`.
        counts: The run's counts (:func:`counts_of`).
        metrics: Its metrics (:func:`mean_metric` or built by the kind).
        models: Its models with their roles and decoding.
        instruments: Its judges and labelers with their measured accuracy.
        usages: ``(role, usage)`` pairs: the money and tokens (:func:`cost_of`).
        data: Its inputs (:func:`data_of`).
        started: When the command started (epoch seconds), if recorded.
        latencies: Seconds of every call answered, if recorded.
        asked: Items asked for, when more than ``counts.total`` were (a stopped run).
        extra: The kind's own fields kept beside the contract (older readers read them).
    """
    import time

    from conflicteval._version import __version__

    finished = time.time()
    total = max(counts.total, asked or 0)
    done = counts.total - counts.pending
    fields: dict[str, Any] = dict(extra or {})
    fields.update(
        kind=kind,
        status="finished" if done >= total else "partial",
        progress=Progress(done=done, total=total),
        started_at=None if started is None else _iso(started),
        finished_at=_iso(finished),
        elapsed_s=None if started is None else round(finished - started, 3),
        latency=latency_of(latencies),
        models=list(models),
        data=list(data),
        instruments=list(instruments),
        counts=counts,
        metrics=list(metrics),
        cost=cost_of(usages),
        library_version=__version__,
    )
    return RunSummary.model_validate(fields)


def write_run(
    run_dir: str | os.PathLike[str],
    summary: RunSummary,
    items: Iterable[ItemRecord] | None = None,
) -> Path:
    """Write ``summary.json`` (and ``items.jsonl`` when ``items`` are given) into
    ``run_dir``, each atomically; return the summary's path."""
    out = Path(run_dir)
    if items is not None:
        with atomic_open(out / ITEMS_FILE) as fh:
            for item in items:
                fh.write(item.model_dump_json() + "\n")
    path = out / SUMMARY_FILE
    fields = summary.contract_dict()  # the contract first, then the kind's own fields
    for key, value in summary.model_dump(mode="json", by_alias=True).items():
        fields.setdefault(key, value)
    text = json.dumps(fields, indent=2)
    atomic_write_text(path, text + "\n")
    return path
