"""The run page's Stop, Resume and Retry-failed buttons: thin, through the runs services (a stop and a resume each
write an audit event), back to the run's page with what happened."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import selectors, services
from evalplatform.runs.launch import run_resume
from evalplatform.runs.models import Run


def _run(request: HttpRequest, pk: int) -> Run:
    run = selectors.run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    return run


@require_POST
@page_requires(is_researcher)
def run_stop(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    if services.run_stop(
        run_id=run.pk, status=Run.Status.CANCELLED, reason=f"stopped by {request.user}", actor=request.user
    ):
        messages.success(request, "Run stopped: what it has is kept; Resume takes it up where it stopped.")
    else:
        messages.info(request, f"The run is {run.status}: there is nothing to stop.")
    return redirect("runs:run", pk=run.pk)


@require_POST
@page_requires(is_researcher)
def run_resume_page(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    retry = request.POST.get("retry_failed") == "1"
    if run.kind == Run.Kind.SIMILARITY_BENCHMARK:
        messages.error(request, "A benchmark run is not resumed: launch it again.")
    elif run.status == Run.Status.DONE and not (retry and run.progress_failed):
        messages.info(request, "The run is done: there is nothing to resume.")
    else:
        run_resume(run=run, retry_failed=retry, actor=request.user)
        messages.success(
            request,
            "Retrying the failed units: answers and scores that failed are asked again."
            if retry
            else "Run resumed: what it has is kept, what was asked before comes from the cache.",
        )
    return redirect("runs:run", pk=run.pk)
