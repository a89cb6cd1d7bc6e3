"""One scoring per response, shared by several consumers (the ragas and deepeval adapters).

Harness adapters need three things the scorer itself does not give:

* a :class:`~conflicteval.conflictscore.ConflictScorer` built from a model spec
  and the command line's short names (:func:`build_scorer`);
* a memo, so that two metrics reading the same response and documents (ragas's
  CS-C and CS-R) share one decomposition and one labelling, also when the
  harness runs them concurrently (:class:`SharedScorer`);
* a plain-text reason naming the conflicted claims and the documents on each
  side (:func:`conflict_reason`);
* a context string for a titled document that gives the prompt ``conflicteval
  score`` sends for it (:func:`titled_context`).

Nothing here parses, prompts or aggregates: that stays in the scorer.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Sequence
from typing import Any

from conflicteval.fingerprint import fingerprint
from conflicteval.models import Model, get_model
from conflicteval.types import Document

from .factory import make_scorer, needs_model
from .labelers import document_text
from .score_results import score_text
from .scorer import ConflictScorer, ScoreResult

__all__ = ["SharedScorer", "build_scorer", "conflict_reason", "titled_context", "unscored_reason"]


def build_scorer(
    model: Model | str | None = None,
    *,
    decomposer: str = "llm",
    labeler: str = "llm",
    nli_model: Any = None,
) -> ConflictScorer:
    """A ConflictScorer from a model and the short stage names of ``conflicteval score``.

    Args:
        model: A :class:`~conflicteval.models.Model` or a spec such as
            ``"openai/gpt-4.1-mini"`` (any backend; its cache and retries apply).
        decomposer: ``llm`` (the paper's Table 6 prompt), ``sentence`` or ``whole``.
        labeler: ``llm`` (the paper's Table 7 prompt, one call per pair),
            ``llm-per-document``, ``llm-per-claim``, ``nli`` or ``lexical``.
        nli_model: For ``labeler="nli"``: a local model directory or a loaded model.

    Raises:
        ValueError: Unknown stage name, or an LLM stage without a model.
    """
    resolved = get_model(model) if isinstance(model, str) else model
    if resolved is None and (needs_model(decomposer) or needs_model(labeler)):
        raise ValueError(
            f"the {decomposer!r} decomposer / {labeler!r} labeler need a model "
            "(a conflicteval Model or a spec such as 'openai/gpt-4.1-mini')"
        )
    scorer: ConflictScorer = make_scorer(decomposer, labeler, resolved, nli_model=nli_model)
    return scorer


def _key(response: str, documents: Sequence[Any]) -> str:
    return fingerprint([response, list(documents)])


class SharedScorer:
    """A ConflictScorer with a per-sample memo keyed by the response and documents.

    The first request for a (response, documents) pair scores it; every later
    request, also one made concurrently from another task, thread or event
    loop, waits for and reuses that result, so it makes no model call. A
    failure (the model call failed for good) is memoised too and raised again
    to every consumer. :meth:`clear` empties the memo.

    Args:
        scorer: The scorer doing the work.

    Attributes:
        scorer: The wrapped ConflictScorer.
        scored: How many samples were actually scored (memo misses).
    """

    def __init__(self, scorer: ConflictScorer) -> None:
        self.scorer = scorer
        self.scored = 0
        self._memo: dict[str, concurrent.futures.Future[ScoreResult]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SharedScorer({self.scorer!r}, memo={len(self._memo)})"

    def __len__(self) -> int:
        return len(self._memo)

    @property
    def model(self) -> Model | None:
        """The model of the decomposer or labeler (None for offline stages)."""
        for stage in (self.scorer.decomposer, self.scorer.labeler):
            found = getattr(stage, "model", None)
            if isinstance(found, Model):
                return found
        return None

    def clear(self) -> None:
        """Forget every memoised result (the model's own cache still holds the replies)."""
        with self._lock:
            self._memo.clear()

    def get(self, response: str, documents: Sequence[Any]) -> ScoreResult | None:
        """The memoised result of a sample (None if it was not scored, or failed)."""
        with self._lock:
            future = self._memo.get(_key(response, documents))
        if future is None or not future.done() or future.exception() is not None:
            return None
        return future.result()

    async def ascore(self, response: str, documents: Sequence[Any]) -> ScoreResult:
        """The ScoreResult of ``response`` against ``documents``, scored at most once.

        Raises:
            ModelError: A model call failed for good (also for later requests
                of the same sample).
        """
        result, _ = await self.ascore_owned(response, documents)
        return result

    async def ascore_owned(
        self, response: str, documents: Sequence[Any]
    ) -> tuple[ScoreResult, bool]:
        """Like :meth:`ascore`, and whether this request did the scoring (made the calls).

        ``documents`` are what :class:`ConflictScorer` accepts: texts, or
        ``{"id", "title", "text"}`` mappings.
        """
        key = _key(response, documents)
        with self._lock:
            future = self._memo.get(key)
            owner = future is None
            if future is None:
                future = concurrent.futures.Future()
                self._memo[key] = future
                self.scored += 1
        if not owner:
            return await asyncio.wrap_future(future), False
        try:
            result = await self.scorer.ascore(response, list(documents))
        except Exception as exc:
            future.set_exception(exc)
            raise
        except BaseException:
            # Cancelled (a harness timeout, Ctrl-C): not a result of the sample.
            # Forget it so a later request scores afresh; tell current waiters.
            with self._lock:
                if self._memo.get(key) is future:
                    del self._memo[key]
            future.set_exception(RuntimeError("scoring of this sample was cancelled"))
            raise
        future.set_result(result)
        return result, True


def titled_context(title: str | None, text: str) -> str:
    """A harness context string for a document with a title: ``"title\n\ntext"``.

    ragas's ``retrieved_contexts`` and deepeval's ``retrieval_context`` hold
    plain strings. Written with this function, a context is the exact text
    ``conflicteval score`` (and every labeler) shows for the document
    ``{"title": title, "text": text}``, so both send the same prompts. An empty
    title, or a text that already starts with the title, gives ``text``
    unchanged, as :func:`~conflicteval.conflictscore.labelers.document_text` does.
    """
    return document_text(Document(id="0", title=title or None, text=text))


def unscored_reason(result: ScoreResult, which: str = "cs_c") -> str | None:
    """Why ``result`` has no value for ``which`` (``cs_c`` or ``cs_r``), or None if it has one."""
    if result.error:
        return f"not scored: {result.error}"
    value = result.cs_c if which == "cs_c" else result.cs_r
    if value is not None:
        return None
    agg = result.aggregate
    if which == "cs_c":
        failed = agg.n_failed_pairs if agg else 0
        return f"CS-C undefined: no claim could be labelled ({failed} failed pairs)"
    return "CS-R undefined: no claim is supported or contradicted by any document"


def _docs(indices: Sequence[int], ids: Sequence[str]) -> str:
    return ", ".join(ids[j] for j in indices)


def conflict_reason(result: ScoreResult, max_claims: int = 10) -> str:
    """A short text: the scores, then each conflicted claim with the documents on each side.

    Documents are named by their ids (for a plain list of contexts: their
    positions, from 0).
    """
    if result.error:
        return f"not scored: {result.error}"
    agg = result.aggregate
    if agg is None:  # pragma: no cover - an unscored result always has an error
        return "not scored"

    head = (
        f"CS-C {score_text(agg.cs_c)}: {agg.n_conflicted} of {agg.n_scored} claims are supported "
        f"by some documents and contradicted by others; CS-R {score_text(agg.cs_r)}."
    )
    parts = [head]
    ids = result.document_ids
    conflicted = agg.conflicted_claims
    for i in conflicted[:max_claims]:
        parts.append(
            f"Conflicted: {result.claims[i]!r} is supported by document(s) "
            f"{_docs(agg.supporting[i], ids)} and contradicted by document(s) "
            f"{_docs(agg.contradicting[i], ids)}."
        )
    if len(conflicted) > max_claims:
        parts.append(f"(and {len(conflicted) - max_claims} more conflicted claims)")
    if agg.n_failed_pairs:
        parts.append(f"{agg.n_failed_pairs} of {agg.n_pairs} claim-document pairs failed.")
    return " ".join(parts)
