"""The judges page of a run (/runs/<id>/judges/): the panel of judges (Krippendorff's alpha per metric, the answers
where the judges split) and the judges, the panel, ASS and CUS against people on the calibration sample."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.judge_agreement import answer_url, judge_agreement
from evalplatform.permissions import page_requires
from evalplatform.roles import is_researcher
from evalplatform.runs import selectors
from scoring.cdke.panel_results import panel_results, run_panel_spec

METRIC_NAMES = {"lav": "LAV", "acc": "Acc", "cm": "Cm"}


@page_requires(is_researcher)
def run_judges(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.run_get(user=request.user, pk=pk)
    if run is None:
        raise Http404("no such run")
    groups = [
        {
            "group": group,
            "metrics": [
                {
                    "name": METRIC_NAMES[metric],
                    "result": result,
                    "splits": [(g, answer_url(run.pk, int(g))) for g in result.splits],  # type: ignore[call-overload]
                }
                for metric, result in group.metrics.items()
            ],
        }
        for group in panel_results(run)
    ]
    report = judge_agreement(run)
    people: list[dict[str, Any]] = [
        {
            "metric": metric,
            "name": METRIC_NAMES[metric],
            "rows": [
                {
                    "row": row,
                    "disagreements": [(g, answer_url(run.pk, int(g))) for g in row.agreement.disagreements],  # type: ignore[call-overload]
                    "estimates": [row.agreement.kappa, row.agreement.pearson, row.agreement.spearman],
                    "confusion": row.agreement.confusion,
                    "confusion_rows": list(
                        zip(row.agreement.confusion.categories, row.agreement.confusion.counts, strict=True)
                    )
                    if row.agreement.confusion
                    else [],
                }
                for row in rows
            ],
        }
        for metric, rows in report.metrics.items()
    ]
    context = {
        "run": run,
        "rules": run_panel_spec(run).as_manifest(),
        "groups": groups,
        "report": report,
        "people": people,
    }
    return render(request, "annotation/run_judges.html", context)
