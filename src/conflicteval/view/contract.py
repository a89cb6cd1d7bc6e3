"""What the page takes from a run's contract (``summary.json``, ``conflicteval.run/1``):
the money of the command that wrote it, its time, its instruments' measured accuracy, its
progress, and the numbers it says were not measured (a WikiContradict run generated but not
judged shows "not judged", never 0 %). A run without the contract is shown as its kind's
reader reads it."""

from __future__ import annotations

from pathlib import Path

from conflicteval.errors import ConflictEvalError

from .model import RunView

__all__ = ["apply_contract"]


def apply_contract(run: RunView, path: Path) -> None:
    """Overlay ``run`` (as its kind's reader filled it) with the run's contract, if any."""
    from conflicteval.results.load import cost_line, read_summary

    if not (path / "summary.json").exists():
        return
    try:
        s = read_summary(path)
    except ConflictEvalError:
        return  # a summary from before the contract: the reader's figures stand
    line = cost_line(s)
    run.usage.pop("unpriced", None)
    run.usage.pop("cost", None)
    if s.cost.usd is None:
        run.usage["unpriced"] = line.removeprefix("cost: ")
    else:
        run.usage["cost"] = line.removeprefix("cost: ") + " (the command that wrote summary.json)"
    if s.started_at and s.elapsed_s is not None:
        run.provenance.append(("time", f"{s.started_at} to {s.finished_at} ({s.elapsed_s:g} s)"))
    if s.latency is not None and s.latency.calls:
        lat = s.latency
        run.provenance.append(
            ("call latency", f"p50 {lat.p50:g} s, p90 {lat.p90:g} s, max {lat.max:g} s")
        )
    for inst in s.instruments:
        acc = inst.accuracy
        text = "unmeasured"
        if acc is not None and acc.macro_f1 is not None:
            ci = f" [{acc.macro_f1_ci[0]:.3f}, {acc.macro_f1_ci[1]:.3f}]" if acc.macro_f1_ci else ""
            text = f"macro-F1 {acc.macro_f1:.3f}{ci} on {acc.gold} ({acc.pairs} pairs)"
        run.provenance.append((f"{inst.role} {inst.name}", text))
    if s.status == "partial":
        run.notes.append(f"partial run: {s.progress.done:,} of {s.progress.total:,} items done")
    unjudged = [m for m in s.metrics if m.value is None and m.note == "not judged"]
    if s.metrics and len(unjudged) == len(s.metrics):
        for h in run.headlines:
            if h.percent:
                h.value, h.low, h.high, h.n, h.note = None, None, None, 0, "not judged"
