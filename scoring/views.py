"""Benchmark pages: the method x dataset F1 / AUROC heatmap (S3KG paper, Fig. 3) and alpha-sweep curves,
from the similarity_benchmark runs the user sees, with the paper's own sweep (Table 4) beside ours.

The sweep's axis is alpha as the weight of the structural (WL) score, the authors' convention
(``scoring.alpha_sweep``); results stored under the older Eq. 2 names are flipped onto it and marked."""

from collections import defaultdict
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from evalplatform.corpus.selectors import datasets_visible_to, latest_versions
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import plots
from evalplatform.runs.selectors import endpoints_for_launch
from scoring.alpha_sweep import PAPER_TABLE4, SWEEP_ALPHAS, paper_table4_curves, sweep_curves
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
