"""The core model wrapper: cache, retries, concurrency limits and usage accounting.

Providers only translate requests; everything that makes a long evaluation run
cheap and robust lives here, once. Its parts: ``usage_scopes`` (per-item usage),
``limits`` (concurrency per endpoint and model) and ``structured`` (messages,
schemas, parsing a JSON reply); their names stay importable from here.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sqlite3
import sys
import time
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, wait_random_exponential

from conflicteval import pricing
from conflicteval._calltimes import record_latency
from conflicteval._fatal import report_fatal
from conflicteval._sync import run_sync
from conflicteval.cache import ResponseCache, cache_key
from conflicteval.cache_values import hit_usage, stored_value
from conflicteval.errors import ModelError
from conflicteval.models.answerers import active_answerer
from conflicteval.models.base import Provider, ProviderError, ProviderRequest, ProviderResponse
from conflicteval.models.call import call_of
from conflicteval.models.decoding import (
    DEFAULT_DECODING,
    DecodingPolicy,
    SentDecoding,
    note_deviations,
    refusal_hint,
)
from conflicteval.models.endpoint import (
    SCHEMA_REFUSED,
    dead_endpoint,
    learned_schema_refusal,
    note_answered,
    note_schema_refused,
)
from conflicteval.models.limits import _semaphore
from conflicteval.models.schemas import class_schema_text, key_with_schema_text
from conflicteval.models.structured import (
    REASK_TEMPLATE,
    _normalise_messages,
    _parse_structured,
    _schema_of,
    after_reask,
    dumps_messages,
    reask_messages,
)
from conflicteval.models.usage_scopes import Reply, issue_number, usage_scope
from conflicteval.types import CUT_OFF, Completion, Message, Usage

__all__ = ["REASK_TEMPLATE", "Model", "dumps_messages", "usage_scope"]

log = logging.getLogger("conflicteval.models")


class Model:
    """A model behind one provider, with cache, retries, concurrency and usage.

    Create it with :func:`conflicteval.get_model`. Attributes ``usage`` (totals),
    ``cache`` (or None) and ``provider`` are public.

    Args:
        provider: The backend that translates requests.
        cache: A ResponseCache, or None for no caching.
        max_concurrency: Calls in flight at once per (base URL, model).
        timeout: Seconds for one attempt, request sent to reply's last byte (None: no limit).
        max_attempts: Attempts per call, including the first.
        max_retry_time: Give up retrying after this many seconds in all.
        max_retry_wait: Cap on one wait, also on a server's Retry-After.
        backoff_initial: First backoff (seconds) of the exponential jitter.
        backoff_max: Cap of the exponential jitter.
        prompt_version: Default prompt-template version (part of the cache key).
        max_output_tokens, reasoning_effort: With the provider's ``capabilities``, they
            make ``decoding``, what is sent and keyed (:mod:`conflicteval.models.decoding`).

    A Model pickles as its configuration: the provider leaves its HTTP clients behind and
    the cache pickles as its directory, so a copy in another process (a Ray worker) builds
    its own on first use. Usage and failures counted there stay there (per-item usage
    travels in records).
    """

    def __init__(
        self,
        provider: Provider,
        *,
        cache: ResponseCache | None = None,
        max_concurrency: int = 16,
        timeout: float | None = 60.0,
        max_attempts: int = 6,
        max_retry_time: float = 600.0,
        max_retry_wait: float = 120.0,
        backoff_initial: float = 1.0,
        backoff_max: float = 60.0,
        prompt_version: str | None = None,
        max_output_tokens: int | None = None,
        reasoning_effort: str | None = None,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.provider = provider
        self.cache = cache
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.max_retry_time = max_retry_time
        self.max_retry_wait = max_retry_wait
        self.prompt_version = prompt_version
        self.usage = Usage()
        self.failures = 0
        self._said_timeouts = False  # the hint on time-outs is given once
        self._jitter = wait_random_exponential(multiplier=backoff_initial, max=backoff_max)
        self.decoding = DecodingPolicy.of(provider, max_output_tokens, reasoning_effort)
        if learned_schema_refusal(cache, provider.base_url):  # an earlier run saw it refused
            provider.supports_schema = False

    @property
    def name(self) -> str:
        """``provider/model``, e.g. ``openai/gpt-4o-mini``."""
        return f"{self.provider.name}/{self.provider.model}"

    def __repr__(self) -> str:
        return f"Model({self.name!r}, base_url={self.provider.base_url!r})"

    # -- keys ---------------------------------------------------------------
    def key_components(self, messages: Sequence[Message] | str, **options: Any) -> dict[str, Any]:
        """Everything that can change the answer, as it enters the cache key.

        ``options`` are :meth:`generate`'s keyword arguments; what is not given takes
        :meth:`generate`'s default, read from its signature (the defaults live there only).
        """
        call = inspect.signature(Model.generate).bind(self, messages, **options)
        call.apply_defaults()
        given = call.arguments
        schema, _, _ = _schema_of(given["response_schema"])
        sent = self.decoding.sent(
            given["temperature"], given["max_tokens"], given["seed"], given["extra"]
        )
        msgs = _normalise_messages(messages)
        return self._components(msgs, sent, schema, given["prompt_version"])

    def _components(
        self,
        messages: list[Message],
        sent: SentDecoding,
        schema: dict[str, Any] | None,
        prompt_version: str | None,
    ) -> dict[str, Any]:
        """The cache key's components: the settings as sent, not as the protocol asked."""
        temperature = sent.temperature  # 0 and 0.0 are the same request:
        if isinstance(temperature, int) and not isinstance(temperature, bool):
            temperature = float(temperature)
        components = {
            "provider": self.provider.name,
            "model": self.provider.model,
            "base_url": self.provider.base_url,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": sent.max_tokens,
            "seed": sent.seed,
            "response_schema": schema,
            "prompt_version": prompt_version if prompt_version is not None else self.prompt_version,
            "extra": sent.extra,
            **sent.key_part(),
        }
        # a provider setting that changes what is sent (Anthropic's API version): in the key
        # only when set, so the keys of every other call stay as they were
        settings = getattr(self.provider, "key_settings", None)
        if settings:
            components["provider_settings"] = settings
        return components

    def cache_key(self, messages: Sequence[Message] | str, **settings: Any) -> str:
        """The cache key of a call with these messages and settings."""
        return cache_key(self.key_components(messages, **settings))

    def is_cached(self, messages: Sequence[Message] | str, **settings: Any) -> bool:
        """Whether this call would be served from the cache (no network)."""
        if self.cache is None:
            return False
        return self.cache.contains(self.cache_key(messages, **settings))

    # -- calls --------------------------------------------------------------
    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        if isinstance(exc, ProviderError) and exc.retry_after is not None:
            return min(exc.retry_after, self.max_retry_wait)
        return min(float(self._jitter(state)), self.max_retry_wait)

    async def _complete(self, request: ProviderRequest) -> ProviderResponse:
        """One request to the provider, within ``timeout`` seconds from start to last byte.

        The HTTP client's own timeout only limits each wait for data (a server dripping
        its reply would pass it for ever); this deadline bounds the whole attempt, and
        missing it is a retryable failure like any timeout.
        """
        if self.timeout is None:
            return await self.provider.complete(request, None)
        try:  # asyncio.timeout: no extra task per request, as wait_for makes before 3.12
            if sys.version_info >= (3, 11):
                async with asyncio.timeout(self.timeout):
                    return await self.provider.complete(request, self.timeout)
            call = self.provider.complete(request, self.timeout)  # pragma: no cover - 3.10
            return await asyncio.wait_for(call, self.timeout)  # pragma: no cover - 3.10
        except asyncio.TimeoutError:
            # the provider's own words for its client's timeout: whichever of the two
            # fires first, a record reads the same (fresh and resumed runs compare equal)
            raise ProviderError(
                f"request timed out after {self.timeout}s", retryable=True
            ) from None

    async def _attempt(self, request: ProviderRequest) -> ProviderResponse:
        """One attempt (the caller holds the semaphore); falls back once on a schema refusal."""
        try:
            return await self._complete(request)
        except ProviderError as exc:
            if exc.schema_rejected and request.response_schema is not None:
                if note_schema_refused(self.provider.base_url, self.cache):  # kept for later
                    log.warning(SCHEMA_REFUSED, self.name, self.provider.base_url)
                self.provider.supports_schema = False
                return await self._complete(request)
            raise

    def _failed_attempt(self, error: ProviderError, sem: asyncio.Semaphore) -> None:
        """Tell the observers of a failed attempt; say once what to change on time-outs."""
        timed_out = str(error).startswith("request timed out")
        active_answerer().attempted(self.name, "timeout" if timed_out else "failure")
        waiting = len(getattr(sem, "_waiters", None) or ())
        if timed_out and waiting and not self._said_timeouts:
            self._said_timeouts = True
            log.warning(
                "%s: calls are timing out after %gs while %d more wait for one of %d slots; a "
                "server that answers few requests at once needs fewer calls in flight "
                "(--model-concurrency, now %d) or more time per call (--timeout)",
                self.name,
                self.timeout,
                waiting,
                self.max_concurrency,
                self.max_concurrency,
            )

    async def _call(self, request: ProviderRequest) -> ProviderResponse:
        sem = _semaphore(self.provider.base_url, self.provider.model, self.max_concurrency)
        start = time.monotonic()
        # Fast path: the first attempt runs without the retry machinery, whose set-up
        # cost about two thirds of this wrapper's CPU time per call (see docs/benchmarks.md).
        async with sem:
            try:
                return await self._attempt(request)
            except ProviderError as exc:
                error = exc
                self._failed_attempt(exc, sem)
        attempts = 1
        dead = dead_endpoint(self.provider.base_url, self.provider.model, error)
        if error.retryable and self.max_attempts > 1 and dead is None:
            deadline = start + self.max_retry_time

            def stop(state: RetryCallState) -> bool:
                if state.attempt_number >= self.max_attempts:
                    return True
                # tenacity >= 8.3 knows the coming wait: never begin one that ends past the limit
                return time.monotonic() + getattr(state, "upcoming_sleep", 0.0) >= deadline

            retrying = AsyncRetrying(
                stop=stop,
                wait=self._wait,
                retry=retry_if_exception(lambda e: isinstance(e, ProviderError) and e.retryable),
                reraise=True,
            )
            try:
                async for attempt in retrying:
                    with attempt:
                        if attempt.retry_state.attempt_number == 1:
                            raise error  # replay the first failure: tenacity waits, then retries
                        attempts = attempt.retry_state.attempt_number
                        log.info("%s: retry %d", self.name, attempts - 1)
                        active_answerer().attempted(self.name, "retry")
                        async with sem:
                            try:
                                return await self._attempt(request)
                            except ProviderError as exc:
                                self._failed_attempt(exc, sem)
                                raise
            except ProviderError as exc:
                error = exc
        self.failures += 1
        # a 400 refusing a decoding parameter: every call would be refused alike
        hint = dead or refusal_hint(self.name, error.status, str(error))
        failure = ModelError(
            f"{self.name}: {error} (after {attempts} attempt{'s' if attempts != 1 else ''})",
            status=error.status,
            retryable=error.retryable,
            attempts=attempts,
            fatal=error.status in (401, 403) or getattr(error, "fatal", False) or bool(hint),
            hint=hint,
        )
        if failure.fatal:  # a refused or missing key, a dead endpoint: every call fails alike
            report_fatal(failure)
        raise failure from None

    def _key(
        self,
        messages: list[Message],
        sent: SentDecoding,
        schema: dict[str, Any] | None,
        prompt_version: str | None,
        schema_text: str | None,
    ) -> str | None:
        """The call's cache key (None without a cache)."""
        if self.cache is None:
            return None
        components = self._components(messages, sent, schema, prompt_version)
        if schema_text is not None and components["response_schema"] is schema:
            return key_with_schema_text(components, schema_text)
        return cache_key(components)

    def _from_cache(self, key: str, decoding: list[str]) -> Completion | None:
        """The stored reply under ``key`` as a cached Completion; None on a miss."""
        if self.cache is None:
            return None
        try:
            hit = self.cache.get(key)
        except (sqlite3.Error, OSError, ValueError) as exc:  # the cache never fails a call
            log.warning("%s: could not read the cache: %s", self.name, exc)
            hit = None
        if hit is None:
            return None
        usage = hit_usage(hit, decoding)  # replayed, not sent
        return Completion(
            text=hit["text"],
            finish_reason=hit.get("finish_reason"),
            usage=usage,
            cached=True,
            model=self.name,
        )

    def _store(self, key: str, resp: ProviderResponse) -> None:
        """Keep a whole reply in the cache (a failure to store never loses the reply)."""
        if self.cache is None:
            return
        value = stored_value(resp)
        try:
            self.cache.put(key, self.name, value)
        except (sqlite3.Error, OSError) as exc:  # disk full, locked too long: keep the reply
            log.warning("%s: could not store the reply in the cache: %s", self.name, exc)

    async def _raw(
        self,
        messages: list[Message],
        settings: dict[str, Any],
        schema: dict[str, Any] | None,
        schema_name: str,
        prompt_version: str | None,
        extra: dict[str, Any],
        schema_text: str | None = None,
    ) -> Completion:
        sent = self.decoding.sent(
            settings["temperature"], settings["max_tokens"], settings["seed"], extra
        )
        decoding = note_deviations(self.name, sent) if sent.deviations else []
        key = self._key(messages, sent, schema, prompt_version, schema_text)
        request = ProviderRequest(
            messages=messages,
            temperature=sent.temperature,
            max_tokens=sent.max_tokens,
            seed=sent.seed,
            response_schema=schema,
            schema_name=schema_name,
            extra=sent.extra,
            token_field=sent.token_field,
            reasoning_effort=sent.reasoning_effort,
        )
        answerer, call = active_answerer(), call_of(self, key, request)
        issued = issue_number()  # an item's replies are kept in the order its calls were made
        if self.cache is not None and key is not None:
            hit = self._from_cache(key, decoding)
            if hit is not None:
                self.usage.add(hit.usage)  # the answerer counts it for the run and the item
                hit_reply: Reply = (issued, self.name, hit.text, True, hit.finish_reason, None)
                answerer.cached(call, hit.usage, hit_reply)
                return hit
        # online (HTTP), or a dry run / batch export / replay raising PendingCall (answerers.py)
        started = time.perf_counter()
        resp = await answerer.answer(call)
        latency = time.perf_counter() - started
        record_latency(latency)
        note_answered(self.provider.base_url, self.provider.model)
        truncated = resp.finish_reason == "length"
        usage = Usage(
            prompt_tokens=resp.prompt_tokens,
            completion_tokens=resp.completion_tokens,
            calls=1,
            truncated=int(truncated),
            models=[self.name],
            cost_usd=pricing.call_cost(self.name, resp.prompt_tokens, resp.completion_tokens),
            reasoning_tokens=resp.reasoning_tokens,
            decoding=decoding,
        )
        self.usage.add(usage)  # an empty reply was still a call the server answered (and bills)
        answerer.answered(
            call, usage, (issued, self.name, resp.text, False, resp.finish_reason, latency)
        )
        if not resp.text.strip():
            self.failures += 1
            raise ModelError(
                f"{self.name}: empty completion (finish_reason={resp.finish_reason})",
                retryable=False,
            )
        if truncated:
            # a reply cut short is never stored: a later run (perhaps with a larger
            # max_tokens key, perhaps the same) asks again instead of reusing half an answer
            log.info("%s: reply cut off by max_tokens (not cached)", self.name)
        elif self.cache is not None and key is not None:
            self._store(key, resp)
        return Completion(
            text=resp.text, finish_reason=resp.finish_reason, usage=usage, model=self.name
        )

    async def generate(
        self,
        messages: Sequence[Message] | str,
        *,
        temperature: float | None = DEFAULT_DECODING.temperature,
        max_tokens: int | None = DEFAULT_DECODING.max_tokens,
        seed: int | None = DEFAULT_DECODING.seed,
        response_schema: dict[str, Any] | type[BaseModel] | None = None,
        prompt_version: str | None = None,
        **extra: Any,
    ) -> Completion:
        """Generate one completion.

        Defaults follow the WikiContradict paper: temperature 0, at most 250
        new tokens, seed 5.

        Args:
            messages: Chat messages (or a string, sent as one user message).
            temperature: Sampling temperature (None: the server's default).
            max_tokens: Maximum new tokens (None: the server's default).
            seed: Sampling seed (None: not sent).
            response_schema: A JSON schema dict or a pydantic model class. The
                reply is parsed and validated into ``Completion.parsed``; a
                reply that fails is re-asked once, then reported in
                ``Completion.parse_error`` with the raw text in ``text``.
            prompt_version: The prompt template's version (part of the cache key).
            **extra: Further request parameters (``top_p``, ``stop``, ...),
                passed to the provider and part of the cache key.

        Returns:
            The completion, with usage and whether it came from the cache.

        Raises:
            ModelError: The call failed for good, or the reply was empty.
        """
        msgs = _normalise_messages(messages)
        schema, schema_model, schema_name = _schema_of(response_schema)
        settings = {"temperature": temperature, "max_tokens": max_tokens, "seed": seed}
        # a class's schema is encoded for the cache key once, not on every call
        text = class_schema_text(schema_model) if schema_model is not None else None
        out = await self._raw(msgs, settings, schema, schema_name, prompt_version, extra, text)
        if schema is None:
            return out
        if out.truncated:
            # Half a structured answer is no answer, even when a JSON object in it parses;
            # no re-ask: with the same max_tokens it would most likely be cut off again.
            out.parse_error = CUT_OFF
            return out
        parsed, error = _parse_structured(out.text, schema, schema_model)
        if error is None:
            out.parsed = parsed
            return out
        reask = reask_messages(msgs, out.text, error)
        second = await self._raw(reask, settings, schema, schema_name, prompt_version, extra, text)
        return after_reask(out, error, second, schema, schema_model)

    async def aclose(self) -> None:
        """Close the provider's HTTP client for the running event loop.

        Call it before an ``asyncio.run(...)`` that used this model returns, when a program
        runs several event loops in turn (else its connections close when the loop goes).
        """
        close = getattr(self.provider, "aclose", None)
        if close is not None:
            await close()

    def generate_sync(self, messages: Sequence[Message] | str, **settings: Any) -> Completion:
        """Synchronous :meth:`generate`; also works inside a running event loop."""
        return run_sync(self.generate(messages, **settings))
