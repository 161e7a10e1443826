"""``GET /api/runs/<id>/conflict/``: a run's knowledge-conflict figures (issue 17), for researchers who see the
run, as its other results are."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evalplatform.permissions import RESEARCHER_ONLY
from evalplatform.runs.api import visible_run_or_404
from scoring.cdke.conflict_results import conflict_results


class RunConflictView(APIView):
    """Per model, condition and temperature: the prior classes from the closed-book answers, context-following on
    all items and where the conflict exists, the memorisation ratio, context preference by kind and by distance,
    each with its 95 % bootstrap interval; and every two models compared on shared conflict items (McNemar).
    ``reason`` says why a run has none (no closed-book answers: launch with the ``none`` condition)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        return Response(conflict_results(run).as_json())
