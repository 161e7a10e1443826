"""Researcher pages of runs: the list with live progress, the launch form with its pre-flight estimate,
a run's results (Table 2, GoldSim / CtxSim / CUS, error classes, plots) and the per-item drill-down."""

from collections import defaultdict
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods

from annotation.judge_agreement import judge_flags
from evalplatform.corpus.models import Context
from evalplatform.corpus.selectors import dataset_get, datasets_visible_to, latest_versions
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import plots, selectors
from evalplatform.runs.estimate import run_estimate_parts
from evalplatform.runs.fingerprint import fingerprint_lines, run_fingerprint
from evalplatform.runs.forms import LaunchForm
from evalplatform.runs.launch import run_launch as launch
from evalplatform.runs.models import Run
from evalplatform.runs.spec import RunSpec, SpecError
from evalplatform.throttling import page_throttle_wait
from scoring import selectors as scoring_selectors
from scoring.cdke.compare import condition_effects
from scoring.cdke.results import (
    TABLE_METRICS,
    context_correlations,
    context_lav_accuracy,
    error_class_rows,
    error_type_rows,
    generation_classes,
    result_rows,
)
from scoring.error_classes import ERROR_CLASSES
from scoring.kg_results import kg_results
from scoring.models import ErrorTypeJudgement, GenerationScore

GENERATIONS_PER_PAGE = 50
SVG = "image/svg+xml"


@page_requires(is_researcher)
def run_list(request: HttpRequest) -> HttpResponse:
    runs = selectors.runs_visible_to(request.user)[:200]
    return render(request, "runs/run_list.html", {"runs": runs})


@page_requires(is_researcher)
@require_http_methods(["GET", "POST"])
def run_launch(request: HttpRequest) -> HttpResponse:
    """GET: the form. POST with action=estimate: the form again with the pre-flight estimate (calls, cost and time,
    answer calls apart from judge calls) and a confirm button. POST with action=launch: plan the run and go to its
    page. The other launches (benchmark, fabrication, questions) have their own small forms on the page."""
    initial = {"dataset": request.GET.get("dataset", "")}
    form = LaunchForm(request.POST or None, user=request.user, initial=initial)
    estimate = None
    context = _launch_extras(request)
    if request.method == "POST" and request.POST.get("action") == "launch":
        wait = page_throttle_wait(request, "run_launch")  # one allowance with the API's launches
        if wait is not None:
            form.is_valid()
            form.add_error(None, f"You have launched too many runs for now; try again in {wait} s.")
            response = render(request, "runs/launch.html", {"form": form, "estimate": None} | context, status=429)
            response["Retry-After"] = str(wait)
            return response
    if request.method == "POST" and form.is_valid():
        dataset = dataset_get(
            user=request.user, name=form.cleaned_data["dataset"], version=form.cleaned_data.get("dataset_version")
        )
        try:
            if dataset is None:
                raise SpecError("dataset_version", "no such version of this dataset")
            if request.POST.get("action") == "launch":
                run = launch(
                    dataset=dataset,
                    spec=form.spec(),
                    actor=request.user,
                    budget_usd=form.cleaned_data.get("budget_usd"),
                    kind=form.cleaned_data.get("kind") or Run.Kind.CDKE,
                )
                return redirect("runs:run", pk=run.pk)
            spec = RunSpec.from_dict(form.spec())
            if form.cleaned_data.get("kind") == Run.Kind.KG and spec.kg is None:
                raise SpecError("kg", "a knowledge-graph run needs a graph extractor")
            estimate = run_estimate_parts(dataset=dataset, spec=spec)
        except SpecError as exc:
            form.add_error(None, str(exc))
    status = 400 if request.method == "POST" and form.errors else 200
    return render(request, "runs/launch.html", {"form": form, "estimate": estimate} | context, status=status)


def _launch_extras(request: HttpRequest) -> dict[str, Any]:
    """What the page's other launch forms offer: pairs datasets, dkd datasets, generator endpoints."""
    visible = latest_versions(datasets_visible_to(request.user)).order_by("name")
    return {
        "pairs_datasets": visible.filter(kind="pairs"),
        "source_datasets": visible.exclude(kind="pairs"),
        "generators": selectors.endpoints_for_launch(request.user).order_by("name"),
    }


def _run_or_404(request: HttpRequest, pk: int) -> Run:
    run = selectors.run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    return run


# Below this many answers a mean's interval is wide: the page says so beside the row (our choice: the usual rule of
# thumb for a bootstrap of a mean).
SMALL_N = 30
# A judge that gives one verdict to at least this many answers is flagged (its LAV then says nothing about them).
ONE_VERDICT_MIN = 3
ANSWER_FILTERS = ("model", "condition", "status", "cls", "metric", "below", "above", "context")


def _table(run: Run) -> list[dict[str, Any]]:
    chosen = set(run.spec.get("metrics") or TABLE_METRICS) | {"ass"}
    return [
        {
            "row": row,
            "cells": [(m, row.metrics.get(m) if m in chosen else None) for m in TABLE_METRICS],
            "small": row.n < SMALL_N,
        }
        for row in result_rows(run)
    ]


def _one_verdict_judges(run: Run) -> list[dict[str, Any]]:
    """Evaluators whose LAV gave the same verdict to every answer they scored in this run."""
    flagged = []
    for evaluator in run.spec.get("evaluators", []):
        verdicts = list(
            GenerationScore.objects.filter(generation__run=run, scorer=evaluator, metric="lav", status="ok")
            .values_list("value", flat=True)
            .distinct()[:2]
        )
        n = GenerationScore.objects.filter(generation__run=run, scorer=evaluator, metric="lav", status="ok").count()
        if len(verdicts) == 1 and n >= ONE_VERDICT_MIN:
            flagged.append({"evaluator": evaluator, "n": n, "verdict": "valid" if verdicts[0] == 1.0 else "not valid"})
    return flagged


def _kg_rows(run: Run) -> list[dict[str, Any]]:
    try:
        return kg_results(run)
    except (ValueError, SpecError):  # a run without knowledge-graph options
        return []


def _answers(request: HttpRequest, run: Run) -> tuple[Any, dict[str, str]]:
    """The run's answers, filtered by the page's query (model, condition, status, error class, a metric's value,
    context), in order."""
    generations = selectors.generations_visible_to(request.user).filter(run=run).order_by("pk")
    chosen = {k: request.GET.get(k, "").strip() for k in ANSWER_FILTERS if request.GET.get(k, "").strip()}
    if "model" in chosen:
        generations = generations.filter(model__name=chosen["model"])
    if "condition" in chosen:
        generations = generations.filter(condition=chosen["condition"])
    if "status" in chosen:
        generations = generations.filter(status=chosen["status"])
    if "context" in chosen:
        generations = generations.filter(question__context__key=chosen["context"])
    metric = chosen.get("metric")
    if metric:
        scores = GenerationScore.objects.filter(generation__run=run, metric=metric, status="ok")
        for bound, lookup in (("below", "value__lt"), ("above", "value__gt")):
            if bound in chosen:
                try:
                    scores = scores.filter(**{lookup: float(chosen[bound])})
                except ValueError:
                    chosen.pop(bound)
        generations = generations.filter(pk__in=scores.values("generation_id"))
    if chosen.get("cls"):
        wanted = [pk for pk, cls in generation_classes(run).items() if cls == chosen["cls"]]
        generations = generations.filter(pk__in=wanted)
    return generations, chosen


def _correlation_plot(run: Run, correlations: list[Any]) -> Any:
    """The per-context scatter as an inline SVG whose points link to their context's answers; None when no panel
    has three contexts and a defined r (a plot would carry nothing)."""
    if not any(c.n_contexts >= 3 and c.pearson is not None for c in correlations):
        return None
    keys = dict(Context.objects.filter(dataset=run.dataset).values_list("pk", "key"))
    base = reverse("runs:run", args=[run.pk])
    urls = [[f"{base}?context={keys.get(pk, '')}#generations" for pk in c.context_ids] for c in correlations]
    series = [(f"{c.model} / {c.evaluator}", c.points, c.pearson) for c in correlations]
    # The SVG is matplotlib's own output: every label in it is XML-escaped by its SVG backend.
    return mark_safe(plots.correlation_scatter_svg(series, urls=urls))  # noqa: S308


@page_requires(is_researcher)
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run_or_404(request, pk)
    generations, filters = _answers(request, run)
    page = Paginator(generations, GENERATIONS_PER_PAGE).get_page(request.GET.get("page"))
    correlations = context_correlations(run)
    lav_accuracy = context_lav_accuracy(run)
    error_rows = [
        {
            "row": e,
            "counts": [round(share * e.n) for share in (e.followed_context, e.reverted_to_prior, e.neither)],
        }
        for e in error_class_rows(run)
    ]
    query = dict(filters)
    context = {
        "run": run,
        "table": _table(run),
        "metrics": TABLE_METRICS,
        "small_n": SMALL_N,
        "one_verdict": _one_verdict_judges(run),
        "kg_rows": _kg_rows(run),
        "graph_rows": []
        if run.spec.get("kg") or (run.manifest or {}).get("kg")
        else scoring_selectors.graph_score_rows(run),
        "error_rows": error_rows,
        "error_type_rows": error_type_rows(run),
        "error_labels": ErrorTypeJudgement.Label.choices,
        "lav_accuracy": lav_accuracy,
        "correlations": correlations,
        "correlation_svg": _correlation_plot(run, correlations),
        "show_lav_accuracy": any(c.n_contexts >= 3 and c.pearson is not None for c in lav_accuracy),
        "show_temperature": len(run.spec.get("temperatures", [])) > 1,
        "page": page,
        "filters": filters,
        "filter_query": urlencode(query),
        "models": run.spec.get("models", []),
        "conditions": run.spec.get("conditions", []),
        "classes": ERROR_CLASSES,
        "active": run.is_active,
        "has_judges": bool(run.spec.get("evaluators")),
        "effects": condition_effects(run) if {"divergent", "real"} <= set(run.spec.get("conditions", [])) else [],
        "fingerprint_lines": fingerprint_lines(run_fingerprint(run)),
    }
    flags = judge_flags(run)  # judges whose agreement with people is below the run's judge_min_agreement
    for item in context["table"]:
        item["flag"] = flags.get(item["row"].evaluator)
    context["judge_flags"] = flags
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
    siblings = selectors.generations_visible_to(request.user).filter(run=run)
    previous = siblings.filter(pk__lt=generation.pk).order_by("-pk").values_list("pk", flat=True).first()
    following = siblings.filter(pk__gt=generation.pk).order_by("pk").values_list("pk", flat=True).first()
    alterations = list(generation.question.context.alterations.all())
    facts = [a.original if generation.condition == "real" else a.divergent for a in alterations]
    context_html = facts_marked(detail["context"], facts, generation.text)
    return render(
        request,
        "runs/generation_detail.html",
        {
            "run": run,
            "detail": detail,
            "previous": previous,
            "following": following,
            "context_html": context_html,
            "error_class": generation_classes(run).get(generation.pk) if generation.status == "done" else None,
        },
    )


def facts_marked(text: str, facts: list[str], answer: str) -> Any:
    """The context escaped, each altered fact marked, and the facts the answer states marked as stated."""
    stated = {f for f in facts if f.strip() and f.lower() in answer.lower()}
    spans: list[tuple[int, int, str]] = []
    lowered = text.lower()
    for fact in sorted({f for f in facts if f.strip()}, key=len, reverse=True):
        start = lowered.find(fact.lower())
        while start != -1:
            end = start + len(fact)
            if all(end <= s or start >= e for s, e, _ in spans):
                spans.append((start, end, "stated" if fact in stated else "fact"))
            start = lowered.find(fact.lower(), end)
    out: list[str] = []
    position = 0
    for start, end, kind in sorted(spans):
        out.append(escape(text[position:start]))
        title = "the answer states this fact" if kind == "stated" else "an altered fact the answer does not state"
        out.append(f'<mark class="{kind}" title="{title}">{escape(text[start:end])}</mark>')
        position = end
    out.append(escape(text[position:]))
    return mark_safe("".join(out))  # noqa: S308 (every piece of text went through escape())


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
