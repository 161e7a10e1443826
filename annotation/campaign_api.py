"""The campaign API: a researcher queues a dataset's questions for review, samples a run's answers for calibration,
sends a run's lowest-TAU items to alignment, and reads the campaign's progress. Each queueing call is idempotent and
answers how many it queued (``queued``), how many were queued before (``already_queued``) and how many could not be
(``skipped``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import services
from annotation.campaign_selectors import Campaign, campaign_overview
from annotation.permissions import IsReviewer
from evalplatform.corpus.api import visible_dataset_or_404
from evalplatform.permissions import RESEARCHER_ONLY
from evalplatform.runs.api import visible_run_or_404
from evalplatform.strict import StrictFieldsMixin

QueuedOut = inline_serializer(
    "QueuedOut",
    {
        "queued": serializers.IntegerField(help_text="Items queued by this call."),
        "already_queued": serializers.IntegerField(help_text="Items queued before (nothing is queued twice)."),
        "skipped": serializers.IntegerField(help_text="Items that could not be queued (see the endpoint)."),
    },
)


class CalibrationSampleSerializer(StrictFieldsMixin, serializers.Serializer):
    sample_size = serializers.IntegerField(min_value=1, max_value=10_000, help_text="How many answers to draw.")
    seed = serializers.IntegerField(default=0, help_text="The same seed draws the same sample.")


class DatasetReviewQueueView(APIView):
    """Queue every draft question of a dataset (``?version=N``, else its latest version) for two blind reviews.
    Validated and rejected questions are ``skipped``; questions in review already are ``already_queued``."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(
        request=None,
        parameters=[OpenApiParameter("version", OpenApiTypes.INT, description="A version; the latest if left out.")],
        responses={200: QueuedOut},
    )
    def post(self, request: Request, name: str) -> Response:
        dataset = visible_dataset_or_404(request, name)
        if request.data:
            raise ValidationError({key: ["this request takes no body"] for key in request.data})
        queued = services.review_queue_dataset(dataset=dataset, actor=request.user)  # type: ignore[arg-type]
        return Response(queued.as_json() | {"dataset": dataset.name, "version": dataset.version})


class RunCalibrationView(APIView):
    """Draw a seeded sample of the run's answered generations for human LAV / Acc / Cm labels; ``skipped`` is how
    many more were asked for than the run has."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=CalibrationSampleSerializer, responses={200: QueuedOut, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        body = CalibrationSampleSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            queued = services.calibration_sample(run=run, actor=request.user, **body.validated_data)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValidationError({"run": [str(exc)]}) from exc
        return Response(queued.as_json() | {"run": run.pk})


class RunTauQueueView(APIView):
    """Send the run's TAU diagnoses (the lowest 5 % of each model, temperature and condition) to three-annotator
    alignment; 400 when the run has no diagnosis yet (score its knowledge graphs first)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=None, responses={200: QueuedOut, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        try:
            queued = services.tau_queue_run(run=run, actor=request.user)  # type: ignore[arg-type]
        except ValueError as exc:
            raise ValidationError({"run": [str(exc)]}) from exc
        return Response(queued.as_json() | {"run": run.pk})


def campaign_json(campaign: Campaign) -> dict[str, Any]:
    return {
        "datasets": [
            {
                "dataset": d.dataset.name,
                "version": d.dataset.version,
                "questions": d.questions,
                "question_status": d.status,
                "review_items": d.items,
                "reviews_submitted": d.reviews_submitted,
                "agreement": {"pairs": d.agreement.pairs, "kappa": d.agreement.kappa, "raw": d.agreement.raw},
            }
            for d in campaign.datasets
        ],
        "annotators": [a.__dict__ for a in campaign.annotators],
        "runs": [
            {
                "run": r.run.pk,
                "dataset": r.run.dataset.name,
                "tau_items": r.tau_items,
                "tau_complete": r.tau_complete,
                "tau_labels": r.tau_labels,
                "tau_pairwise_f1": r.tau_pairwise_f1,
                "calibration_items": r.calibration_items,
                "calibration_labels": r.calibration_labels,
            }
            for r in campaign.runs
        ],
        "waiting_for_consensus": [
            {"item": i.pk, "dataset": i.question.dataset.name, "question": i.question.key} for i in campaign.waiting
        ],
    }


class CampaignView(APIView):
    """The campaign's progress: per dataset (questions by status, review items by state, agreement so far), per
    annotator (submitted and open work), per run (TAU and calibration), and the items waiting for consensus."""

    permission_classes = [IsReviewer]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        return Response(campaign_json(campaign_overview(user=request.user)))
