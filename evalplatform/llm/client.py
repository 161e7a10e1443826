"""The one entry point the pipeline calls: cache, budget, rate limit, retry, provider, usage."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from evalplatform.llm.cache import ResponseCache, cache_key
from evalplatform.llm.pricing import Budget, cost_usd, rough_token_count
from evalplatform.llm.providers.base import Provider
from evalplatform.llm.ratelimit import Limiter
from evalplatform.llm.retry import RetryPolicy, call_with_retry
from evalplatform.llm.types import LLMRequest, LLMResponse

DEFAULT_RETRY = RetryPolicy()


@dataclass(frozen=True)
class Usage:
    """Counters of one client. ``calls`` are provider calls that succeeded (each retry attempt is in
    ``attempts``); ``cache_hits`` cost nothing and add no tokens."""

    calls: int = 0
    attempts: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class LLMClient:
    def __init__(
        self,
        provider: Provider,
        *,
        endpoint_name: str,
        cache: ResponseCache | None = None,
        limiter: Limiter | None = None,
        retry_policy: RetryPolicy = DEFAULT_RETRY,
        price_in: float = 0.0,
        price_out: float = 0.0,
        budget: Budget | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self.provider = provider
        self.endpoint_name = endpoint_name
        self.cache = cache
        self.limiter = limiter
        self.retry_policy = retry_policy
        self.price_in = price_in
        self.price_out = price_out
        self.budget = budget
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._usage = Usage()

    def __repr__(self) -> str:
        return f"LLMClient({self.provider!r}, endpoint_name={self.endpoint_name!r})"

    @property
    def usage(self) -> Usage:
        with self._lock:
            return self._usage

    def key_for(self, request: LLMRequest, prompt_version: str) -> str:
        return cache_key(self.provider.name, request.model, request.canonical(), prompt_version)

    def call(self, request: LLMRequest, *, prompt_version: str, use_cache: bool = True) -> LLMResponse:
        """One model call. A cache hit returns the stored response with ``cached=True`` and cost 0.
        A miss reserves the worst-case cost on the budget (``BudgetExceeded`` before anything is sent),
        waits for a slot, calls the provider with retries on transient errors, stores the response,
        and returns it with its cost. ``use_cache=False`` neither reads nor writes the cache."""
        key = self.key_for(request, prompt_version) if self.cache is not None and use_cache else None
        if key is not None:
            assert self.cache is not None
            hit = self.cache.get(key)
            if hit is not None:
                self._record(hits=1)
                return hit.with_changes(cached=True, cost_usd=0.0)
        reserved = 0.0
        if self.budget is not None:
            worst = cost_usd(
                rough_token_count(request.text_for_counting()),
                request.max_tokens,
                self.price_in,
                self.price_out,
            )
            reserved = self.budget.reserve(worst)
        attempts = 0

        def attempt() -> LLMResponse:
            nonlocal attempts
            attempts += 1
            if self.limiter is None:
                return self.provider.complete(request)
            with self.limiter.slot():
                return self.provider.complete(request)

        try:
            response = call_with_retry(attempt, self.retry_policy, sleep=self._sleep, rng=self._rng)
        except BaseException:
            if self.budget is not None:
                self.budget.release(reserved)
            self._record(attempts=attempts)
            raise
        cost = cost_usd(response.input_tokens, response.output_tokens, self.price_in, self.price_out)
        if self.budget is not None:
            self.budget.settle(reserved, cost)
        response = response.with_changes(cached=False, cost_usd=cost)
        if key is not None:
            assert self.cache is not None
            self.cache.put(key, response)
        self._record(
            calls=1,
            attempts=attempts,
            input_tokens=response.input_tokens,
            output_tokens=response.output_tokens,
            cost=cost,
        )
        return response

    def _record(
        self,
        *,
        calls: int = 0,
        attempts: int = 0,
        hits: int = 0,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost: float = 0.0,
    ) -> None:
        with self._lock:
            u = self._usage
            self._usage = Usage(
                calls=u.calls + calls,
                attempts=u.attempts + attempts,
                cache_hits=u.cache_hits + hits,
                input_tokens=u.input_tokens + input_tokens,
                output_tokens=u.output_tokens + output_tokens,
                cost_usd=u.cost_usd + cost,
            )
