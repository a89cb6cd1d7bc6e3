"""The profile card: ``DIR/summary.json`` in the result contract (kind ``profile``), built
only from the contracts of the profile's runs, and the paired comparison of its models.

Nothing here computes a value, an interval, an n or a sum of money from items: a cell's
metric is its run's metric (its id prefixed with the benchmark: ``ramdocs.madam.exact_match``),
the card's money is the sum of the money of every command's contract over every run of the
profile (a contract holds its own command's calls: a judge step's replaces its generation's,
and a resumed command's holds only what it sent then, so the profile keeps each), and the
comparison of two models is :func:`conflicteval.results.compare.compare` of their two runs of a
benchmark, with Holm's
adjustment then made across every metric of every benchmark.

A profile's "items" in its counts are its cells (one per benchmark and model): ``scored``
cells have a metric with a value, ``failed.model`` cells' commands stopped with an error,
``pending`` cells wait for batch results, and ``not_scored`` holds the cells not run (by
reason) and those whose run gave no value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conflicteval.errors import ConflictEvalError
from conflicteval.results.contract import (
    Cost,
    Counts,
    DataInput,
    Instrument,
    Metric,
    ModelCost,
    ModelUse,
    Progress,
    RunSummary,
    Tokens,
)

from .runner import PROFILE_FILE

__all__ = ["build_card", "compare_models", "read_profile", "same_items", "write_card"]

COMPARE_FILE = "compare.json"


def read_profile(out: str | Path) -> dict[str, Any]:
    """The profile record ``DIR/profile.json`` (the cells and selections).

    Raises:
        ConflictEvalError: No profile in ``out``.
    """
    path = Path(out) / PROFILE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConflictEvalError(f"{path}: no such file (not a profile directory)") from None
    except ValueError as exc:
        raise ConflictEvalError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ConflictEvalError(f"{path}: not a profile record (no cells)")
    return data


def _run_summary(out: Path, cell: Mapping[str, Any]) -> RunSummary | None:
    from conflicteval.results.load import read_summary

    if cell.get("status") not in ("ran", "pending"):
        return None
    try:
        return read_summary(out / cell["run"])
    except ConflictEvalError:
        return None


def _iso(ts: float | None) -> str | None:
    from datetime import datetime, timezone

    if ts is None:
        return None
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def _add(total: Tokens, part: Tokens) -> None:
    total.calls += part.calls
    total.prompt_tokens += part.prompt_tokens
    total.completion_tokens += part.completion_tokens


def build_card(out: str | Path, models: Sequence[str] | None = None) -> RunSummary:
    """The card of the profile in ``out`` for ``models`` (default every model of it): one
    metric per cell, ids ``<benchmark>.<metric id>`` (with ``@<model>`` appended when the card
    holds several models)."""
    from conflicteval import __version__
    from conflicteval.pricing import PRICES_AS_OF

    root = Path(out)
    record = read_profile(root)
    wanted = list(models) if models is not None else list(record.get("models", []))
    many = len(wanted) > 1
    metrics: list[Metric] = []
    uses: list[ModelUse] = []
    instruments: list[Instrument] = []
    per_model: list[ModelCost] = []
    sent, replayed = Tokens(), Tokens()
    usd: float | None = 0.0
    unpriced: list[str] = []
    scored = failed = pending = 0
    not_scored: dict[str, int] = {}
    cells_out: list[dict[str, Any]] = []
    for cell in record["cells"]:
        if cell["model"] not in wanted:
            continue
        s = _run_summary(root, cell)
        row = dict(cell)
        row["metrics"] = []
        if s is not None:
            suffix = f"@{cell['model']}" if many else ""
            for m in s.metrics:
                cid = f"{cell['benchmark']}.{m.id}{suffix}"
                metrics.append(m.model_copy(update={"id": cid}))
                row["metrics"].append(cid)
            row.update(
                contract_status=s.status,
                progress=[s.progress.done, s.progress.total],
                elapsed_s=s.elapsed_s,
                instruments=[i.model_dump(mode="json") for i in s.instruments],
            )
            for u in s.models:
                use = u.model_copy(update={"role": f"{cell['benchmark']}: {u.role}"})
                uses.append(use)
            for i in s.instruments:
                settings = {**i.settings, "benchmark": cell["benchmark"]}
                instruments.append(i.model_copy(update={"settings": settings}))
        elif cell["status"] == "ran":
            row["reason"] = "its command wrote no summary.json in the result contract"
        cell_usd: float | None = 0.0
        for raw in cell.get("costs") or []:  # each command's contract money, every run
            c = Cost.model_validate(raw)
            for pm in c.per_model:
                per_model.append(pm.model_copy(update={"role": f"{cell['benchmark']}: {pm.role}"}))
            _add(sent, c.sent)
            _add(replayed, c.replayed)
            unpriced += [u for u in c.unpriced if u not in unpriced]
            cell_usd = None if cell_usd is None or c.usd is None else cell_usd + c.usd
        row["cost_usd"] = cell_usd if cell.get("costs") else None
        usd = None if usd is None or cell_usd is None else usd + cell_usd
        cells_out.append(row)
        if cell["status"] == "failed":
            failed += 1
        elif cell["status"] == "pending" or (s is not None and s.status == "partial"):
            pending += 1
        elif s is not None and any(m.value is not None for m in s.metrics):
            scored += 1
        else:
            key = cell.get("category") or "no value"
            if cell["status"] == "ran" and s is None:
                key = "ran without a result contract"
            not_scored[key] = not_scored.get(key, 0) + 1
    total = scored + failed + pending + sum(not_scored.values())
    data = [
        DataInput(
            name=sel["dataset"],
            path=sel.get("file"),
            sha256=sel.get("file_sha256"),
            items=len(sel.get("ids") or []) if sel.get("file") else None,
        )
        for sel in record.get("selections", {}).values()
        if sel.get("file")
    ]
    fields: dict[str, Any] = {
        "kind": "profile",
        "status": "finished" if pending == 0 else "partial",
        "progress": Progress(done=total - pending, total=total),
        "started_at": _iso(record.get("started")),
        "finished_at": _iso(record.get("finished")),
        "elapsed_s": (
            round(record["finished"] - record["started"], 3)
            if record.get("started") and record.get("finished")
            else None
        ),
        "models": uses,
        "data": data,
        "instruments": instruments,
        "counts": Counts(
            total=total,
            scored=scored,
            failed={"parse": 0, "model": failed},
            pending=pending,
            not_scored=not_scored,
        ),
        "metrics": metrics,
        "cost": Cost(
            usd=None if unpriced else usd,
            unpriced=unpriced,
            prices_as_of=PRICES_AS_OF,
            sent=sent,
            replayed=replayed,
            per_model=per_model,
        ),
        "library_version": __version__,
        "profile": {
            "suite": record.get("suite"),
            "size": record.get("size"),
            "models": wanted,
            "judge": record.get("judge"),
            "labeler": record.get("labeler"),
            "cells": cells_out,
            "selections": record.get("selections", {}),
        },
    }
    return RunSummary.model_validate(fields)


def same_items(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """Why two profile records (``profile.json``) do not cover the same items: per dataset
    both have, a different source file (sha256) or different selected ids; [] when they do.
    """
    problems = []
    sa, sb = a.get("selections", {}), b.get("selections", {})
    if a.get("suite") != b.get("suite") or a.get("size") != b.get("size"):
        problems.append(
            f"suites differ: {a.get('suite')} {a.get('size')} vs {b.get('suite')} {b.get('size')}"
        )
    for name in sorted(set(sa) & set(sb)):
        x, y = sa[name], sb[name]
        if not x.get("file") or not y.get("file"):
            continue
        if x.get("source_sha256") != y.get("source_sha256"):
            problems.append(
                f"{name}: made from different files (sha256 {str(x.get('source_sha256'))[:12]}"
                f"... vs {str(y.get('source_sha256'))[:12]}...)"
            )
        elif x.get("ids") != y.get("ids"):
            problems.append(f"{name}: different items selected")
    return problems


def compare_models(out: str | Path, *, alpha: float = 0.05) -> dict[str, Any]:
    """Every cell of the first model against the same cell of each other model:
    :func:`~conflicteval.results.compare.compare` of the two runs (exact McNemar for 0/1
    outcomes, paired permutation otherwise), with Holm's adjustment across every metric of
    every benchmark of a pair of models. "tied" when the adjusted p is not below ``alpha``.
    """
    from conflicteval.results.compare import compare
    from conflicteval.results.paired import holm

    root = Path(out)
    record = read_profile(root)
    models = list(record.get("models", []))
    by_key = {(c["model"], c["benchmark"]): c for c in record["cells"]}
    pairs = []
    for other in models[1:]:
        rows: list[dict[str, Any]] = []
        skipped: list[str] = []
        for (model, bench), cell in by_key.items():
            if model != models[0]:
                continue
            mate = by_key.get((other, bench))
            if mate is None or _run_summary(root, cell) is None or _run_summary(root, mate) is None:
                skipped.append(bench)
                continue
            # a ConflictScore cell scores each model's own answers: its inputs differ by
            # construction, and its items pair by the answering run's ids
            own = _scores_own_answers(bench)
            comp = compare(
                root / cell["run"], root / mate["run"], alpha=alpha, allow_different_data=own
            )
            for m in comp.metrics:
                row = m.model_dump()
                row.update(id=f"{bench}.{m.id}", benchmark=bench, warnings=comp.warnings)
                rows.append(row)
        for row, adjusted in zip(rows, holm([r["p"] for r in rows]), strict=True):
            row["p_holm"] = adjusted
            row["verdict"] = "tied"
            if adjusted is not None and adjusted < alpha and row["diff"]:
                row["verdict"] = "B higher" if row["diff"] > 0 else "A higher"
        pairs.append({"a": models[0], "b": other, "metrics": rows, "not_compared": sorted(skipped)})
    return {
        "alpha": alpha,
        "holm": "across every metric of every benchmark of each pair of models",
        "pairs": pairs,
    }


def _scores_own_answers(benchmark: str) -> bool:
    from .suite import load_suite

    try:
        return load_suite().benchmark(benchmark).scores is not None
    except ConflictEvalError:
        return False


def write_card(out: str | Path) -> Path:
    """Write ``DIR/<model>/summary.json`` for each model, ``DIR/summary.json`` for the
    profile, and with two or more models ``DIR/compare.json``; return the summary's path."""
    from conflicteval._atomic import atomic_write_text
    from conflicteval.results.build import write_run

    root = Path(out)
    record = read_profile(root)
    from .runner import model_dir

    for model in record.get("models", []):
        write_run(root / model_dir(model), build_card(root, [model]))
    path = write_run(root, build_card(root))
    if len(record.get("models", [])) > 1:
        comparison = compare_models(root)
        atomic_write_text(root / COMPARE_FILE, json.dumps(comparison, indent=2) + "\n")
    return path
