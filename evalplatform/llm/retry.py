"""Exponential backoff with full jitter, on ``TransientProviderError`` only.

Attempt n (0-based) waits a uniform random time in [0, min(cap, base * 2**n)] before the next try
("full jitter"), or the server's Retry-After when that is longer (still capped). Anything that is not
transient propagates at once; after ``max_attempts`` the last transient error propagates.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from evalplatform.llm.errors import TransientProviderError

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    base_s: float = 0.5
    cap_s: float = 30.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_s < 0 or self.cap_s < 0:
            raise ValueError("base_s and cap_s must be >= 0")

    def backoff_ceiling(self, attempt: int) -> float:
        """Upper bound of the wait after failed attempt ``attempt`` (0-based)."""
        return float(min(self.cap_s, self.base_s * (2**attempt)))

    def delay(self, attempt: int, rng: random.Random, retry_after_s: float | None = None) -> float:
        wait = rng.uniform(0.0, self.backoff_ceiling(attempt))
        if retry_after_s is not None:
            wait = max(wait, min(self.cap_s, retry_after_s))
        return wait


NO_RETRY = RetryPolicy(max_attempts=1)


def call_with_retry(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
    on_retry: Callable[[int, TransientProviderError, float], None] | None = None,
) -> T:
    """Call ``fn``; on a transient error wait and try again, up to ``policy.max_attempts`` calls."""
    generator = rng or random.Random()
    attempt = 0
    while True:
        try:
            return fn()
        except TransientProviderError as exc:
            if attempt + 1 >= policy.max_attempts:
                raise
            wait = policy.delay(attempt, generator, exc.retry_after_s)
            log.info(
                "transient error (attempt %d/%d), retrying in %.2fs: %s",
                attempt + 1,
                policy.max_attempts,
                wait,
                exc,
            )
            if on_retry is not None:
                on_retry(attempt, exc, wait)
            sleep(wait)
            attempt += 1
