"""Campaign pages and buttons: the campaign page (progress per dataset and annotator, agreement so far, what waits
for consensus), and the buttons on the dataset and run pages that queue review, calibration and TAU work. Thin:
reads through the campaign selectors, writes through the campaign services."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation import services
from annotation.campaign_selectors import campaign_overview
from annotation.permissions import is_reviewer
from evalplatform.corpus.selectors import dataset_get
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs.selectors import run_get


@page_requires(is_reviewer)
def campaigns(request: HttpRequest) -> HttpResponse:
    return render(request, "annotation/campaigns.html", {"campaign": campaign_overview(user=request.user)})


@require_POST
@page_requires(is_researcher)
def dataset_review(request: HttpRequest, name: str) -> HttpResponse:
    version = request.POST.get("version", "")
    dataset = dataset_get(user=request.user, name=name, version=int(version) if version.isdigit() else None)
    if dataset is None:
        raise Http404("no such dataset")
    queued = services.review_queue_dataset(dataset=dataset, actor=request.user)  # type: ignore[arg-type]
    messages.success(
        request,
        f"Queued {queued.queued} question(s) for two-annotator review; {queued.already} were queued before"
        + (f", {queued.skipped} are decided already." if queued.skipped else "."),
    )
    return redirect(f"/datasets/{dataset.name}/?version={dataset.version}")


@require_POST
@page_requires(is_researcher)
def run_calibration(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    try:
        size, seed = int(request.POST.get("sample_size", "")), int(request.POST.get("seed", "0") or 0)
        queued = services.calibration_sample(run=run, sample_size=size, seed=seed, actor=request.user)  # type: ignore[arg-type]
    except ValueError as exc:
        messages.error(
            request, f"Nothing queued: {exc}" if "invalid literal" not in str(exc) else "Give a sample size."
        )
    else:
        messages.success(
            request, f"Queued {queued.queued} answer(s) for calibration labels; {queued.already} were queued before."
        )
    return redirect("runs:run", pk=run.pk)


@require_POST
@page_requires(is_researcher)
def run_tau(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    try:
        queued = services.tau_queue_run(run=run, actor=request.user)  # type: ignore[arg-type]
    except ValueError as exc:
        messages.error(request, f"Nothing queued: {exc}")
    else:
        messages.success(
            request,
            f"Sent {queued.queued} TAU item(s) to three-annotator labelling; {queued.already} were sent before.",
        )
    return redirect("runs:run", pk=run.pk)
