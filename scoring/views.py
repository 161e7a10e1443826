"""Benchmark pages: the method x dataset F1 / AUROC heatmap (S3KG paper, Fig. 3) and alpha-sweep curves,
from the similarity_benchmark runs the user sees, with the paper's own sweep (Table 4) beside ours.

The sweep's axis is alpha as the weight of the structural (WL) score, the authors' convention
(``scoring.alpha_sweep``); results stored under the older Eq. 2 names are flipped onto it and marked.

The comparison page (``/runs/compare/``): two or more runs of one dataset side by side with the difference, its
paired interval and test, the judges flagged in any of them, and a per-question diff of their answers."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from annotation.judge_agreement import judge_flags_across
from evalplatform.corpus.selectors import datasets_visible_to, latest_versions
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import plots, selectors
from evalplatform.runs.models import Run
from evalplatform.runs.selectors import endpoints_for_launch
from scoring.alpha_sweep import PAPER_TABLE4, SWEEP_ALPHAS, paper_table4_curves, sweep_curves
from scoring.cdke.compare import MAX_COMPARED, answer_diff, compare_runs
from scoring.selectors import benchmark_grid, benchmark_results_visible_to, benchmark_runs_visible_to

METRICS = {"f1": "max F1", "auroc": "AUROC"}
ALPHA_AXIS = "alpha = weight of the structural (WL) score (authors' code, paper Tables 4-6)"
FLIPPED = " (Eq. 2 alpha, flipped)"


def _per_dataset(user: Any, metric: str) -> dict[str, dict[str, float | None]]:
    per_dataset: dict[str, dict[str, float | None]] = defaultdict(dict)
    for (method, dataset), value in benchmark_grid(benchmark_results_visible_to(user), metric).items():
        per_dataset[dataset][method] = value
    return per_dataset


def _sweep_tables(user: Any) -> list[dict[str, Any]]:
    """Per dataset with sweep results: one row per alpha, our variants' F1 and AUROC, then the paper's Table 4."""
    paper_columns = [f"paper {name} {METRICS[m]}" for name in PAPER_TABLE4 for m in METRICS]
    ours: dict[str, dict[str, dict[float, float]]] = defaultdict(dict)
    for metric, label in METRICS.items():
        for dataset, methods in _per_dataset(user, metric).items():
            for (base, flipped), points in sweep_curves(methods).items():
                ours[dataset][f"{base}{FLIPPED if flipped else ''} {label}"] = dict(points)
    tables = []
    for dataset, columns in sorted(ours.items()):
        names = sorted(columns)
        rows = [
            {
                "alpha": alpha,
                "ours": [columns[name].get(alpha) for name in names],
                "paper": [PAPER_TABLE4[p][m][i] for p in PAPER_TABLE4 for m in METRICS],
            }
            for i, alpha in enumerate(SWEEP_ALPHAS)
        ]
        tables.append({"dataset": dataset, "columns": names, "paper_columns": paper_columns, "rows": rows})
    return tables


@page_requires(is_researcher)
def benchmarks(request: HttpRequest) -> HttpResponse:
    results = benchmark_results_visible_to(request.user).order_by("run__dataset__name", "method")
    context = {
        "results": results,
        "metrics": METRICS,
        "alpha_axis": ALPHA_AXIS,
        "paper_sets": list(PAPER_TABLE4),
        "paper_rows": [
            {"alpha": alpha, "cells": [PAPER_TABLE4[p][m][i] for p in PAPER_TABLE4 for m in METRICS]}
            for i, alpha in enumerate(SWEEP_ALPHAS)
        ],
        "sweep_tables": _sweep_tables(request.user),
        "runs": benchmark_runs_visible_to(request.user).order_by("-pk")[:100],
        "pairs_datasets": latest_versions(datasets_visible_to(request.user)).filter(kind="pairs").order_by("name"),
        "generators": endpoints_for_launch(request.user).order_by("name"),
    }
    return render(request, "scoring/benchmarks.html", context)


@page_requires(is_researcher)
def benchmark_run(request: HttpRequest, pk: int) -> HttpResponse:
    """One similarity-benchmark run: every method's max F1 with its threshold, precision and recall, and AUROC, the
    methods that could not run and why, and the pairs whose graph was empty."""
    run = benchmark_runs_visible_to(request.user).filter(pk=pk).first()
    if run is None:
        raise Http404("no such benchmark run")
    results = list(run.benchmark_results.order_by("-auroc", "method"))
    scored = [r for r in results if r.status != "unavailable"]
    grid = {(r.method, run.dataset.name): r.auroc for r in scored}
    # The SVG is matplotlib's own output: every label in it is XML-escaped by its SVG backend.
    heatmap = mark_safe(plots.heatmap_svg(grid, "AUROC")) if len(scored) > 1 else None  # noqa: S308
    return render(
        request,
        "scoring/benchmark_run.html",
        {
            "run": run,
            "results": scored,
            "unavailable": [r for r in results if r.status == "unavailable"],
            "heatmap": heatmap,
        },
    )


@page_requires(is_researcher)
def heatmap(request: HttpRequest, metric: str) -> HttpResponse:
    if metric not in METRICS:
        raise Http404("unknown metric")
    grid = benchmark_grid(benchmark_results_visible_to(request.user), metric)
    return HttpResponse(plots.heatmap_svg(grid, METRICS[metric]), content_type="image/svg+xml")


@page_requires(is_researcher)
def alpha_sweep(request: HttpRequest, metric: str) -> HttpResponse:
    """One curve per (variant, dataset) through the sweep results, and the paper's Table 4 curves."""
    if metric not in METRICS:
        raise Http404("unknown metric")
    curves = {
        f"{base} on {dataset}{FLIPPED if flipped else ''}": points
        for dataset, methods in sorted(_per_dataset(request.user, metric).items())
        for (base, flipped), points in sweep_curves(methods).items()
    }
    curves |= paper_table4_curves(metric)
    svg = plots.line_chart_svg(curves, xlabel=ALPHA_AXIS, ylabel=METRICS[metric], title="Alpha sweep")
    return HttpResponse(svg, content_type="image/svg+xml")


@page_requires(is_researcher)
def run_compare(request: HttpRequest) -> HttpResponse:
    visible = selectors.runs_visible_to(request.user).exclude(kind=Run.Kind.SIMILARITY_BENCHMARK)
    # Ticked boxes (runs=1&runs=2) or the API's form (runs=1,2): both name the runs in order.
    named = [part.strip() for value in request.GET.getlist("runs") for part in value.split(",")]
    chosen_ids = [int(i) for i in named if i.isdigit()]
    runs = [run for pk in chosen_ids[:MAX_COMPARED] if (run := visible.filter(pk=pk).first()) is not None]
    context: dict[str, Any] = {"choices": visible.order_by("-pk")[:200], "runs": runs, "chosen": chosen_ids}
    status = 200
    if len(runs) >= 2:
        if len({r.dataset.name for r in runs}) > 1:
            context["error"] = "Compare runs of one dataset (any of its versions)."
            status = 400
        else:
            rows = compare_runs(runs)
            flags = judge_flags_across(runs)  # judges under a compared run's judge_min_agreement
            context["rows"] = rows
            context["flagged_rows"] = [(row, flags.get(row.evaluator)) for row in rows]
            models = sorted({row.model for row in rows})
            conditions = sorted({row.condition for row in rows})
            model = request.GET.get("model") or (models[0] if models else "")
            condition = request.GET.get("condition") or ("divergent" if "divergent" in conditions else conditions[0])
            metric = request.GET.get("metric", "ass")
            context |= {
                "models": models,
                "conditions": conditions,
                "model": model,
                "condition": condition,
                "metric": metric,
                "diffs": answer_diff(runs, model=model, condition=condition, metric=metric)[:50] if model else [],
                "runs_param": ",".join(str(r.pk) for r in runs),
            }
    elif chosen_ids:
        context["error"] = "Choose two runs or more that you can see."
        status = 400
    return render(request, "runs/compare.html", context, status=status)
