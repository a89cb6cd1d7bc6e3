"""ConflictScore as a deepeval metric: :class:`ConflictScoreMetric`.

deepeval judges ``actual_output`` against the retrieval context pooled into one
text, so it cannot tell that two sources disagree and the output took a side.
ConflictScore reads every ``retrieval_context`` entry as its own document:

* **CS-C** (ConflictScore-Count), the metric's ``score``: the share of the
  output's claims that some documents support and others contradict.
* **CS-R** (ConflictScore-Ratio), in ``score_breakdown``: the mean, over claims
  with evidence, of contradicting / (supporting + contradicting) documents.

Lower is better for both. **Unlike most deepeval 4 metrics, ``threshold`` is a
maximum**: a test case passes when CS-C is at or under it (``strict_mode``
sets it to 0: no conflicted claim at all). ``reason`` names the conflicted
claims and the documents on each side, by their position in
``retrieval_context`` (from 0), or by their ``source`` when the entries are
deepeval's ``RetrievedContextData``.

The model is a conflicteval model (any backend, with its cache and retries),
used through the library's own :class:`ConflictScorer`: prompts, parsers and
aggregation are the library's. A test case that cannot be scored (empty
``retrieval_context``, no claim in the output, no claim that could be
labelled) raises with the reason in ``metric.error``, which deepeval reports
as an errored metric (or re-raises, per its ``ErrorConfig``).

Needs the optional extra: ``pip install 'conflicteval[deepeval]'``.

Example:
    >>> from deepeval import evaluate
    >>> from deepeval.test_case import LLMTestCase
    >>> from conflicteval.deepeval import ConflictScoreMetric
    >>> metric = ConflictScoreMetric(model="openai/gpt-4.1-mini", threshold=0.2)
    >>> case = LLMTestCase(input="q", actual_output="...", retrieval_context=["...", "..."])
    >>> evaluate([case], [metric])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from conflicteval._sync import run_sync
from conflicteval.conflictscore.scorer import ConflictScorer, ScoreResult
from conflicteval.conflictscore.shared import build_scorer, conflict_reason, unscored_reason
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

__all__ = ["ConflictScoreMetric"]


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
        threshold: The largest CS-C that passes (``success`` is CS-C <= threshold).
        model: A conflicteval :class:`~conflicteval.models.Model` or a spec such
            as ``"openai/gpt-4.1-mini"``.
        scorer: Use this ConflictScorer instead of building one from ``model``.
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

    After ``measure``: ``score`` (CS-C), ``success``, ``reason``,
    ``score_breakdown`` (CS-C, CS-R, claim counts), ``result`` (the full
    :class:`ScoreResult`), ``input_tokens`` / ``output_tokens``.
    """

    _required_params = _REQUIRED_PARAMS

    def __init__(
        self,
        threshold: float = 0.0,
        model: Model | str | None = None,
        *,
        scorer: ConflictScorer | None = None,
        decomposer: str = "llm",
        labeler: str = "llm",
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: bool = False,
        verbose_mode: bool = False,
    ) -> None:
        self.scorer = scorer or build_scorer(model, decomposer=decomposer, labeler=labeler)
        self.threshold = 0.0 if strict_mode else threshold
        self.include_reason = include_reason
        self.async_mode = async_mode
        self.strict_mode = strict_mode
        self.verbose_mode = verbose_mode
        self.evaluation_model = _model_name(self.scorer)
        self.using_native_model = False
        self.result: ScoreResult | None = None

    @property
    def __name__(self) -> str:
        return "ConflictScore"

    def is_successful(self) -> bool:
        """CS-C at or under the threshold (False after an error)."""
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

    def _finish(self, result: ScoreResult) -> float:
        self.result = result
        self.input_tokens = result.usage.prompt_tokens
        self.output_tokens = result.usage.completion_tokens
        self.evaluation_cost = _cost(result)  # deepeval's "token cost": None only when unknown
        problem = unscored_reason(result, "cs_c")
        if problem is not None:
            self.score = None
            self.success = False
            self.reason = problem
            self.error = problem
            raise ParseFailure(problem, raw=result.raw)
        agg = result.aggregate
        self.score = result.cs_c
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
            result = run_sync(self.scorer.ascore(response, contexts))
            return self._finish(result)

    async def a_measure(
        self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False
    ) -> float:
        """Score one test case in the running event loop."""
        response, contexts = self._start(test_case)
        with metric_progress_indicator(
            self, async_mode=True, _show_indicator=_show_indicator, _in_component=_in_component
        ):
            result = await self.scorer.ascore(response, contexts)
            return self._finish(result)

    def __repr__(self) -> str:
        return f"ConflictScoreMetric(threshold={self.threshold}, scorer={self.scorer!r})"


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
