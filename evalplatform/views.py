"""Project-level pages: the home page and a health check."""

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from evalplatform.corpus.selectors import dataset_list_with_counts


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"datasets": dataset_list_with_counts()})


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for docker-compose and load balancers: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
