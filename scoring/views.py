"""Benchmark pages: the method x dataset F1 / AUROC heatmap (S3KG paper, Fig. 3) and alpha-sweep curves,
from the similarity_benchmark runs the user sees."""

from collections import defaultdict

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import plots
from scoring.selectors import benchmark_grid, benchmark_results_visible_to

METRICS = {"f1": "max F1", "auroc": "AUROC"}


@page_requires(is_researcher)
def benchmarks(request: HttpRequest) -> HttpResponse:
    results = benchmark_results_visible_to(request.user).order_by("run__dataset__name", "method")
    return render(request, "scoring/benchmarks.html", {"results": results, "metrics": METRICS})


@page_requires(is_researcher)
def heatmap(request: HttpRequest, metric: str) -> HttpResponse:
    if metric not in METRICS:
        raise Http404("unknown metric")
    grid = benchmark_grid(benchmark_results_visible_to(request.user), metric)
    return HttpResponse(plots.heatmap_svg(grid, METRICS[metric]), content_type="image/svg+xml")


@page_requires(is_researcher)
def alpha_sweep(request: HttpRequest, metric: str) -> HttpResponse:
    """One curve per (method, dataset) through the results of methods named 'method@alpha=a'."""
    if metric not in METRICS:
        raise Http404("unknown metric")
    per_dataset: dict[str, dict[str, float | None]] = defaultdict(dict)
    for (method, dataset), value in benchmark_grid(benchmark_results_visible_to(request.user), metric).items():
        per_dataset[dataset][method] = value
    curves = {
        f"{base} on {dataset}": points
        for dataset, methods in sorted(per_dataset.items())
        for base, points in plots.alpha_points(methods).items()
    }
    svg = plots.line_chart_svg(curves, xlabel="alpha", ylabel=METRICS[metric], title="Alpha sweep")
    return HttpResponse(svg, content_type="image/svg+xml")
