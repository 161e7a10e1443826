from __future__ import annotations

import random

import pytest

from evalplatform.llm.errors import ProviderError, TransientProviderError
from evalplatform.llm.retry import RetryPolicy, call_with_retry
from tests.llm.conftest import RecordingSleep


class Flaky:
    def __init__(self, failures: list[Exception]) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return "done"


def test_transient_errors_are_retried_until_success(no_sleep: RecordingSleep) -> None:
    fn = Flaky([TransientProviderError("429"), TransientProviderError("500")])
    assert call_with_retry(fn, RetryPolicy(max_attempts=5), sleep=no_sleep) == "done"
    assert fn.calls == 3
    assert len(no_sleep.waits) == 2


def test_backoff_is_full_jitter_below_the_exponential_ceiling(no_sleep: RecordingSleep) -> None:
    policy = RetryPolicy(max_attempts=6, base_s=1.0, cap_s=5.0)
    fn = Flaky([TransientProviderError("x") for _ in range(5)])
    call_with_retry(fn, policy, sleep=no_sleep, rng=random.Random(7))
    # ceilings for attempts 0..4: 1, 2, 4, 5 (cap), 5 (cap)
    ceilings = [1.0, 2.0, 4.0, 5.0, 5.0]
    assert [policy.backoff_ceiling(i) for i in range(5)] == ceilings
    assert all(0.0 <= wait <= ceiling for wait, ceiling in zip(no_sleep.waits, ceilings, strict=True))
    # the same seed gives the same waits: uniform(0, ceiling) drawn from Random(7)
    rng = random.Random(7)
    assert no_sleep.waits == [rng.uniform(0.0, c) for c in ceilings]


def test_gives_up_after_max_attempts_with_the_last_transient_error(no_sleep: RecordingSleep) -> None:
    fn = Flaky([TransientProviderError(f"fail {i}") for i in range(10)])
    with pytest.raises(TransientProviderError, match="fail 2"):
        call_with_retry(fn, RetryPolicy(max_attempts=3), sleep=no_sleep)
    assert fn.calls == 3
    assert len(no_sleep.waits) == 2


def test_permanent_errors_are_not_retried(no_sleep: RecordingSleep) -> None:
    fn = Flaky([ProviderError("400")])
    with pytest.raises(ProviderError):
        call_with_retry(fn, RetryPolicy(max_attempts=5), sleep=no_sleep)
    assert fn.calls == 1
    assert no_sleep.waits == []


def test_retry_after_from_the_server_sets_a_floor_capped_by_the_policy(no_sleep: RecordingSleep) -> None:
    fn = Flaky([TransientProviderError("429", retry_after_s=3.0), TransientProviderError("429", retry_after_s=99)])
    call_with_retry(fn, RetryPolicy(max_attempts=3, base_s=0.01, cap_s=10.0), sleep=no_sleep)
    assert no_sleep.waits[0] == 3.0
    assert no_sleep.waits[1] == 10.0
