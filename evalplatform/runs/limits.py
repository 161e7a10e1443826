"""One concurrency limit and one rate limit per endpoint, shared by every worker process on every machine, kept
in Redis (``LIMITS_REDIS_URL``; by default the Redis of the cache or the broker). Ten workers then respect one
provider quota together, where process-local limits would send ten times the quota.

- Concurrency: a sorted set of the slots in use, each with a lease that ends ``lease_s`` after it was taken, so
  that a killed worker's slot frees itself; a slot is taken only while fewer than the limit are held. A worker
  that finds every slot taken blocks on a list of releases (BLPOP) until a release or the earliest lease's end,
  instead of polling: 16 threads polling every 10 ms were 1,600 scripts a second of CPU (issue 15).
- Rate: GCRA (a token bucket kept as one "theoretical arrival time"): each start reserves the next free instant
  at 1 / rate after the previous one, and the caller sleeps until then.

Both are one Lua script each, so that taking a slot or reserving an instant is atomic in Redis. Without Redis
(SQLite and the inline broker) the process-local limiter of ``evalplatform.llm.ratelimit`` is used."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings

from evalplatform.llm.ratelimit import EndpointLimiter, Limiter, limiter_for

# KEYS[1] the slots in use; ARGV now, lease end, limit, token. Drops expired leases, takes a slot if one is free:
# returns {1}, or {0, seconds until the earliest lease ends}.
_TAKE_SLOT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil((tonumber(ARGV[2]) - tonumber(ARGV[1])) * 1000) + 1000)
  return {1}
end
local earliest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tostring(tonumber(earliest[2]) - tonumber(ARGV[1]))}
"""
# KEYS[1] the slots in use, KEYS[2] the releases; ARGV token, limit, lease in ms. Frees a slot and leaves one
# wake-up for a waiting worker (at most ``limit`` are kept, so wake-ups nobody waited for cannot pile up).
_RELEASE_SLOT = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('LPUSH', KEYS[2], '1')
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
return 0
"""
# KEYS[1] the theoretical arrival time; ARGV now, interval, burst. Reserves the next start, returns the wait.
_RESERVE_START = """
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
if tat < now then tat = now end
local start = tat - (tonumber(ARGV[3]) - 1) * interval
if start < now then start = now end
redis.call('SET', KEYS[1], tat + interval, 'PX', math.ceil(interval * 1000 * (tonumber(ARGV[3]) + 1)) + 1000)
return tostring(start - now)
"""
# The longest a waiting worker blocks before it looks at the slots again, whatever it waits for: a bound on a lost
# wake-up (a released slot taken by a newcomer) and on a clock that disagrees with another machine's.
MAX_BLOCK_S = 1.0
# BLPOP's timeout 0 means "forever": the shortest block.
MIN_BLOCK_S = 0.01


class SharedEndpointLimiter:
    """At most ``concurrency`` calls in flight and ``rate_per_s`` starts per second for an endpoint, across every
    process that shares the Redis."""

    def __init__(
        self,
        client: Any,
        name: str,
        *,
        concurrency: int | None,
        rate_per_s: float | None,
        lease_s: float,
        burst: int = 1,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        wait_for_release: Callable[[float], None] | None = None,
    ) -> None:
        self.name = name
        self.concurrency = concurrency
        self.rate_per_s = rate_per_s
        self.lease_s = lease_s
        self.burst = burst
        self._clock = clock
        self._sleep = sleep
        self._take = client.register_script(_TAKE_SLOT)
        self._reserve = client.register_script(_RESERVE_START)
        self._release = client.register_script(_RELEASE_SLOT)
        self._client = client
        self._slots_key = f"evalplatform:limits:{name}:slots"
        self._released_key = f"evalplatform:limits:{name}:released"
        self._rate_key = f"evalplatform:limits:{name}:tat"
        self._wait_for_release = wait_for_release or self._block_until_released

    def acquire_slot(self) -> str | None:
        """Take a concurrency slot (waiting for one), or None when the endpoint has no concurrency limit."""
        if not self.concurrency:
            return None
        token = uuid.uuid4().hex
        while True:
            now = self._clock()
            taken = self._take(keys=[self._slots_key], args=[now, now + self.lease_s, self.concurrency, token])
            if int(taken[0]):
                return token
            self._wait_for_release(min(MAX_BLOCK_S, max(MIN_BLOCK_S, float(taken[1]))))

    def _block_until_released(self, timeout_s: float) -> None:
        """Block until another worker releases a slot or ``timeout_s`` passes (a release wakes one waiter)."""
        self._client.blpop([self._released_key], timeout=timeout_s)

    def release_slot(self, token: str | None) -> None:
        if token is not None:
            lease_ms = int(self.lease_s * 1000) + 1000
            self._release(keys=[self._slots_key, self._released_key], args=[token, self.concurrency, lease_ms])

    def reserve_start(self) -> float:
        """Reserve this call's start under the rate limit; returns how long to wait before starting."""
        if not self.rate_per_s:
            return 0.0
        wait = self._reserve(keys=[self._rate_key], args=[self._clock(), 1.0 / self.rate_per_s, self.burst])
        return max(0.0, float(wait))

    @contextmanager
    def slot(self) -> Iterator[None]:
        token = self.acquire_slot()
        try:
            wait = self.reserve_start()
            if wait > 0:
                self._sleep(wait)
            yield
        finally:
            self.release_slot(token)

    def __repr__(self) -> str:
        return f"SharedEndpointLimiter({self.name!r}, concurrency={self.concurrency}, rate_per_s={self.rate_per_s})"


_redis: dict[str, Any] = {}


def limits_redis() -> Any | None:
    """The Redis shared by the workers for limits, or None (no Redis configured)."""
    url = settings.LIMITS_REDIS_URL
    if not url:
        return None
    if url not in _redis:
        import redis  # the Redis client Celery and the cache use already

        _redis[url] = redis.Redis.from_url(url)
    return _redis[url]


def shared_limiter(
    name: str, *, concurrency: int | None, rate_per_s: float | None, lease_s: float
) -> Limiter | EndpointLimiter:
    """The endpoint's limiter shared through Redis when one is configured, else this process's own."""
    client = limits_redis()
    if client is None:
        return limiter_for(name, concurrency=concurrency, rate_per_s=rate_per_s)
    return SharedEndpointLimiter(client, name, concurrency=concurrency, rate_per_s=rate_per_s, lease_s=lease_s)
