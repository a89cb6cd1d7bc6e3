"""ConflictScore as ragas metrics: CS-C and CS-R inside ``ragas.evaluate``.

ragas judges a response against all retrieved contexts pooled into one text, so
it cannot tell that two sources disagree and the response took a side.
ConflictScore reads every context as its own document:

* **CS-C** (ConflictScore-Count, :class:`ConflictScoreCount`): the share of the
  response's claims that some documents support and others contradict.
* **CS-R** (ConflictScore-Ratio, :class:`ConflictScoreRatio`): the mean, over
  claims with evidence, of contradicting / (supporting + contradicting)
  documents.

Lower is better for both (0: no claim rests on contested evidence). Both read
``response`` and ``retrieved_contexts`` of single-turn samples. The two metric
objects share one :class:`~conflicteval.conflictscore.shared.SharedScorer`, so
each sample is decomposed and labelled once (the second metric makes no model
call). The model is a conflicteval model (any backend, with its cache and
retries), used through the library's own :class:`ConflictScorer`: the
prompts, parsers and aggregation are the library's, not a copy.

``retrieved_contexts`` are plain strings. A document with a title is written
with :func:`~conflicteval.conflictscore.shared.titled_context`
(``"title\n\ntext"``), the text ``conflicteval score`` shows for a
``{"title", "text"}`` document, so both send the same prompts; a bare text has
no title line.

A sample that cannot be scored (no retrieved contexts, an empty response, a
decomposition with no claim, a value the paper leaves undefined) gives ragas's
missing value, NaN; the reason is logged as a warning and kept in the metric's
:attr:`~ConflictScoreCount.unscored` list. A model call that failed for good
is recorded there too and raised, so ragas reports it as it reports any failed
metric job.

Needs the optional extra: ``pip install '.[ragas]'``.

Example:
    >>> from ragas import EvaluationDataset, evaluate
    >>> from conflicteval.adapters.ragas import conflict_score_metrics
    >>> cs_c, cs_r = conflict_score_metrics("openai/gpt-4.1-mini")
    >>> result = evaluate(EvaluationDataset.from_list(rows), metrics=[cs_c, cs_r])
    >>> result.to_pandas()[["conflict_score_count", "conflict_score_ratio"]]
"""

from __future__ import annotations

import logging
import math
import typing as t
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from conflicteval.adapters._scorer import shared_scorer
from conflicteval.conflictscore.scorer import ConflictScorer, ScoreResult
from conflicteval.conflictscore.shared import (
    SharedScorer,
    titled_context,
    unscored_reason,
)
from conflicteval.errors import MissingDependency
from conflicteval.models import Model

try:
    from ragas.dataset_schema import SingleTurnSample
    from ragas.metrics.base import MetricOutputType, MetricType, SingleTurnMetric
    from ragas.run_config import RunConfig
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise MissingDependency("ragas", "ragas") from exc

__all__ = [
    "ConflictScoreCount",
    "ConflictScoreRatio",
    "SharedScorer",
    "Unscored",
    "conflict_score_metrics",
    "titled_context",
]

log = logging.getLogger("conflicteval.ragas")


class Unscored(BaseModel):
    """A sample a metric gave no value (NaN in ragas's results).

    Attributes:
        metric: The metric's name.
        response: The sample's response.
        n_contexts: How many retrieved contexts it had.
        reason: Why it has no value.
    """

    metric: str
    response: str
    n_contexts: int
    reason: str


def _default_columns() -> dict[MetricType, set[str]]:
    return {MetricType.SINGLE_TURN: {"response", "retrieved_contexts"}}


@dataclass
class _ConflictScoreMetric(SingleTurnMetric):
    """Shared part of the two metrics (see the module docs)."""

    _required_columns: dict[MetricType, set[str]] = field(default_factory=_default_columns)
    scorer: SharedScorer | ConflictScorer | None = None
    output_type: MetricOutputType = MetricOutputType.CONTINUOUS
    unscored: list[Unscored] = field(default_factory=list)

    _field: ClassVar[str] = "cs_c"

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.scorer, ConflictScorer):
            self.scorer = SharedScorer(self.scorer)

    @property
    def shared(self) -> SharedScorer:
        """The shared scorer (raises ValueError when none was given)."""
        if not isinstance(self.scorer, SharedScorer):
            raise ValueError(
                f"{type(self).__name__} needs a scorer: use conflict_score_metrics(model) "
                "or pass scorer=SharedScorer(ConflictScorer(...))"
            )
        return self.scorer

    def init(self, run_config: RunConfig) -> None:
        """Called by ``ragas.evaluate``: checks that a scorer is set (the model is ours)."""
        _ = self.shared

    def _missing(self, response: str, n_contexts: int, reason: str) -> float:
        log.warning("%s: sample not scored (NaN): %s", self.name, reason)
        self.unscored.append(
            Unscored(metric=self.name, response=response, n_contexts=n_contexts, reason=reason)
        )
        return math.nan

    async def _single_turn_ascore(self, sample: SingleTurnSample, callbacks: Any) -> float:
        response = sample.response if isinstance(sample.response, str) else ""
        contexts = list(sample.retrieved_contexts or [])
        if not contexts:
            reason = "no retrieved contexts: ConflictScore needs at least one document"
            return self._missing(response, 0, reason)
        try:
            result = await self.shared.ascore(response, contexts)
        except Exception as exc:
            self._missing(response, len(contexts), f"model call failed: {exc}")
            raise
        problem = unscored_reason(result, self._field)
        if problem is not None:
            return self._missing(response, len(contexts), problem)
        value = getattr(result, self._field)
        return float(value)

    def result(self, response: str, retrieved_contexts: t.Sequence[str]) -> ScoreResult | None:
        """The full ScoreResult of a sample already scored (claims x documents table)."""
        return self.shared.get(response, list(retrieved_contexts))


@dataclass
class ConflictScoreCount(_ConflictScoreMetric):
    """CS-C (ConflictScore-Count) as a ragas single-turn metric.

    The share of the response's claims that at least one retrieved context
    supports and at least one other contradicts (lower is better). Claims
    whose every pair failed are left out; NaN (with the reason in
    :attr:`unscored`) when no claim could be scored.

    Attributes:
        scorer: The :class:`SharedScorer` (a plain ConflictScorer is wrapped).
        unscored: The samples this metric gave NaN, with the reason.
    """

    name: str = "conflict_score_count"
    _field: ClassVar[str] = "cs_c"


@dataclass
class ConflictScoreRatio(_ConflictScoreMetric):
    """CS-R (ConflictScore-Ratio) as a ragas single-turn metric.

    The mean, over claims with evidence, of contradicting / (supporting +
    contradicting) retrieved contexts (lower is better). NaN (with the reason
    in :attr:`unscored`) when no claim is supported or contradicted by any
    context.

    Attributes:
        scorer: The :class:`SharedScorer` (a plain ConflictScorer is wrapped).
        unscored: The samples this metric gave NaN, with the reason.
    """

    name: str = "conflict_score_ratio"
    _field: ClassVar[str] = "cs_r"


def conflict_score_metrics(
    model: Model | str | None = None,
    *,
    scorer: SharedScorer | ConflictScorer | None = None,
    decomposer: str = "llm",
    labeler: str = "llm",
    nli_model: Any = None,
) -> tuple[ConflictScoreCount, ConflictScoreRatio]:
    """CS-C and CS-R metrics that share one scoring of each sample.

    Args:
        model: A conflicteval :class:`~conflicteval.models.Model` or a spec such
            as ``"openai/gpt-4.1-mini"`` (any backend; its cache and retries apply).
        scorer: Use this scorer instead of building one from ``model``.
        decomposer: ``llm`` (the paper's prompt), ``sentence`` or ``whole``.
        labeler: ``llm`` (the paper's prompt, one call per claim-document pair),
            ``llm-per-document``, ``llm-per-claim``, ``nli`` or ``lexical``.
        nli_model: For ``labeler="nli"``: a local model directory or a loaded model.

    Returns:
        ``(ConflictScoreCount, ConflictScoreRatio)``, ready for
        ``ragas.evaluate(dataset, metrics=[...])``.
    """
    shared = shared_scorer(
        scorer, model, decomposer=decomposer, labeler=labeler, nli_model=nli_model
    )
    return ConflictScoreCount(scorer=shared), ConflictScoreRatio(scorer=shared)
