"""Benchmark pages: the method x dataset F1 / AUROC heatmap (S3KG paper, Fig. 3) and alpha-sweep curves,
from the similarity_benchmark runs the user sees."""

from collections import defaultdict

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from evalplatform.corpus.selectors import datasets_visible_to, latest_versions
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import plots
from evalplatform.runs.selectors import endpoints_for_launch
from scoring.selectors import benchmark_grid, benchmark_results_visible_to, benchmark_runs_visible_to

METRICS = {"f1": "max F1", "auroc": "AUROC"}


@page_requires(is_researcher)
def benchmarks(request: HttpRequest) -> HttpResponse:
    results = benchmark_results_visible_to(request.user).order_by("run__dataset__name", "method")
    context = {
        "results": results,
        "metrics": METRICS,
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
