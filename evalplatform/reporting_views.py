"""The admins' report page, and the login page with a throttle on attempts (the 'login' rate of
REST_FRAMEWORK's DEFAULT_THROTTLE_RATES, counted per client address in the shared cache)."""

from typing import Any

from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.permissions import page_requires
from evalplatform import reporting
from evalplatform.roles import is_admin
from evalplatform.throttling import page_throttle_wait


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


class ThrottledLoginView(LoginView):
    """Django's LoginView; a client that posts more attempts than the login rate allows gets 429 with
    Retry-After until its oldest attempt leaves the window."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = page_throttle_wait(request, "login")
        if wait is not None:
            response = HttpResponse("Too many login attempts; try again later.", status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)
