"""Page buttons of the methods' longer jobs (the forms are on the launch, run and dataset pages): a knowledge-graph
pass over a run, a similarity benchmark, fabrication and question generation. Each posts here, is checked by its
launch service and comes back to its page with what was queued, or why nothing was."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from evalplatform.corpus.selectors import dataset_get
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs.selectors import run_get
from scoring.services.launches import (
    LaunchError,
    benchmark_launch,
    fabrication_launch,
    graph_pass_launch,
    kg_options,
    questions_launch,
)


def _int(request: HttpRequest, name: str, default: int | None) -> int | None:
    raw = request.POST.get(name, "").strip()
    if not raw:
        return default
    if not raw.lstrip("-").isdigit():
        raise LaunchError(name, f"'{raw}' is not a whole number")
    return int(raw)


def _fail(request: HttpRequest, exc: LaunchError) -> None:
    messages.error(request, f"Nothing was launched: {exc.field}: {exc}")


@require_POST
@page_requires(is_researcher)
def graph_pass(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    try:
        kg = kg_options(
            {
                "extractor": request.POST.get("extractor", "dependency"),
                "variants": request.POST.getlist("variants") or ["s3kg"],
                "alpha": float(request.POST.get("alpha", "0.5") or 0.5),
            }
        )
        graph_pass_launch(run=run, kg=kg, use_cache=request.POST.get("use_cache") != "off", actor=request.user)  # type: ignore[arg-type]
    except LaunchError as exc:
        _fail(request, exc)
    except ValueError:
        messages.error(request, "Nothing was launched: alpha must be a number between 0 and 1.")
    else:
        messages.success(request, f"Knowledge-graph pass queued for run {run.pk}: its graph scores appear below.")
    return redirect("runs:run", pk=run.pk)


@require_POST
@page_requires(is_researcher)
def benchmark_start(request: HttpRequest) -> HttpResponse:
    dataset = dataset_get(user=request.user, name=request.POST.get("dataset", ""))
    if dataset is None:
        messages.error(request, "Nothing was launched: choose a pairs dataset you can see.")
        return redirect("scoring:benchmarks")
    try:
        benchmark_launch(
            dataset=dataset,
            extractor=request.POST.get("extractor", "dependency"),
            alpha_sweep=request.POST.get("alpha_sweep") == "on",
            actor=request.user,  # type: ignore[arg-type]
        )
    except LaunchError as exc:
        _fail(request, exc)
    else:
        messages.success(request, f"Similarity benchmark queued on {dataset.name}: its run appears below when done.")
    return redirect("scoring:benchmarks")


@require_POST
@page_requires(is_researcher)
def fabricate(request: HttpRequest, name: str) -> HttpResponse:
    source = dataset_get(user=request.user, name=name)
    if source is None:
        raise Http404("no such dataset")
    target = request.POST.get("into", "").strip()
    try:
        if not target:
            raise LaunchError("into", "name the dataset to write")
        fabrication_launch(
            source=source,
            target_name=target,
            generator=request.POST.get("generator", ""),
            n_alterations=_int(request, "alterations", 5) or 5,
            limit=_int(request, "limit", None),
            actor=request.user,  # type: ignore[arg-type]
        )
    except LaunchError as exc:
        _fail(request, exc)
    else:
        messages.success(request, f"Fabrication queued: divergent contexts of {source.name} go into {target}.")
    return redirect("corpus:dataset", name=source.name)


@require_POST
@page_requires(is_researcher)
def generate_questions(request: HttpRequest, name: str) -> HttpResponse:
    dataset = dataset_get(user=request.user, name=name)
    if dataset is None:
        raise Http404("no such dataset")
    try:
        questions_launch(
            dataset=dataset,
            generator=request.POST.get("generator", ""),
            per_context=_int(request, "per_context", 20) or 20,
            limit=_int(request, "limit", None),
            actor=request.user,  # type: ignore[arg-type]
        )
    except LaunchError as exc:
        _fail(request, exc)
    else:
        messages.success(request, f"Question generation queued for {dataset.name}: drafts appear below, for review.")
    return redirect("corpus:dataset", name=dataset.name)
