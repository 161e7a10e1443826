"""The runs API under /api/runs/ and /api/endpoints/: list and launch runs (POST, throttled), the
pre-flight estimate, progress, results, generations with every score, the drill-down, stop and resume,
and streamed exports (throttled). Every lookup goes through the scoped selectors."""

from typing import Any

import django_filters
from django.core.cache import cache
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.judge_agreement import judge_flags
from evalplatform.corpus.api import visible_dataset_or_404
from evalplatform.corpus.models import Dataset
from evalplatform.permissions import RESEARCHER_ONLY
from evalplatform.runs import selectors, services
from evalplatform.runs.estimate import run_estimate_parts
from evalplatform.runs.fingerprint import fingerprint_lines, run_fingerprint
from evalplatform.runs.launch import run_launch, run_resume
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.serializers import (
    EndpointSerializer,
    EstimateSerializer,
    GenerationDetailSerializer,
    GenerationSerializer,
    ProgressSerializer,
    ResumeSerializer,
    RunLaunchSerializer,
    RunSerializer,
)
from evalplatform.runs.spec import RunSpec, SpecError
from evalplatform.runs.tasks import run_watch_task
from evalplatform.runs.watchdog import run_is_stale
from scoring import selectors as scoring_selectors
from scoring.cdke.results import results_intervals, run_results_json
from scoring.exports import FORMATS, KINDS, export_run


def visible_run_or_404(request: Request, pk: int) -> Run:
    run = selectors.run_get(user=request.user, pk=pk)
    if run is None:
        raise NotFound(f"no run {pk} that you can see")
    return run


def launch_checked(request: Request) -> tuple[Dataset, RunLaunchSerializer]:
    serializer = RunLaunchSerializer(data=request.data)
    serializer.is_valid(raise_exception=True)
    data = serializer.validated_data
    dataset = datasets_or_400(request, data["dataset"], data.get("dataset_version"))
    return dataset, serializer


def datasets_or_400(request: Request, name: str, version: int | None = None) -> Dataset:
    try:
        return visible_dataset_or_404(request, name, version)
    except NotFound as exc:
        raise ValidationError({"dataset": str(exc.detail)}) from None


class EndpointListView(generics.ListAPIView):
    """The active model endpoints a run may use, with their prices (the name of a key's variable is never shown)."""

    serializer_class = EndpointSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_fields = ["provider", "mode"]

    def get_queryset(self) -> QuerySet[ModelEndpoint]:
        return selectors.endpoints_for_launch(self.request.user).order_by("name")


class RunFilter(django_filters.FilterSet):
    dataset = django_filters.CharFilter(field_name="dataset__name")

    class Meta:
        model = Run
        fields = ["status", "kind", "dataset"]


class RunListView(generics.ListCreateAPIView):
    """GET: the runs you see. POST: launch a CDK-E or knowledge-graph run with any option of ``run_cdke`` /
    ``run_kg`` (a field it does not know is a 400; throttled by the run_launch scope)."""

    serializer_class = RunSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_class = RunFilter

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        # The browsable API's form shows the launch body, not a run.
        return RunLaunchSerializer if self.request.method == "POST" else RunSerializer

    @property
    def throttle_scope(self) -> str | None:
        return "run_launch" if self.request.method == "POST" else None

    def get_queryset(self) -> QuerySet[Run]:
        return selectors.runs_visible_to(self.request.user)

    @extend_schema(request=RunLaunchSerializer, responses={201: RunSerializer, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        dataset, serializer = launch_checked(request)
        try:
            run = run_launch(
                dataset=dataset,
                spec=serializer.spec(),
                actor=request.user,
                budget_usd=serializer.validated_data.get("budget_usd"),
                kind=serializer.validated_data["kind"],
            )
        except SpecError as exc:
            raise ValidationError({exc.field: str(exc)}) from exc
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)


class RunEstimateView(APIView):
    """The pre-flight estimate of a run before it is launched: calls, tokens, cost and time, answer calls apart
    from judge calls (nothing is written)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=RunLaunchSerializer, responses={200: EstimateSerializer, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        dataset, serializer = launch_checked(request)
        try:
            spec = RunSpec.from_dict(serializer.spec())
            if serializer.validated_data["kind"] == Run.Kind.KG and spec.kg is None:
                raise SpecError("kg", "a kg run needs its knowledge-graph options")
            estimate = run_estimate_parts(dataset=dataset, spec=spec)
        except SpecError as exc:
            raise ValidationError({exc.field: str(exc)}) from exc
        return Response(EstimateSerializer(estimate.as_json()).data)


class RunDetailView(generics.RetrieveAPIView):
    """One run: its spec, status, progress, cost, manifest and the dataset version it used."""

    serializer_class = RunSerializer
    permission_classes = RESEARCHER_ONLY

    def get_object(self) -> Run:
        return visible_run_or_404(self.request, self.kwargs["pk"])


class RunProgressView(generics.RetrieveAPIView):
    """The small JSON the runs page polls. A poll that finds the run stale asks the watchdog to look at it (at
    most once a minute per run), so that a run whose worker died recovers even without a beat running."""

    serializer_class = ProgressSerializer
    permission_classes = RESEARCHER_ONLY

    def get_object(self) -> Run:
        run = visible_run_or_404(self.request, self.kwargs["pk"])
        if run_is_stale(run) and cache.add(f"run-watch-{run.pk}", 1, timeout=60):
            run_watch_task.delay(run.pk)
        return run


class RunResultsView(APIView):
    """Table 2 rows with intervals and counts, error classes, correlations, and GoldSim / CtxSim / CUS, with the
    run's fingerprint (and its lines, as printed above every table)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        data = run_results_json(run)
        data["intervals"] = results_intervals(run)
        data["graph_scores"] = [row.__dict__ for row in scoring_selectors.graph_score_rows(run)]
        flags = judge_flags(run)  # judges whose agreement with people is below the run's judge_min_agreement
        for row in [*data["rows"], *data["intervals"]]:
            row["flagged"], row["flag_reason"] = row["evaluator"] in flags, flags.get(row["evaluator"])
        data["fingerprint"] = run_fingerprint(run)
        data["fingerprint_lines"] = fingerprint_lines(data["fingerprint"])
        return Response(data)


class GenerationFilter(django_filters.FilterSet):
    model = django_filters.CharFilter(field_name="model__name")
    question = django_filters.CharFilter(field_name="question__key")

    class Meta:
        model = Generation
        fields = ["status", "condition", "temperature", "model", "question"]


class GenerationListView(generics.ListAPIView):
    """A run's answers (one per cell), filterable by status, condition, temperature, model and question."""

    serializer_class = GenerationSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_class = GenerationFilter

    def get_queryset(self) -> QuerySet[Generation]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator, with no URL arguments
            return Generation.objects.none()
        run = visible_run_or_404(self.request, self.kwargs["pk"])
        return selectors.generations_visible_to(self.request.user).filter(run=run).order_by("pk")


class GenerationDetailView(APIView):
    """One answer with every score (and the judge's raw output), the three graphs and the TAU diagnosis."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: GenerationDetailSerializer})
    def get(self, request: Request, pk: int, gen: int) -> Response:
        run = visible_run_or_404(request, pk)
        generation = selectors.generation_get(user=request.user, run=run, pk=gen)
        if generation is None:
            raise NotFound(f"no generation {gen} in run {pk}")
        return Response(GenerationDetailSerializer(scoring_selectors.generation_detail(generation)).data)


class RunStopView(APIView):
    """Stop an active run (cancelled); what it has is kept and a resume takes it up where it stopped."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=None, responses={200: RunSerializer})
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        services.run_stop(
            run_id=run.pk, status=Run.Status.CANCELLED, reason=f"stopped by {request.user}", actor=request.user
        )
        run.refresh_from_db()
        return Response(RunSerializer(run).data)


class RunResumeView(APIView):
    """Resume a stopped or interrupted run; with ``retry_failed`` also retry only its failed cells and scores,
    a finished run's included (what succeeded is kept; what was asked before comes from the cache)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=ResumeSerializer, responses={200: RunSerializer, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        body = ResumeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        retry_failed = body.validated_data["retry_failed"]
        if run.kind == Run.Kind.SIMILARITY_BENCHMARK:
            raise ValidationError({"kind": "a benchmark run is not resumed from here"})
        if run.status == Run.Status.DONE and not retry_failed:
            raise ValidationError({"status": "the run is done; give retry_failed to retry its failed units"})
        if run.status == Run.Status.DONE and not run.progress_failed:
            raise ValidationError({"status": "the run is done and nothing in it failed: there is nothing to retry"})
        run_resume(run=run, retry_failed=retry_failed, actor=request.user)
        run.refresh_from_db()
        return Response(RunSerializer(run).data)


class RunExportView(APIView):
    """A run's generations or scores as CSV or JSONL, streamed from a cursor (throttled by 'export')."""

    permission_classes = RESEARCHER_ONLY
    throttle_scope = "export"

    @extend_schema(responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY)})
    def get(self, request: Request, pk: int, kind: str, fmt: str) -> StreamingHttpResponse:
        run = visible_run_or_404(request, pk)
        if kind not in KINDS or fmt not in FORMATS:
            raise NotFound(f"exports are {', '.join(KINDS)} as {', '.join(FORMATS)}")
        services.run_export_record(run=run, kind=kind, fmt=fmt, actor=request.user)
        response = StreamingHttpResponse(export_run(run, kind, fmt), content_type=FORMATS[fmt])
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-{kind}.{fmt}"'
        return response
