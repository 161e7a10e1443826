"""Researcher pages of runs: the list with live progress, the launch form with its pre-flight estimate,
a run's results (Table 2, GoldSim / CtxSim / CUS, error classes, plots) and the per-item drill-down."""

from collections import defaultdict
from typing import Any

from django import forms
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods

from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import plots, selectors
from evalplatform.runs.launch import run_launch as launch
from evalplatform.runs.models import Run
from evalplatform.runs.services import run_estimate
from evalplatform.runs.spec import CONDITIONS, RunSpec, SpecError
from evalplatform.throttling import page_throttle_wait
from scoring import selectors as scoring_selectors
from scoring.cdke.results import (
    TABLE_METRICS,
    context_correlations,
    context_lav_accuracy,
    error_class_rows,
    error_type_rows,
    result_rows,
)
from scoring.models import ErrorTypeJudgement

GENERATIONS_PER_PAGE = 50
SVG = "image/svg+xml"


def _float_list(value: str) -> list[float]:
    try:
        return [float(v) for v in value.replace(" ", "").split(",") if v]
    except ValueError:
        raise forms.ValidationError("give numbers separated by commas, e.g. 0.0, 0.7") from None


class LaunchForm(forms.Form):
    dataset = forms.ChoiceField()
    models = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    evaluators = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, required=False)
    temperatures = forms.CharField(initial="0.2", help_text="Comma-separated, e.g. 0.0, 0.3, 0.7, 1.0")
    conditions = forms.MultipleChoiceField(
        choices=[(c, c) for c in CONDITIONS], initial=["divergent"], widget=forms.CheckboxSelectMultiple
    )
    samples = forms.IntegerField(min_value=1, max_value=100, initial=1)
    limit = forms.IntegerField(min_value=1, required=False, help_text="Ask at most this many questions.")
    budget_usd = forms.DecimalField(min_value=0, max_digits=12, decimal_places=4, required=False)

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields: dict[str, Any] = self.fields
        fields["dataset"].choices = [
            (d.name, d.name) for d in datasets_visible_to(user).exclude(kind="pairs").order_by("name")
        ]
        names = [(e.name, f"{e.name} ({e.model_id})") for e in selectors.endpoints_for_launch(user).order_by("name")]
        fields["models"].choices = names
        fields["evaluators"].choices = names

    def clean_temperatures(self) -> list[float]:
        return _float_list(self.cleaned_data["temperatures"])

    def spec(self) -> dict[str, Any]:
        data = self.cleaned_data
        spec: dict[str, Any] = {
            "models": data["models"],
            "evaluators": data["evaluators"],
            "temperatures": data["temperatures"],
            "conditions": data["conditions"],
            "samples": data["samples"],
        }
        if data.get("limit"):
            spec["limit"] = data["limit"]
        return spec


@page_requires(is_researcher)
def run_list(request: HttpRequest) -> HttpResponse:
    runs = selectors.runs_visible_to(request.user)[:200]
    return render(request, "runs/run_list.html", {"runs": runs})


@page_requires(is_researcher)
@require_http_methods(["GET", "POST"])
def run_launch(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST with action=estimate: the form again with the pre-flight cost and a confirm
    button. POST with action=launch: plan the run and go to its page."""
    initial = {"dataset": request.GET.get("dataset", "")}
    form = LaunchForm(request.POST or None, user=request.user, initial=initial)
    estimate = None
    if request.method == "POST" and request.POST.get("action") == "launch":
        wait = page_throttle_wait(request, "run_launch")  # one allowance with the API's launches
        if wait is not None:
            form.is_valid()
            form.add_error(None, f"You have launched too many runs for now; try again in {wait} s.")
            response = render(request, "runs/launch.html", {"form": form, "estimate": None}, status=429)
            response["Retry-After"] = str(wait)
            return response
    if request.method == "POST" and form.is_valid():
        dataset = datasets_visible_to(request.user).get(name=form.cleaned_data["dataset"])
        try:
            if request.POST.get("action") == "launch":
                run = launch(
                    dataset=dataset,
                    spec=form.spec(),
                    actor=request.user,
                    budget_usd=form.cleaned_data.get("budget_usd"),
                )
                return redirect("runs:run", pk=run.pk)
            estimate = run_estimate(dataset=dataset, spec=RunSpec.from_dict(form.spec()))
        except SpecError as exc:
            form.add_error(None, str(exc))
    return render(request, "runs/launch.html", {"form": form, "estimate": estimate})


def _run_or_404(request: HttpRequest, pk: int) -> Run:
    run = selectors.run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    return run


def _table(run: Run) -> list[dict[str, Any]]:
    return [{"row": row, "cells": [(m, row.metrics.get(m)) for m in TABLE_METRICS]} for row in result_rows(run)]


@page_requires(is_researcher)
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_or_404(request, pk)
    generations = selectors.generations_visible_to(request.user).filter(run=run).order_by("pk")
    page = Paginator(generations, GENERATIONS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "run": run,
        "table": _table(run),
        "metrics": TABLE_METRICS,
        "graph_rows": scoring_selectors.graph_score_rows(run),
        "error_rows": error_class_rows(run),
        "error_type_rows": error_type_rows(run),
        "error_labels": ErrorTypeJudgement.Label.choices,
        "lav_accuracy": context_lav_accuracy(run),
        "correlations": context_correlations(run),
        "page": page,
        "active": run.status in (Run.Status.QUEUED, Run.Status.RUNNING),
    }
    return render(request, "runs/run_detail.html", context)


@page_requires(is_researcher)
def generation_detail(request: HttpRequest, pk: int, gen: int) -> HttpResponse:
    run = _run_or_404(request, pk)
    generation = selectors.generation_get(user=request.user, run=run, pk=gen)
    if generation is None:
        raise Http404("no such generation")
    detail = scoring_selectors.generation_detail(generation)
    for graph in detail["graphs"]:
        for side in ("answer", "gold", "context"):
            triplets = [tuple(t) for t in graph[f"{side}_triplets"]]
            # The SVG is matplotlib's own output: every label in it is XML-escaped by its SVG backend.
            graph[f"{side}_svg"] = mark_safe(plots.graph_svg(triplets, f"KG of the {side}"))  # noqa: S308
    return render(request, "runs/generation_detail.html", {"run": run, "detail": detail})


def _svg(body: str) -> HttpResponse:
    response = HttpResponse(body, content_type=SVG)
    response["Cache-Control"] = "private, max-age=5"
    return response


@page_requires(is_researcher)
def plot_correlation(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_or_404(request, pk)
    series = [(f"{c.model} / {c.evaluator}", c.points, c.pearson) for c in context_correlations(run)]
    return _svg(plots.correlation_scatter_svg(series))


@page_requires(is_researcher)
def plot_lav_accuracy(request: HttpRequest, pk: int) -> HttpResponse:
    """Per context: LAV against Acc, per model and evaluator (paper C, Fig. 5)."""
    run = _run_or_404(request, pk)
    series = [(f"{c.model} / {c.evaluator}", c.points, c.pearson) for c in context_lav_accuracy(run)]
    return _svg(plots.correlation_scatter_svg(series, xlabel="Acc", ylabel="LAV (share valid)"))


@page_requires(is_researcher)
def plot_temperature(request: HttpRequest, pk: int) -> HttpResponse:
    """LAV share per model and evaluator against temperature (divergent condition), and CUS where scored."""
    run = _run_or_404(request, pk)
    curves: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for row in result_rows(run):
        lav = row.metrics.get("lav")
        if row.condition == "divergent" and lav is not None and lav.mean is not None:
            curves[f"LAV {row.model} / {row.evaluator}"].append((row.temperature, lav.mean))
    for graph_row in scoring_selectors.graph_score_rows(run):
        if graph_row.condition == "divergent" and graph_row.cus is not None:
            curves[f"CUS {graph_row.model} ({graph_row.variant}@{graph_row.alpha})"].append(
                (graph_row.temperature, graph_row.cus)
            )
    sorted_curves = {label: sorted(points) for label, points in curves.items()}
    return _svg(plots.line_chart_svg(sorted_curves, xlabel="temperature", ylabel="score", title="Temperature trends"))
