"""Rate limits, keyed on the user or on the client's real address.

``ScopedClientThrottle`` is the API's throttle: DRF's ScopedRateThrottle, except that a client's address is
REMOTE_ADDR, or what the proxies named in TRUSTED_PROXIES saw (``trusted_proxies.client_address``), never what a
client writes into X-Forwarded-For itself. Pages count in the same cache entries (``throttle_<scope>_<user id or
client address>``), so that a page and the API share one allowance: launching from the page does not get round
the API's run_launch rate, nor the other way round. Failed logins are also counted per username
(``login_username``), so that an attacker spread over many addresses still gets a bounded number of guesses at
one account. Rates are REST_FRAMEWORK's DEFAULT_THROTTLE_RATES; the counters live in the default cache (one
shared Redis through CACHE_URL when several web processes serve)."""

import hashlib
import math
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle

from evalplatform.trusted_proxies import client_address


class ScopedClientThrottle(ScopedRateThrottle):
    """DRF's scoped throttle with the client's address read through TRUSTED_PROXIES only."""

    def get_ident(self, request: Any) -> str:
        return client_address(request.META, settings.TRUSTED_PROXIES)


class _PageThrottle(ScopedClientThrottle):
    def __init__(self, scope: str) -> None:  # no view to read the scope from
        self.scope = scope
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)

    def get_rate(self) -> str | None:
        config: dict[str, Any] = settings.REST_FRAMEWORK
        rate: str | None = config.get("DEFAULT_THROTTLE_RATES", {}).get(self.scope)
        return rate


def page_throttle_wait(request: HttpRequest, scope: str) -> int | None:
    """Count this request under ``scope``: None when it is allowed, else the seconds until one will be."""
    throttle = _PageThrottle(scope)
    if SimpleRateThrottle.allow_request(throttle, request, None):  # type: ignore[arg-type]
        return None
    return max(1, math.ceil(throttle.wait() or 1))


def _username_key(username: str) -> str:
    digest = hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]
    return f"throttle_login_username_{digest}"


def _recent_failures(username: str, now: float) -> tuple[list[float], int, int] | None:
    throttle = _PageThrottle("login_username")
    if throttle.num_requests is None or throttle.duration is None:
        return None
    limit, duration = throttle.num_requests, throttle.duration
    history = [moment for moment in cache.get(_username_key(username), []) if moment > now - duration]
    return history, limit, duration


def login_username_wait(username: str) -> int | None:
    """None while ``username`` has fewer failed logins in the window than the login_username rate allows,
    else the seconds until the oldest leaves the window (the right password is refused meanwhile too)."""
    now = time.time()
    recent = _recent_failures(username, now)
    if recent is None:
        return None
    history, limit, duration = recent
    if len(history) < limit:
        return None
    return max(1, math.ceil(min(history) + duration - now))


def login_username_failed(username: str) -> None:
    """Count one failed login for ``username``."""
    now = time.time()
    recent = _recent_failures(username, now)
    if recent is not None:
        history, _limit, duration = recent
        cache.set(_username_key(username), [*history, now], duration)
