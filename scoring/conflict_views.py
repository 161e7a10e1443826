"""The run's knowledge-conflict page (issue 17): does each model know the fact closed-book, and does it follow the
context where it did; the memorisation ratio, context preference by kind and by distance (with ClashEval's plot),
and the models compared on shared conflict items."""

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import plots, selectors
from scoring.cdke.conflict_results import ConflictResults, ConflictRow, conflict_results
from scoring.conflict import ALTERATION_KINDS, PRIOR_CLASSES
from scoring.stats import Estimate


def _points(row: ConflictRow, kind: str) -> list[plots.PreferencePoint]:
    bins = row.preference_by_number_distance if kind == "number" else row.preference_by_date_distance
    out: list[plots.PreferencePoint] = []
    for b in bins:
        rate: Estimate = b.preference.rate
        out.append((b.label, rate.value, rate.low, rate.high, rate.n))
    return out


def _distance_plot(results: ConflictResults) -> Any:
    panels = {
        kind: {f"{r.model} / {r.condition} / T={r.temperature:g}": _points(r, kind) for r in results.rows}
        for kind in ("number", "date")
    }
    # The SVG is matplotlib's own output: every label in it is XML-escaped by its SVG backend.
    return mark_safe(plots.preference_by_distance_svg(panels))  # noqa: S308


@page_requires(is_researcher)
def run_conflict(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    results = conflict_results(run)
    rows = [
        {
            "row": r,
            "priors": [r.following.priors.get(p, 0) for p in PRIOR_CLASSES],
            "kinds": [r.preference_by_kind[k] for k in ALTERATION_KINDS],
        }
        for r in results.rows
    ]
    context = {
        "run": run,
        "results": results,
        "rows": rows,
        "prior_classes": PRIOR_CLASSES,
        "kinds": ALTERATION_KINDS,
        "distance_svg": _distance_plot(results) if results.rows else None,
    }
    return render(request, "runs/run_conflict.html", context)
