"""The test–retest page of a run (``/runs/<id>/retest/``): its fingerprint, each retest with every judge's agreement
with itself, and a form to start one (researchers who see the run; the start is audited by its service)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs.fingerprint import fingerprint_lines, run_fingerprint
from evalplatform.runs.models import Run
from evalplatform.runs.selectors import run_get
from scoring.cdke.retest import retest_report
from scoring.services.launches import LaunchError, retest_launch


def _run(request: HttpRequest, pk: int) -> Run:
    run = run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    return run


@page_requires(is_researcher)
def run_retest(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    if request.method == "POST":
        try:
            sample = int(request.POST.get("sample", "50"))
            seed = int(request.POST.get("seed", "0") or 0)
            batch = retest_launch(run=run, sample_size=sample, seed=seed, actor=request.user)  # type: ignore[arg-type]
        except ValueError as exc:
            field = exc.field if isinstance(exc, LaunchError) else "sample"
            messages.error(request, f"Nothing was started: {field}: {exc}")
        else:
            messages.success(request, f"Retest {batch.pk} queued: {len(batch.generations)} answers, cache off.")
        return redirect("scoring:run-retest", pk=run.pk)
    context = {
        "run": run,
        "fingerprint_lines": fingerprint_lines(run_fingerprint(run)),
        "retests": retest_report(run),
    }
    return render(request, "scoring/run_retest.html", context)
