"""The admins' report page, and the login page with a throttle on attempts (the 'login' rate of
REST_FRAMEWORK's DEFAULT_THROTTLE_RATES, counted per client address in the shared cache)."""

import time
from typing import Any

from django.conf import settings
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.permissions import page_requires
from evalplatform import reporting
from evalplatform.roles import is_admin

LOGIN_SCOPE = "login"
# The rate is written as DRF writes it ("10/minute"): seconds per period by its first letter.
PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@page_requires(is_admin)
def report(request: HttpRequest) -> HttpResponse:
    """Admins: counts per dataset and run, annotator throughput and agreement."""
    context = {
        "datasets": reporting.dataset_counts(),
        "runs": reporting.run_counts(),
        "annotators": reporting.annotator_throughput(),
        "agreement": reporting.agreement(),
    }
    return render(request, "reporting/report.html", context)


def _login_rate() -> tuple[int, int]:
    config: dict[str, Any] = settings.REST_FRAMEWORK
    rates: dict[str, str] = config.get("DEFAULT_THROTTLE_RATES", {})
    rate = rates.get(LOGIN_SCOPE, "10/minute")
    num, period = rate.split("/")
    return int(num), PERIODS[period[0]]


class ThrottledLoginView(LoginView):
    """Django's LoginView; a client that posts more attempts than the login rate allows gets 429 with
    Retry-After until its oldest attempt leaves the window."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        num, duration = _login_rate()
        key = f"throttle_login_{request.META.get('REMOTE_ADDR', '')}"
        now = time.time()
        history = [t for t in cache.get(key, []) if t > now - duration]
        if len(history) >= num:
            response = HttpResponse("Too many login attempts; try again later.", status=429)
            response["Retry-After"] = str(max(1, int(history[-1] + duration - now)))
            return response
        cache.set(key, [now, *history], duration)
        return super().post(request, *args, **kwargs)
