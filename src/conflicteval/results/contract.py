"""The run contract ``conflicteval.run/1``: what every command that produces a result writes
as ``summary.json`` in its run directory, and the one flat per-item record (``items.jsonl``).

One definition of each word, for every kind of run:

* ``counts.total``: the items the run was asked for. Each ends in exactly one of ``scored``
  (a metric value came out of it), ``failed`` (by kind: ``parse`` — a reply the parser could
  not read unambiguously; ``model`` — the call failed), ``pending`` (waiting for a batch
  result) or ``not_scored`` (answered and read, but the metric is undefined for it; the
  reason is the key). So ``total == scored + sum(failed) + pending + sum(not_scored)``.
* A metric's ``value`` is null when nothing was measured (``n == 0``, or a step not run,
  e.g. a WikiContradict run never judged): never 0 from nothing; ``note`` then says why.
* ``cost.usd`` is the estimate of the calls *sent* to a server; calls replayed from the
  response cache are counted apart and never priced. ``usd`` is null when a model that
  sent calls has no price (``unpriced`` names it).
* An instrument (a judge, a labeler) carries its measured accuracy, or null with the word
  ``"unmeasured"``.

A kind may keep fields of its own beside these (the files written before the contract had
some, and their readers still read them); readers of the contract ignore them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "KINDS",
    "ROLES",
    "SCHEMA",
    "Accuracy",
    "Cost",
    "Counts",
    "DataInput",
    "Instrument",
    "ItemRecord",
    "Latency",
    "Metric",
    "ModelCost",
    "ModelUse",
    "Progress",
    "RunSummary",
    "Tokens",
]

SCHEMA = "conflicteval.run/1"
"""The version of the contract this library writes and reads."""

KINDS = (
    "conflictscore",
    "wikicontradict",
    "detect",
    "reports",
    "regenerate",
    "feverous",
    "ramdocs",
    "faitheval",
    "bench",
    "conflictqa",
    "clasheval",
    "profile",
)
"""The kinds of run (``profile`` is reserved for the model card)."""

ROLES = ("answering", "judge", "labeler", "decomposer", "scorer", "reporter", "aggregator")
"""Roles a model plays in a run."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Progress(_Model):
    """Items done of the items asked for (``done < total`` in a partial run)."""

    done: int = Field(ge=0)
    total: int = Field(ge=0)


class Latency(_Model):
    """Quantiles of the wall time of the calls sent to a server in this process (seconds);
    cache replays and calls answered by a batch job are not timed."""

    calls: int = Field(ge=0)
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None
    max: float | None = None


class ModelUse(_Model):
    """A model of the run: its role, spec and the decoding actually sent."""

    role: str
    spec: str
    decoding: dict[str, Any] = Field(default_factory=dict)
    deviations: list[str] = Field(default_factory=list)
    """How the decoding sent differs from the protocol's (filled by providers that cannot
    take a setting, e.g. a reasoning model without ``temperature``)."""


class DataInput(_Model):
    """An input file (or named dataset) of the run."""

    name: str
    path: str | None = None
    sha256: str | None = None
    items: int | None = None


class Accuracy(_Model):
    """An instrument's measured accuracy on a gold set."""

    gold: str | None = None
    gold_sha256: str | None = None
    pairs: int | None = None
    macro_f1: float | None = None
    macro_f1_ci: list[float] | None = None
    measured_at: str | None = None


class Instrument(_Model):
    """A judge or labeler behind the run's numbers, with its measured accuracy or
    ``accuracy: null`` and ``status: "unmeasured"``."""

    role: str
    name: str
    settings: dict[str, Any] = Field(default_factory=dict)
    accuracy: Accuracy | None = None
    status: Literal["measured", "unmeasured"] = "unmeasured"

    @model_validator(mode="after")
    def _status(self) -> Instrument:
        self.status = "unmeasured" if self.accuracy is None else "measured"
        return self


class Counts(_Model):
    """Every item asked for, in exactly one of scored / failed / pending / not scored."""

    total: int = Field(ge=0)
    scored: int = Field(ge=0)
    failed: dict[str, int] = Field(default_factory=lambda: {"parse": 0, "model": 0})
    pending: int = Field(default=0, ge=0)
    not_scored: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _adds_up(self) -> Counts:
        parts = self.scored + sum(self.failed.values()) + self.pending
        parts += sum(self.not_scored.values())
        if parts != self.total:
            raise ValueError(
                f"counts do not add up: scored {self.scored} + failed {sum(self.failed.values())}"
                f" + pending {self.pending} + not scored {sum(self.not_scored.values())}"
                f" != total {self.total}"
            )
        return self


class Metric(_Model):
    """One number of the run with its interval and what it was computed over.

    ``items`` says how it relates to the per-item values in ``items.jsonl``: ``binary``
    (the mean of 0/1 item values times ``scale``), ``mean`` (the mean of real item values
    times ``scale``) or null (not a mean of item values, e.g. a macro-F1); ``compare``
    pairs the first two item by item.
    """

    id: str
    name: str
    value: float | None
    ci: list[float] | None = None
    n: int = Field(ge=0)
    n_counts: str
    """What ``n`` counts ("responses with a CS-C", "judged answers", ...)."""
    unit: str = "share"
    scale: float = 1.0
    lower_is_better: bool = False
    interval: str | None = None
    """How ``ci`` was made (e.g. "percentile bootstrap over items, 1000 resamples, seed 0")."""
    items: Literal["binary", "mean"] | None = None
    published: dict[str, float | None] = Field(default_factory=dict)
    """The paper's values beside ours (key: which paper/table/setting)."""
    note: str | None = None

    @model_validator(mode="after")
    def _nothing_is_null(self) -> Metric:
        if self.n == 0 and self.value is not None:
            raise ValueError(f"metric {self.id}: a value from n = 0 items (must be null)")
        if self.value is None and self.ci is not None:
            raise ValueError(f"metric {self.id}: an interval without a value")
        return self


class Tokens(_Model):
    """Calls and tokens."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ModelCost(_Model):
    """One model's calls sent and replayed, and the estimate of those sent.

    ``made_by`` names the command that made these calls when it is not the one that wrote the
    contract: a judged WikiContradict run carries the answers' money, made by ``wikicontradict
    generate``, beside its judge's (None: this contract's command made them).
    """

    model: str
    role: str | None = None
    usd: float | None = None
    sent: Tokens = Field(default_factory=Tokens)
    replayed: Tokens = Field(default_factory=Tokens)
    made_by: str | None = None


class Cost(_Model):
    """The run's money: sent calls priced, cache replays never."""

    usd: float | None = None
    unpriced: list[str] = Field(default_factory=list)
    prices_as_of: str
    price_file: str | None = None
    sent: Tokens = Field(default_factory=Tokens)
    replayed: Tokens = Field(default_factory=Tokens)
    per_model: list[ModelCost] = Field(default_factory=list)


class RunSummary(BaseModel):
    """The ``summary.json`` of a run (schema ``conflicteval.run/1``)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: str = Field(default=SCHEMA, alias="schema")
    kind: str
    status: Literal["finished", "partial"]
    progress: Progress
    started_at: str | None = None
    finished_at: str | None = None
    elapsed_s: float | None = None
    latency: Latency | None = None
    models: list[ModelUse] = Field(default_factory=list)
    data: list[DataInput] = Field(default_factory=list)
    instruments: list[Instrument] = Field(default_factory=list)
    counts: Counts
    metrics: list[Metric] = Field(default_factory=list)
    cost: Cost
    library_version: str | None = None

    @model_validator(mode="after")
    def _check(self) -> RunSummary:
        if self.schema_ != SCHEMA:
            raise ValueError(f"schema {self.schema_!r}: this library reads {SCHEMA!r}")
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r}: not one of {', '.join(KINDS)}")
        ids = [m.id for m in self.metrics]
        if len(set(ids)) != len(ids):
            raise ValueError("metric ids repeat: " + ", ".join(sorted(set(ids))))
        return self

    def metric(self, metric_id: str) -> Metric | None:
        """The metric with this id, or None."""
        return next((m for m in self.metrics if m.id == metric_id), None)

    def contract_dict(self) -> dict[str, Any]:
        """The contract's fields only (a kind's own extra fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude=set(self.model_extra or {}))


class ItemRecord(_Model):
    """One item of any kind of run, flat: ``values`` holds the kind's per-item metric values
    by metric id (a 0/1 outcome, a score, or null where the metric is undefined for it)."""

    id: str
    status: Literal["ok", "parse_error", "model_error", "pending", "not_scored"]
    error: str | None = None
    latency_s: float | None = None
    cost_usd: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_calls: int = 0
    values: dict[str, float | None] = Field(default_factory=dict)
