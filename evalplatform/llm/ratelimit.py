"""Per-endpoint concurrency limit and token-bucket rate limit, thread-safe, keyed by endpoint name.

These bound one process. The runs app shares one limit per endpoint between every worker process on every
machine when a Redis is configured (``evalplatform.runs.limits``); without one, each process holds its own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol


class Limiter(Protocol):
    """What the client needs of a limiter: a slot to hold while one call is in flight."""

    def slot(self) -> AbstractContextManager[None]: ...


class TokenBucket:
    """``rate_per_s`` tokens per second, at most ``burst`` stored; ``acquire`` blocks until one is free."""

    def __init__(
        self,
        rate_per_s: float,
        burst: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate_per_s <= 0:
            raise ValueError("rate_per_s must be > 0")
        if burst < 1:
            raise ValueError("burst must be >= 1")
        self.rate_per_s = rate_per_s
        self.burst = burst
        self._clock = clock
        self._sleep = sleep
        self._tokens = burst
        self._updated = clock()
        self._lock = threading.Lock()

    def _reserve(self) -> float:
        """Take one token (possibly going negative) and return how long the caller must wait."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate_per_s)
            self._updated = now
            self._tokens -= 1.0
            if self._tokens >= 0:
                return 0.0
            return -self._tokens / self.rate_per_s

    def acquire(self) -> float:
        """Block until the caller may go; returns the time waited (seconds)."""
        wait = self._reserve()
        if wait > 0:
            self._sleep(wait)
        return wait


class EndpointLimiter:
    """At most ``concurrency`` calls in flight and at most ``rate_per_s`` call starts per second."""

    def __init__(
        self,
        name: str,
        *,
        concurrency: int | None = None,
        rate_per_s: float | None = None,
        burst: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if concurrency is not None and concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        self.name = name
        self.concurrency = concurrency
        self.rate_per_s = rate_per_s
        self._semaphore = threading.BoundedSemaphore(concurrency) if concurrency else None
        self._bucket = TokenBucket(rate_per_s, burst, clock=clock, sleep=sleep) if rate_per_s else None

    @contextmanager
    def slot(self) -> Iterator[None]:
        if self._semaphore is not None:
            self._semaphore.acquire()
        try:
            if self._bucket is not None:
                self._bucket.acquire()
            yield
        finally:
            if self._semaphore is not None:
                self._semaphore.release()

    def __repr__(self) -> str:
        return f"EndpointLimiter({self.name!r}, concurrency={self.concurrency}, rate_per_s={self.rate_per_s})"


class LimiterRegistry:
    """One ``EndpointLimiter`` per endpoint name, created on first use, shared by every caller."""

    def __init__(self) -> None:
        self._limiters: dict[str, EndpointLimiter] = {}
        self._lock = threading.Lock()

    def get(self, name: str, *, concurrency: int | None = None, rate_per_s: float | None = None) -> EndpointLimiter:
        with self._lock:
            limiter = self._limiters.get(name)
            if limiter is None or (limiter.concurrency, limiter.rate_per_s) != (concurrency, rate_per_s):
                # A changed configuration replaces the limiter; callers already inside keep the old one.
                limiter = EndpointLimiter(name, concurrency=concurrency, rate_per_s=rate_per_s)
                self._limiters[name] = limiter
            return limiter


_REGISTRY = LimiterRegistry()


def limiter_for(name: str, *, concurrency: int | None = None, rate_per_s: float | None = None) -> EndpointLimiter:
    """The process-wide limiter for endpoint ``name``."""
    return _REGISTRY.get(name, concurrency=concurrency, rate_per_s=rate_per_s)
