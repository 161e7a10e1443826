"""The API of test–retest and reproduction, under a run: ``GET /api/runs/<id>/retest/`` (each retest of the run with
each judge's agreement with itself), ``POST`` the same (start or resume one: 202), ``GET /api/runs/<id>/fingerprint/``
(its fingerprint and the lines printed with its tables), ``POST /api/runs/<id>/reproduce/`` (launch its
reproduction: 201 with the new run) and ``GET`` the same on a reproduction (every score that moved). Researchers
who see the run only, as for its results; every start is audited."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evalplatform.permissions import RESEARCHER_ONLY
from evalplatform.runs import selectors
from evalplatform.runs.api import visible_run_or_404
from evalplatform.runs.fingerprint import fingerprint_lines, run_fingerprint
from evalplatform.runs.serializers import RunSerializer
from evalplatform.runs.spec import SpecError
from evalplatform.strict import StrictFieldsMixin
from scoring.cdke.reproduce import ReproduceError, moved_scores, reproduce_launch
from scoring.cdke.retest import MAX_RETEST_SAMPLE, retest_report
from scoring.services.launches import LaunchError, retest_launch


class RetestSerializer(StrictFieldsMixin, serializers.Serializer):
    sample = serializers.IntegerField(min_value=1, max_value=MAX_RETEST_SAMPLE, default=50)
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)


class ReproduceSerializer(StrictFieldsMixin, serializers.Serializer):
    use_cache = serializers.BooleanField(default=False, help_text="Serve repeated calls from the response cache.")


class RunRetestView(APIView):
    """GET: every retest of the run (newest first), each evaluator's agreement with itself per metric: Cohen's kappa
    for LAV, ICC(2,1) for Acc and Cm, with a 95 % bootstrap interval and n. POST: judge ``sample`` answers of the
    finished run again, drawn with ``seed``, the response cache off (the same sample and seed resume a retest)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        fingerprint = run_fingerprint(run)
        return Response(
            {
                "run": run.pk,
                "fingerprint": fingerprint["hash"],
                "fingerprint_lines": fingerprint_lines(fingerprint),
                "retests": retest_report(run),
            }
        )

    @extend_schema(request=RetestSerializer, responses={202: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        body = RetestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            batch = retest_launch(
                run=run,
                sample_size=body.validated_data["sample"],
                seed=body.validated_data["seed"],
                actor=request.user,  # type: ignore[arg-type]
            )
        except LaunchError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return Response(
            {"queued": "retest", "batch": batch.pk, "answers": len(batch.generations), "evaluators": batch.evaluators},
            status=status.HTTP_202_ACCEPTED,
        )


class RunFingerprintView(APIView):
    """The run's fingerprint: code version, prompt versions, constants, models and evaluators (never a key),
    dataset version, seeds and temperatures, and its stable hash."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        fingerprint = run_fingerprint(visible_run_or_404(request, pk))
        return Response({"fingerprint": fingerprint, "lines": fingerprint_lines(fingerprint)})


class RunReproduceView(APIView):
    """POST: run this finished run again from its fingerprint (the cache off unless ``use_cache``); 201 with the
    new run. GET on a reproduction: every score that moved from the run it reproduces (old, new, delta)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=ReproduceSerializer, responses={201: RunSerializer, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        body = ReproduceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            second = reproduce_launch(run=run, use_cache=body.validated_data["use_cache"], actor=request.user)
        except (ReproduceError, SpecError) as exc:
            raise ValidationError({getattr(exc, "field", "run"): [str(exc)]}) from exc
        return Response(RunSerializer(second).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        second = visible_run_or_404(request, pk)
        original_id = (second.manifest or {}).get("reproduces")
        first = selectors.run_get(user=request.user, pk=original_id) if isinstance(original_id, int) else None
        if first is None:
            raise ValidationError({"run": [f"run {pk} is not a reproduction of a run you can see"]})
        return Response(moved_scores(first, second).as_json() | {"status": second.status})
