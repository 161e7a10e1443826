"""Rate limits for pages, in the same cache entries as the API's ScopedRateThrottle (``throttle_<scope>_<user id
or client address>``), so that a page and the API share one allowance: launching from the page does not get
round the API's run_launch rate, nor the other way round. Rates are REST_FRAMEWORK's DEFAULT_THROTTLE_RATES."""

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from rest_framework.throttling import ScopedRateThrottle, SimpleRateThrottle


class _PageThrottle(ScopedRateThrottle):
    def __init__(self, scope: str) -> None:  # no view to read the scope from
        self.scope = scope
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)

    def get_rate(self) -> str | None:
        config: dict[str, Any] = settings.REST_FRAMEWORK
        return config.get("DEFAULT_THROTTLE_RATES", {}).get(self.scope)


def page_throttle_wait(request: HttpRequest, scope: str) -> int | None:
    """Count this request under ``scope``: None when it is allowed, else the seconds until one will be."""
    throttle = _PageThrottle(scope)
    if SimpleRateThrottle.allow_request(throttle, request, None):  # type: ignore[arg-type]
        return None
    return max(1, math.ceil(throttle.wait() or 1))
