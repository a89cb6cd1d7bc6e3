"""The files a ConflictBench command leaves in its output directory, beside its checkpoint.

Detection: ``metrics.json`` and ``table2.md``; report benchmarking: ``table3.md`` and
``rows.json``; regeneration: ``tables.md`` and ``summary.json``. Each writer returns
the text the command prints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conflicteval._atomic import atomic_write_text


def write_detection_files(out: Path, run: Any, *, paper: bool) -> str:
    """``metrics.json`` and ``table2.md`` (Table 2 and its 95% intervals)."""
    from conflicteval.conflictbench.metrics import table2, table2_intervals

    metrics = {k: m.model_dump() for k, m in run.metrics.items()}
    atomic_write_text(out / "metrics.json", json.dumps(metrics, indent=2), encoding="utf-8")
    text = table2(run.metrics, paper=paper)
    text += "\n\n95% intervals (percentile bootstrap over items):\n\n" + table2_intervals(
        run.metrics
    )
    atomic_write_text(out / "table2.md", text + "\n", encoding="utf-8")
    return text


def write_report_files(out: Path, run: Any, *, paper: bool) -> str:
    """``table3.md`` and ``rows.json``."""
    text = run.table(paper=paper)
    atomic_write_text(out / "table3.md", text + "\n", encoding="utf-8")
    atomic_write_text(
        out / "rows.json",
        json.dumps([r.model_dump() for r in run.rows], indent=2),
        encoding="utf-8",
    )
    return str(text)


def write_regeneration_files(out: Path, run: Any, *, paper: bool) -> str:
    """``tables.md`` (Tables 4-5 and the flips) and ``summary.json``."""
    text = run.tables(paper=paper)
    atomic_write_text(out / "tables.md", text + "\n", encoding="utf-8")
    atomic_write_text(out / "summary.json", run.summary.model_dump_json(indent=2), encoding="utf-8")
    return str(text)
