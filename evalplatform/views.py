"""Project-level pages: the home page, a health check, the admins' report, and the login page with throttles
on attempts per client address and failed attempts per username (the 'login' and 'login_username' rates of
REST_FRAMEWORK's DEFAULT_THROTTLE_RATES, counted in the shared cache)."""

from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from evalplatform import reports
from evalplatform.corpus.selectors import dataset_list_with_counts
from evalplatform.glossary import GLOSSARY
from evalplatform.permissions import page_requires
from evalplatform.roles import is_admin
from evalplatform.throttling import login_username_failed, login_username_wait, page_throttle_wait


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """The datasets the user sees (none for annotators and users without a role), as the datasets page."""
    return render(request, "home.html", {"datasets": dataset_list_with_counts(user=request.user)})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for docker-compose and load balancers: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


@login_required
def glossary(request: HttpRequest) -> HttpResponse:
    """Every figure the pages show, explained, with its source."""
    return render(request, "glossary.html", {"terms": sorted(GLOSSARY.items(), key=lambda kv: kv[1][0].lower())})


@page_requires(is_admin)
def report(request: HttpRequest) -> HttpResponse:
    """Admins: counts per dataset and run, annotator throughput and agreement."""
    context = {
        "datasets": reports.dataset_counts(),
        "runs": reports.run_counts(),
        "annotators": reports.annotator_throughput(),
        "agreement": reports.agreement(),
    }
    return render(request, "reporting/report.html", context)


class ThrottledLoginView(LoginView):
    """Django's LoginView behind two throttles. A client (its address as TRUSTED_PROXIES allow reading it) that
    posts more attempts than the login rate allows, or any client naming a username that failed more often than
    the login_username rate allows, gets 429 with Retry-After until the oldest attempt leaves the window; the
    right password is refused meanwhile, so a blocked guesser learns nothing."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = str(request.POST.get("username", ""))
        wait = page_throttle_wait(request, "login") or login_username_wait(username)
        if wait is not None:
            return _too_many_attempts(wait)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        login_username_failed(str(form.data.get("username", "")))
        return super().form_invalid(form)


def _too_many_attempts(wait: int) -> HttpResponse:
    response = HttpResponse("Too many login attempts; try again later.", status=429)
    response["Retry-After"] = str(wait)
    return response
