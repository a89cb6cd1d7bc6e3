"""The outcome of a labeler bench run: figures with intervals, failures, calls and cost."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from conflicteval.runs import BatchResult
from conflicteval.stats import ClassificationMetrics, format_ci
from conflicteval.types import Usage

__all__ = ["BenchRecord", "BenchResult"]


class BenchRecord(BaseModel):
    """One gold item as the labeler saw it.

    Attributes:
        id: The gold item id.
        source: Its sub-source ("" when the gold set has one).
        status: The runner's status (``ok``, ``parse_error``, ``model_error``, ``pending``).
        gold: Gold relation per document.
        labels: Predicted relation per document (None: the pair failed).
        errors: Why pairs (or the item) failed.
        calls: Model calls the labeler reported.
    """

    id: str
    source: str = ""
    status: str
    gold: list[str]
    labels: list[str | None]
    errors: list[str] = Field(default_factory=list)
    calls: int = 0


class BenchResult(BaseModel):
    """A labeler measured on a gold set.

    Attributes:
        gold: The gold set's name.
        gold_path: Where it was read from.
        gold_sha256: sha256 of the gold file ("" when it was not read from a file).
        labeler: The labeler's name (``lexical``, ``llm``, ...).
        model: The labeler's model name, if it has one.
        labeler_identity: What determines its labels (as a checkpoint records it).
        metrics: Per-class P/R/F1, macro-F1, accuracy, confusion, each with its interval
            (failed pairs count as wrong; ``answered_accuracy`` leaves them out).
        records: One record per gold item.
        counts: Items per status, plus ``pairs``, ``failed_pairs``, ``pending_pairs``.
        left_out: Source records the gold set left out, by reason.
        usage: Token usage of every call the measurement took (resumed items included).
        usage_this_run: Token usage of this run's calls alone.
        cost_usd: List-price estimate of ``usage`` (None: offline labeler or unpriced model).
        created: When the result was made (UTC, ISO 8601).
        version: The conflicteval version.
    """

    gold: str
    gold_path: str = ""
    gold_sha256: str = ""
    labeler: str
    model: str | None = None
    labeler_identity: Any = None
    metrics: ClassificationMetrics
    records: list[BenchRecord] = Field(default_factory=list)
    counts: dict[str, int] = Field(default_factory=dict)
    left_out: dict[str, int] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    usage_this_run: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    created: str = ""
    version: str = ""
    batch: BatchResult | None = Field(default=None, exclude=True, repr=False)

    @property
    def pending(self) -> int:
        """Pairs still waiting for batch results (left out of the figures)."""
        return self.counts.get("pending_pairs", 0)

    def to_dict(self) -> dict[str, Any]:
        """The headline object ``bench labeler --json`` prints and ``bench.json`` holds."""
        m = self.metrics
        return {
            "gold": self.gold,
            "gold_path": self.gold_path,
            "gold_sha256": self.gold_sha256,
            "labeler": self.labeler,
            "model": self.model,
            "n": m.n,
            "failed": m.failed,
            "accuracy": m.accuracy,
            "accuracy_ci": m.accuracy_ci,
            "answered_accuracy": m.answered_accuracy,
            "answered_accuracy_ci": m.answered_accuracy_ci,
            "macro_f1": m.macro_f1,
            "macro_f1_ci": m.macro_f1_ci,
            "per_class": {k: v.model_dump() for k, v in m.per_class.items()},
            "confusion": m.confusion_dict(),
            "items": self.counts.get("total", 0),
            "counts": dict(self.counts),
            "left_out": dict(self.left_out),
            "calls": self.usage.calls,
            "cached_calls": self.usage.cached_calls,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "cost_usd": self.cost_usd,
            "bootstrap": {
                "method": "percentile",
                "unit": "gold item (a claim with its documents)",
                "units": m.units,
                "n_resamples": m.n_resamples,
                "seed": m.seed,
                "level": m.level,
            },
            "labeler_identity": self.labeler_identity,
            "created": self.created,
            "version": self.version,
        }

    def to_pandas(self) -> Any:
        """One row per figure: ``figure``, ``label``, ``value``, ``ci_low``, ``ci_high``,
        ``support`` (needs the ``pandas`` extra)."""
        from conflicteval.errors import require

        pd: Any = require("pandas", "pandas")
        m = self.metrics
        rows: list[dict[str, Any]] = []

        def add(figure: str, label: str | None, value: Any, ci: Any, support: Any) -> None:
            low, high = (ci[0], ci[1]) if ci else (None, None)
            rows.append(
                {
                    "gold": self.gold,
                    "labeler": self.labeler,
                    "figure": figure,
                    "label": label,
                    "value": value,
                    "ci_low": low,
                    "ci_high": high,
                    "support": support,
                }
            )

        add("accuracy", None, m.accuracy, m.accuracy_ci, m.n)
        add("answered_accuracy", None, m.answered_accuracy, m.answered_accuracy_ci, m.n - m.failed)
        add("macro_f1", None, m.macro_f1, m.macro_f1_ci, m.n)
        for label, s in m.per_class.items():
            for figure in ("precision", "recall", "f1"):
                add(figure, label, getattr(s, figure), getattr(s, f"{figure}_ci"), s.support)
        return pd.DataFrame(rows)

    def summary(self) -> str:
        """A readable report: headline figures with intervals, per-class table, confusion."""
        m = self.metrics
        who = self.labeler + (f" ({self.model})" if self.model else "")
        lines = [
            f"labeler {who} on {self.gold}: {m.n} gold pairs in {self.counts.get('total', 0)} "
            f"items; {m.failed} failed pairs (counted as wrong)",
            f"accuracy {m.accuracy:.4f} {format_ci(m.accuracy_ci)}; "
            f"macro-F1 {m.macro_f1:.4f} {format_ci(m.macro_f1_ci)}; answered-only accuracy "
            + (
                "undefined (no pair answered)"
                if m.answered_accuracy is None
                else f"{m.answered_accuracy:.4f} {format_ci(m.answered_accuracy_ci)}"
            ),
            "",
            f"{'class':<12} {'P':>7} {'R':>7} {'F1':>7} {'support':>8}  F1 95% interval",
        ]
        for label, s in m.per_class.items():
            if not s.support:  # no gold pair of this class: its recall and F1 are not 0
                lines.append(
                    f"{label:<12} {'':>7} {'':>7} {'':>7} {0:8d}  not measured (no gold pair)"
                )
                continue
            lines.append(
                f"{label:<12} {s.precision:7.4f} {s.recall:7.4f} {s.f1:7.4f} {s.support:8d}  "
                f"{format_ci(s.f1_ci)}"
            )
        cols = [*m.labels, "failed"]
        lines += ["", "confusion (rows: gold, columns: labeler)"]
        lines.append(f"{'':<12}" + "".join(f"{c[:11]:>12}" for c in cols))
        for label, row in zip(m.labels, m.confusion, strict=True):
            lines.append(f"{label:<12}" + "".join(f"{v:12d}" for v in row))
        if self.left_out:
            left = ", ".join(f"{n} {why}" for why, n in self.left_out.items())
            lines.append(f"left out of the gold set: {left}")
        if self.pending:
            lines.append(f"{self.pending} pairs wait for batch results (not in the figures)")
        u = self.usage
        cost = "" if self.cost_usd is None else f"; about ${self.cost_usd:.4f} at list prices"
        lines.append(
            f"calls {u.calls} ({u.cached_calls} from cache), {u.prompt_tokens} prompt + "
            f"{u.completion_tokens} completion tokens{cost}"
        )
        lines.append(
            f"intervals: percentile bootstrap, {m.level:.0%}, {m.n_resamples} resamples of the "
            f"{m.units} gold items, seed {m.seed}"
        )
        from conflicteval.stats_text import small_sample_note

        note = small_sample_note(m.units, "gold items")
        if note:
            lines.append(note)
        return "\n".join(lines)
