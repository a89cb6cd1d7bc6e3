"""Published FEVEROUS figures, stored as data to compare a run with.

From "FEVEROUS: Fact Extraction and VERification Over Unstructured and Structured
information" (NeurIPS 2021 Datasets and Benchmarks, arXiv:2106.05707) and its official
repository (Raldir/FEVEROUS):

* :data:`PAPER_TABLE3`: the full baseline's FEVEROUS score and evidence recall on the
  development and test sets, as the paper's Table 3 prints them (two decimals).
* :data:`DEV_BASELINE`: the same baseline's development-set predictions scored with the
  repository's ``evaluate.py`` (the official scorer), to four decimals, with the counts
  behind the two shares (7,890 claims).

The paper's 0.19 and the scorer's 0.1951 are both kept as printed: they come from two
sources, and this library does not reconcile them.
"""

from __future__ import annotations

__all__ = ["DEV_BASELINE", "PAPER_TABLE3"]

PAPER_TABLE3: dict[str, dict[str, float]] = {
    "dev": {"feverous_score": 0.19, "evidence_recall": 0.29},
    "test": {"feverous_score": 0.18, "evidence_recall": 0.29},
}
"""Full baseline, paper Table 3: FEVEROUS score and evidence recall per split."""

DEV_BASELINE: dict[str, float | int] = {
    "claims": 7890,
    "strict_correct": 1539,
    "label_correct": 4630,
    "strict": 0.1951,
    "label_accuracy": 0.5868,
    "precision": 0.1181,
    "recall": 0.2933,
    "f1": 0.1684,
}
"""Full baseline on the development set through the official ``evaluate.py``: the official
scorer's five figures (``strict`` is the FEVEROUS score) and the counts of the two shares."""
