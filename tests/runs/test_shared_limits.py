"""Per-endpoint limits shared by every worker through Redis: two limiters stand for two worker processes."""

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from evalplatform.runs.limits import SharedEndpointLimiter

redis = pytest.importorskip("redis")


@pytest.fixture
def client() -> Iterator[Any]:
    connection = redis.Redis.from_url("redis://127.0.0.1:6379/3")
    try:
        connection.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    yield connection
    for key in connection.scan_iter("evalplatform:limits:test-*"):
        connection.delete(key)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def _pair(client: Any, clock: Clock, **limits: Any) -> tuple[SharedEndpointLimiter, SharedEndpointLimiter]:
    name = f"test-{uuid.uuid4().hex[:8]}"
    return tuple(  # type: ignore[return-value]
        SharedEndpointLimiter(
            client,
            name,
            clock=clock,
            sleep=clock.sleep,
            wait_for_release=clock.sleep,
            **({"lease_s": 10.0} | limits),
        )
        for _ in range(2)
    )


def test_one_slot_is_held_by_one_worker_at_a_time(client: Any) -> None:
    clock = Clock(1000.0)
    first, second = _pair(client, clock, concurrency=1, rate_per_s=None)
    token = first.acquire_slot()
    assert token is not None
    full = second._take(keys=[second._slots_key], args=[clock(), clock() + 10, 1, "other"])
    assert int(full[0]) == 0 and float(full[1]) == pytest.approx(10.0)  # full, for 10 more seconds
    first.release_slot(token)
    assert second.acquire_slot() is not None  # free again, at once
    assert clock.slept == []


def test_a_dead_workers_slot_frees_itself_when_its_lease_ends(client: Any) -> None:
    clock = Clock(1000.0)
    first, second = _pair(client, clock, concurrency=1, rate_per_s=None)
    assert first.acquire_slot() is not None  # and its worker is killed: never released
    assert second.acquire_slot() is not None  # waits until the 10-second lease has run out
    assert sum(clock.slept) == pytest.approx(10.0)
    assert len(clock.slept) == 10  # a look a second at most (MAX_BLOCK_S), not a poll every few milliseconds


def test_the_rate_is_shared_by_the_workers(client: Any) -> None:
    clock = Clock(1000.0)
    first, second = _pair(client, clock, concurrency=None, rate_per_s=2.0)
    # Two starts per second between them: at 0, 0.5 and 1.0 seconds, whoever asks.
    assert first.reserve_start() == 0.0
    assert second.reserve_start() == pytest.approx(0.5)
    assert first.reserve_start() == pytest.approx(1.0)
    clock.now += 5.0  # idle for a while: no credit beyond the burst of one
    assert second.reserve_start() == 0.0
    assert first.reserve_start() == pytest.approx(0.5)


def test_the_slot_context_takes_both_limits(client: Any) -> None:
    clock = Clock(1000.0)
    first, second = _pair(client, clock, concurrency=2, rate_per_s=1.0)
    with first.slot(), second.slot():
        assert client.zcard(first._slots_key) == 2
    assert client.zcard(first._slots_key) == 0
    assert clock.slept == [pytest.approx(1.0)]  # the second start waited its turn


def test_a_waiting_worker_is_woken_by_a_release_without_polling(client: Any) -> None:
    """A full endpoint makes a worker wait on Redis for a release, not poll it: with 16 threads waiting for a
    slot, polling every 10 ms was 1,600 scripts a second of CPU in the worker and in Redis (issue 15)."""
    import threading
    import time

    name = f"test-{uuid.uuid4().hex[:8]}"
    holder = SharedEndpointLimiter(client, name, concurrency=1, rate_per_s=None, lease_s=30.0)
    waiter = SharedEndpointLimiter(client, name, concurrency=1, rate_per_s=None, lease_s=30.0)
    takes = 0
    take = waiter._take

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal takes
        takes += 1
        return take(*args, **kwargs)

    waiter._take = counted
    token = holder.acquire_slot()
    got: list[str | None] = []
    thread = threading.Thread(target=lambda: got.append(waiter.acquire_slot()))
    started = time.monotonic()
    thread.start()
    time.sleep(0.5)
    holder.release_slot(token)
    thread.join(timeout=5)
    waited = time.monotonic() - started
    assert got and got[0] is not None
    assert 0.5 <= waited < 1.5  # woken by the release, not by the 30-second lease
    assert takes <= 3  # one try before the wait, one after it (a poll would have tried about 50 times)
