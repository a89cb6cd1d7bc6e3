"""The stacked-bar PNG of a WikiContradict report (:meth:`WikiContradictReport.plot`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from conflicteval.errors import require
from conflicteval.wikicontradict.judge_template import VERDICTS, Verdict
from conflicteval.wikicontradict.templates import TEMPLATE_NAMES

if TYPE_CHECKING:
    from conflicteval.wikicontradict.report import Subset, WikiContradictReport


def _template_order(name: str) -> tuple[int, str]:
    return (TEMPLATE_NAMES.index(name) if name in TEMPLATE_NAMES else len(TEMPLATE_NAMES), name)


def plot_report(report: WikiContradictReport, path: str | Path, subset: Subset = "all") -> Path:
    """Save a stacked-bar PNG (C / PC / IC / failed per model x template); a label not
    measured in a cell (nothing graded) is drawn as 0 width. Needs the ``plot`` extra."""
    require("matplotlib", "plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = [c for c in report.cells if c.subset == subset and c.n]
    cells.sort(key=lambda c: (_template_order(c.template), report.models.index(c.model)))
    labels = [f"{c.model} · T{c.template}" for c in cells]
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(cells) + 1.5))
    left = [0.0] * len(cells)
    colours = {
        "correct": "#2e7d32",
        "partially correct": "#f9a825",
        "incorrect": "#c62828",
        "failed": "#9e9e9e",
    }
    values: list[Verdict | Literal["failed"]] = [*VERDICTS, "failed"]
    for value in values:
        widths = [c.pct(value) or 0.0 for c in cells]
        ax.barh(labels, widths, left=left, color=colours[value], label=value)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"% of items ({subset})")
    ax.invert_yaxis()
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=4, frameon=False)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
