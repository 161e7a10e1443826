"""The comparison page: pick two or more runs of one dataset, see their results side by side with the difference,
its paired interval and test, and a per-question diff of their answers."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import selectors
from evalplatform.runs.models import Run
from scoring.cdke.compare import answer_diff, compare_runs

MAX_COMPARED = 8


@page_requires(is_researcher)
def run_compare(request: HttpRequest) -> HttpResponse:
    visible = selectors.runs_visible_to(request.user).exclude(kind=Run.Kind.SIMILARITY_BENCHMARK)
    chosen_ids = [int(i) for i in request.GET.getlist("runs") if i.isdigit()]
    if len(chosen_ids) == 1 and "," in request.GET.get("runs", ""):
        chosen_ids = [int(i) for i in request.GET["runs"].split(",") if i.strip().isdigit()]
    runs = [run for pk in chosen_ids[:MAX_COMPARED] if (run := visible.filter(pk=pk).first()) is not None]
    context: dict[str, Any] = {"choices": visible.order_by("-pk")[:200], "runs": runs, "chosen": chosen_ids}
    status = 200
    if len(runs) >= 2:
        if len({r.dataset.name for r in runs}) > 1:
            context["error"] = "Compare runs of one dataset (any of its versions)."
            status = 400
        else:
            rows = compare_runs(runs)
            context["rows"] = rows
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
