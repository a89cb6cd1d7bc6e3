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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conflicteval.errors import ConflictEvalError
from conflicteval.jsonio import read_description
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
    data = read_description(
        path, missing="no such file (not a profile directory)", unreadable="not JSON"
    )
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


@dataclass
class _Card:
    """What the card gathers from its cells' runs, cell by cell."""

    many: bool
    metrics: list[Metric] = field(default_factory=list)
    uses: list[ModelUse] = field(default_factory=list)
    instruments: list[Instrument] = field(default_factory=list)
    per_model: list[ModelCost] = field(default_factory=list)
    sent: Tokens = field(default_factory=Tokens)
    replayed: Tokens = field(default_factory=Tokens)
    usd: float | None = 0.0
    unpriced: list[str] = field(default_factory=list)
    scored: int = 0
    failed: int = 0
    pending: int = 0
    not_scored: dict[str, int] = field(default_factory=dict)
    cells: list[dict[str, Any]] = field(default_factory=list)

    def add(self, cell: Mapping[str, Any], s: RunSummary | None) -> None:
        """One cell: its run's metrics, models and instruments, its money, its count."""
        bench = cell["benchmark"]
        row = dict(cell)
        row["metrics"] = []
        if s is not None:
            suffix = f"@{cell['model']}" if self.many else ""
            for m in s.metrics:
                cid = f"{bench}.{m.id}{suffix}"
                self.metrics.append(m.model_copy(update={"id": cid}))
                row["metrics"].append(cid)
            row.update(
                contract_status=s.status,
                progress=[s.progress.done, s.progress.total],
                elapsed_s=s.elapsed_s,
                instruments=[i.model_dump(mode="json") for i in s.instruments],
            )
            self.uses += [u.model_copy(update={"role": f"{bench}: {u.role}"}) for u in s.models]
            for i in s.instruments:
                settings = {**i.settings, "benchmark": bench}
                self.instruments.append(i.model_copy(update={"settings": settings}))
        elif cell["status"] == "ran":
            row["reason"] = "its command wrote no summary.json in the result contract"
        row["cost_usd"] = self._money(bench, cell.get("costs") or [])
        self.cells.append(row)
        self._count(cell, s)

    def _money(self, bench: str, costs: Sequence[Mapping[str, Any]]) -> float | None:
        """Each command's contract money, over every run of the profile."""
        cell_usd: float | None = 0.0
        for raw in costs:
            c = Cost.model_validate(raw)
            for pm in c.per_model:
                self.per_model.append(pm.model_copy(update={"role": f"{bench}: {pm.role}"}))
            _add(self.sent, c.sent)
            _add(self.replayed, c.replayed)
            self.unpriced += [u for u in c.unpriced if u not in self.unpriced]
            cell_usd = None if cell_usd is None or c.usd is None else cell_usd + c.usd
        self.usd = None if self.usd is None or cell_usd is None else self.usd + cell_usd
        return cell_usd if costs else None

    def _count(self, cell: Mapping[str, Any], s: RunSummary | None) -> None:
        if cell["status"] == "failed":
            self.failed += 1
        elif cell["status"] == "pending" or (s is not None and s.status == "partial"):
            self.pending += 1
        elif s is not None and any(m.value is not None for m in s.metrics):
            self.scored += 1
        else:
            key = cell.get("category") or "no value"
            if cell["status"] == "ran" and s is None:
                key = "ran without a result contract"
            self.not_scored[key] = self.not_scored.get(key, 0) + 1

    def counts(self) -> Counts:
        total = self.scored + self.failed + self.pending + sum(self.not_scored.values())
        return Counts(
            total=total,
            scored=self.scored,
            failed={"parse": 0, "model": self.failed},
            pending=self.pending,
            not_scored=self.not_scored,
        )


def build_card(out: str | Path, models: Sequence[str] | None = None) -> RunSummary:
    """The card of the profile in ``out`` for ``models`` (default every model of it): one
    metric per cell, ids ``<benchmark>.<metric id>`` (with ``@<model>`` appended when the card
    holds several models)."""
    from conflicteval._version import __version__
    from conflicteval.pricing import PRICES_AS_OF

    root = Path(out)
    record = read_profile(root)
    wanted = list(models) if models is not None else list(record.get("models", []))
    card = _Card(many=len(wanted) > 1)
    for cell in record["cells"]:
        if cell["model"] in wanted:
            card.add(cell, _run_summary(root, cell))
    counts = card.counts()
    data = [
        DataInput(
            name=sel["dataset"],
            path=sel.get("file"),
            sha256=sel.get("file_sha256"),
            items=len(sel.get("ids") or []),
        )
        for sel in record.get("selections", {}).values()
        if sel.get("file")
    ]
    started, finished = record.get("started"), record.get("finished")
    fields: dict[str, Any] = {
        "kind": "profile",
        "status": "finished" if counts.pending == 0 else "partial",
        "progress": Progress(done=counts.total - counts.pending, total=counts.total),
        "started_at": _iso(started),
        "finished_at": _iso(finished),
        "elapsed_s": round(finished - started, 3) if started and finished else None,
        "models": card.uses,
        "data": data,
        "instruments": card.instruments,
        "counts": counts,
        "metrics": card.metrics,
        "cost": Cost(
            usd=None if card.unpriced else card.usd,
            unpriced=card.unpriced,
            prices_as_of=PRICES_AS_OF,
            sent=card.sent,
            replayed=card.replayed,
            per_model=card.per_model,
        ),
        "library_version": __version__,
        "profile": {
            "suite": record.get("suite"),
            "size": record.get("size"),
            "models": wanted,
            "judge": record.get("judge"),
            "labeler": record.get("labeler"),
            "cells": card.cells,
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
    card = build_card(root)
    if len(record.get("models", [])) > 1:  # the comparison: its own file, and on the card
        comparison = compare_models(root)
        atomic_write_text(root / COMPARE_FILE, json.dumps(comparison, indent=2) + "\n")
        (card.model_extra or {})["profile"]["comparison"] = comparison
    return write_run(root, card)
