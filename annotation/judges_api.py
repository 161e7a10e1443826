"""GET /api/runs/<id>/judges/: the run's panel of judges and its judges against people, as the judges page shows
them (scoped like the run's other results: a run the user cannot see is a 404)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.judge_agreement import judge_agreement, judge_agreement_json
from evalplatform.permissions import RESEARCHER_ONLY
from evalplatform.runs.api import visible_run_or_404
from scoring.cdke.panel_results import panel_results_json


class RunJudgesView(APIView):
    """The panel (rules, per model / condition / temperature: verdicts, Krippendorff's alpha per metric with its
    interval, split answers) and each judge, the panel, ASS and CUS against people (kappa, Pearson, Spearman with
    intervals, confusion matrix, disagreements with their answer pages, ``flagged``)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        return Response(
            {"run": run.pk, "panel": panel_results_json(run), "people": judge_agreement_json(judge_agreement(run))}
        )
