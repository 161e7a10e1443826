from __future__ import annotations

import threading
import time

from evalplatform.llm.ratelimit import EndpointLimiter, LimiterRegistry, TokenBucket


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_token_bucket_spaces_calls_at_the_configured_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(2.0, burst=1, clock=clock, sleep=clock.sleep)
    waits = [bucket.acquire() for _ in range(4)]
    # 2 per second, burst 1: first free, then 0.5 s apart
    assert waits == [0.0, 0.5, 0.5, 0.5]
    assert clock.now == 1.5


def test_token_bucket_burst_allows_immediate_calls_then_refills() -> None:
    clock = FakeClock()
    bucket = TokenBucket(1.0, burst=3, clock=clock, sleep=clock.sleep)
    assert [bucket.acquire() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.acquire() == 1.0
    clock.now += 10.0  # refills to the burst of 3, no more
    assert [bucket.acquire() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.acquire() == 1.0


def test_concurrency_limit_bounds_calls_in_flight() -> None:
    limiter = EndpointLimiter("e", concurrency=2)
    lock = threading.Lock()
    active = 0
    peak = 0

    def work() -> None:
        nonlocal active, peak
        with limiter.slot():
            with lock:
                active += 1
                peak = max(peak, active)
            time.sleep(0.02)
            with lock:
                active -= 1

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak <= 2
    assert active == 0


def test_slot_is_released_when_the_call_raises() -> None:
    limiter = EndpointLimiter("e", concurrency=1)
    for _ in range(3):
        try:
            with limiter.slot():
                raise RuntimeError("boom")
        except RuntimeError:
            pass
    assert limiter._semaphore is not None and limiter._semaphore.acquire(blocking=False)


def test_registry_shares_one_limiter_per_endpoint_name() -> None:
    registry = LimiterRegistry()
    a = registry.get("local", concurrency=2)
    assert registry.get("local", concurrency=2) is a
    assert registry.get("other", concurrency=2) is not a
    assert registry.get("local", concurrency=4) is not a  # a new configuration replaces it
