"""ConflictScore as deepeval metrics: :class:`ConflictScoreMetric` (CS-C) and
:class:`ConflictScoreRatioMetric` (CS-R).

deepeval judges ``actual_output`` against the retrieval context pooled into one
text, so it cannot tell that two sources disagree and the output took a side.
ConflictScore reads every ``retrieval_context`` entry as its own document:

* **CS-C** (ConflictScore-Count), the ``score`` of :class:`ConflictScoreMetric`:
  the share of the output's claims that some documents support and others
  contradict.
* **CS-R** (ConflictScore-Ratio), the ``score`` of :class:`ConflictScoreRatioMetric`:
  the mean, over claims with evidence, of contradicting / (supporting +
  contradicting) documents.

``deepeval.evaluate`` keeps of a metric only the fields of deepeval's
``MetricData`` (``score``, ``success``, ``threshold``, ``reason``, ``error``,
token counts, ...), which has no ``score_breakdown``: to get CS-R at full
precision from ``evaluate``, pass both metrics
(:func:`conflict_score_metrics` builds the pair). They share one
:class:`~conflicteval.conflictscore.shared.SharedScorer`, so each test case is
decomposed and labelled once. Called directly (``measure``), each metric also
sets ``score_breakdown`` (CS-C, CS-R, claim counts) and ``result``.

Lower is better for both. **Unlike most deepeval 4 metrics, ``threshold`` is a
maximum**: a test case passes when the score is at or under it (``strict_mode``
sets it to 0). ``reason`` names the conflicted claims and the documents on each
side, by their position in ``retrieval_context`` (from 0), or by their
``source`` when the entries are deepeval's ``RetrievedContextData``.

Documents with a title: write the entry with
:func:`~conflicteval.conflictscore.shared.titled_context` (``"title\n\ntext"``),
the text ``conflicteval score`` sends for a ``{"title", "text"}`` document, so
the prompts are the same.

The model is a conflicteval model (any backend, with its cache and retries),
used through the library's own :class:`ConflictScorer`: prompts, parsers and
aggregation are the library's. A test case that cannot be scored (empty
``retrieval_context``, no claim in the output, no claim that could be
labelled; for CS-R also no claim with evidence) raises with the reason in
``metric.error``, which deepeval reports as an errored metric (or re-raises,
per its ``ErrorConfig``).

Needs the optional extra: ``pip install '.[deepeval]'``.

Example:
    >>> from deepeval import evaluate
    >>> from deepeval.test_case import LLMTestCase
    >>> from conflicteval.adapters.deepeval import conflict_score_metrics
    >>> cs_c, cs_r = conflict_score_metrics("openai/gpt-4.1-mini", threshold=0.2)
    >>> case = LLMTestCase(input="q", actual_output="...", retrieval_context=["...", "..."])
    >>> evaluate([case], [cs_c, cs_r])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conflicteval._sync import run_sync
from conflicteval.adapters._scorer import shared_scorer
from conflicteval.conflictscore.scorer import ConflictScorer, ScoreResult
from conflicteval.conflictscore.shared import (
    SharedScorer,
    conflict_reason,
    titled_context,
    unscored_reason,
)
from conflicteval.errors import MissingDependency, ParseFailure
from conflicteval.models import Model

try:
    from deepeval.errors import MissingTestCaseParamsError
    from deepeval.metrics import BaseMetric
    from deepeval.metrics.indicator import metric_progress_indicator
    from deepeval.metrics.utils import construct_verbose_logs, prepare_measure
    from deepeval.test_case import LLMTestCase, SingleTurnParams
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise MissingDependency("deepeval", "deepeval") from exc

__all__ = [
    "ConflictScoreMetric",
    "ConflictScoreRatioMetric",
    "conflict_score_metrics",
    "titled_context",
]


def _model_name(scorer: ConflictScorer) -> str:
    for stage in (scorer.decomposer, scorer.labeler):
        model = getattr(stage, "model", None)
        if isinstance(model, Model):
            return model.name
    return f"{scorer.decomposer.name}+{scorer.labeler.name}"


# What deepeval checks before measuring (typed Any: deepeval annotates the attribute oddly).
_REQUIRED_PARAMS: Any = (SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.RETRIEVAL_CONTEXT)


def _documents(contexts: Sequence[Any]) -> list[dict[str, str]]:
    """One document per retrieval_context entry, named by its position or its ``source``."""
    docs: list[dict[str, str]] = []
    seen: set[str] = set()
    for j, entry in enumerate(contexts):
        source = getattr(entry, "source", None)
        text = getattr(entry, "context", entry)
        doc_id = str(source) if source and str(source) not in seen else str(j)
        if doc_id in seen:
            doc_id = f"{doc_id}#{j}"
        seen.add(doc_id)
        docs.append({"id": doc_id, "text": str(text)})
    return docs


class ConflictScoreMetric(BaseMetric):
    """CS-C of ``actual_output`` against each ``retrieval_context`` entry (lower is better).

    Args:
        threshold: The largest score that passes (``success`` is score <= threshold).
        model: A conflicteval :class:`~conflicteval.models.Model` or a spec such
            as ``"openai/gpt-4.1-mini"``.
        scorer: Use this scorer instead of building one from ``model``. A
            :class:`SharedScorer` is used as is (metrics given the same one
            score each test case once); a ConflictScorer is wrapped in one.
        decomposer: ``llm`` (the paper's prompt), ``sentence`` or ``whole``.
        labeler: ``llm`` (the paper's prompt, one call per claim-document pair),
            ``llm-per-document``, ``llm-per-claim``, ``nli`` or ``lexical``.
        include_reason: Build ``reason`` (no model call: it lists the
            conflicted claims from the label table).
        async_mode: deepeval's flag (``evaluate`` then calls :meth:`a_measure`);
            either way the calls of one test case run concurrently under the
            model's limit.
        strict_mode: Threshold 0: any conflicted claim fails.
        verbose_mode: Print the label table and the reason.

    After ``measure``: ``score``, ``success``, ``reason``, ``score_breakdown``
    (CS-C, CS-R, claim counts), ``result`` (the full :class:`ScoreResult`),
    ``input_tokens`` / ``output_tokens`` (the calls of the test case; 0 for a
    metric that reused a scoring another metric made). ``deepeval.evaluate``
    keeps only the fields of deepeval's ``MetricData``: not ``score_breakdown``
    or ``result``.
    """

    _required_params = _REQUIRED_PARAMS
    _field = "cs_c"
    _name = "ConflictScore"

    def __init__(
        self,
        threshold: float = 0.0,
        model: Model | str | None = None,
        *,
        scorer: SharedScorer | ConflictScorer | None = None,
        decomposer: str = "llm",
        labeler: str = "llm",
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: bool = False,
        verbose_mode: bool = False,
    ) -> None:
        # Stored as the SharedScorer: deepeval copies a metric per test case by
        # calling __init__ with its attributes, and the copies must share it.
        self.scorer = shared_scorer(scorer, model, decomposer=decomposer, labeler=labeler)
        self.threshold = 0.0 if strict_mode else threshold
        self.include_reason = include_reason
        self.async_mode = async_mode
        self.strict_mode = strict_mode
        self.verbose_mode = verbose_mode
        self.evaluation_model = _model_name(self.scorer.scorer)
        self.using_native_model = False
        self.result: ScoreResult | None = None

    @property
    def __name__(self) -> str:
        return self._name

    def is_successful(self) -> bool:
        """The score at or under the threshold (False after an error)."""
        if self.error is not None or self.score is None or self.threshold is None:
            self.success = False
        else:
            self.success = self.score <= self.threshold
        return bool(self.success)

    def _start(self, test_case: LLMTestCase) -> tuple[str, list[dict[str, str]]]:
        self.error = None
        self.result = None
        prepare_measure(self, test_case)
        contexts = _documents(test_case.retrieval_context or [])
        if not contexts:
            self.error = f"'retrieval_context' is empty for the '{self.__name__}' metric"
            raise MissingTestCaseParamsError(self.error)
        return str(test_case.actual_output), contexts

    async def _score(self, response: str, contexts: list[dict[str, str]]) -> ScoreResult:
        result, self._own_calls = await self.scorer.ascore_owned(response, contexts)
        return result

    def _finish(self, result: ScoreResult) -> float:
        self.result = result
        own = getattr(self, "_own_calls", True)
        self.input_tokens = result.usage.prompt_tokens if own else 0
        self.output_tokens = result.usage.completion_tokens if own else 0
        # deepeval's "token cost": None only when unknown
        self.evaluation_cost = _cost(result) if own else 0.0
        problem = unscored_reason(result, self._field)
        if problem is not None:
            self.score = None
            self.success = False
            self.reason = problem
            self.error = problem
            raise ParseFailure(problem, raw=result.raw)
        agg = result.aggregate
        self.score = getattr(result, self._field)
        self.score_breakdown = {
            "cs_c": result.cs_c,
            "cs_r": result.cs_r,
            "claims": len(result.claims),
            "conflicted_claims": agg.n_conflicted if agg else 0,
            "failed_pairs": result.n_failed_pairs,
        }
        self.reason = conflict_reason(result) if self.include_reason else None
        if self.reason is not None:
            from conflicteval.pricing import cost_text

            self.reason += f" ({cost_text(result.usage)})"
        self.success = self.is_successful()
        self.verbose_logs = construct_verbose_logs(
            self,
            steps=[
                f"Claims: {len(result.claims)}, documents: {len(result.document_ids)}",
                f"Score: {self.score}\nReason: {self.reason}",
            ],
        )
        return float(self.score) if self.score is not None else float("nan")

    def measure(
        self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False
    ) -> float:
        """Score one test case (blocking). See the class docs for what is set."""
        response, contexts = self._start(test_case)
        with metric_progress_indicator(
            self, _show_indicator=_show_indicator, _in_component=_in_component
        ):
            result = run_sync(self._score(response, contexts))
            return self._finish(result)

    async def a_measure(
        self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False
    ) -> float:
        """Score one test case in the running event loop."""
        response, contexts = self._start(test_case)
        with metric_progress_indicator(
            self, async_mode=True, _show_indicator=_show_indicator, _in_component=_in_component
        ):
            result = await self._score(response, contexts)
            return self._finish(result)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(threshold={self.threshold}, scorer={self.scorer.scorer!r})"


class ConflictScoreRatioMetric(ConflictScoreMetric):
    """CS-R of ``actual_output`` against each ``retrieval_context`` entry (lower is better).

    The same arguments and attributes as :class:`ConflictScoreMetric`; ``score``
    is CS-R, ``success`` is CS-R <= ``threshold``. A test case where no claim
    is supported or contradicted by any document has no CS-R: the metric
    errors with that reason. Its deepeval name is ``ConflictScore-Ratio``.
    """

    _field = "cs_r"
    _name = "ConflictScore-Ratio"


def conflict_score_metrics(
    model: Model | str | None = None,
    *,
    threshold: float = 0.0,
    ratio_threshold: float | None = None,
    scorer: SharedScorer | ConflictScorer | None = None,
    decomposer: str = "llm",
    labeler: str = "llm",
    **options: Any,
) -> tuple[ConflictScoreMetric, ConflictScoreRatioMetric]:
    """CS-C and CS-R metrics that share one scoring of each test case.

    Args:
        model: A conflicteval model or spec (see :class:`ConflictScoreMetric`).
        threshold: The CS-C metric's threshold (a maximum).
        ratio_threshold: The CS-R metric's threshold (default: ``threshold``).
        scorer: Use this scorer instead of building one from ``model``.
        decomposer: The decomposer's short name.
        labeler: The labeler's short name.
        **options: Passed to both metrics (``include_reason``, ``async_mode``,
            ``strict_mode``, ``verbose_mode``).

    Returns:
        ``(ConflictScoreMetric, ConflictScoreRatioMetric)``, ready for
        ``deepeval.evaluate(test_cases, [cs_c, cs_r])``.
    """
    shared = shared_scorer(scorer, model, decomposer=decomposer, labeler=labeler)
    ratio = threshold if ratio_threshold is None else ratio_threshold
    return (
        ConflictScoreMetric(threshold, scorer=shared, **options),
        ConflictScoreRatioMetric(ratio, scorer=shared, **options),
    )


def _cost(result: ScoreResult) -> float | None:
    """Estimated dollars of the calls sent for ``result`` (0.0 when none was sent; None when
    a model they went to has no known price)."""
    from conflicteval.pricing import lookup

    usage = result.usage
    if not usage.sent_calls:
        return 0.0
    if not usage.models or any(lookup(m) is None for m in usage.models):
        return None
    return usage.cost_usd
