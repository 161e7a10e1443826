"""The API of the methods' longer jobs: a knowledge-graph pass over a run, a similarity benchmark, the fabrication
of divergent contexts and the generation of draft questions. Each answers 202 once its job is queued (a bad request
is a 400 that names the field, and nothing is queued); the job's results appear where the command's would: the run's
graph scores, a new benchmark run, the fabricated dataset, the dataset's draft questions."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evalplatform.corpus.api import visible_dataset_or_404
from evalplatform.permissions import RESEARCHER_ONLY
from evalplatform.runs.api import datasets_or_400, visible_run_or_404
from evalplatform.runs.serializers import KGOptionsSerializer
from evalplatform.strict import StrictFieldsMixin
from scoring.cdke.fabricate import DEFAULT_ALTERATIONS
from scoring.cdke.questions import DEFAULT_QUESTIONS
from scoring.services.launches import (
    LaunchError,
    benchmark_launch,
    fabrication_launch,
    graph_pass_launch,
    kg_options,
    questions_launch,
)

QueuedJob = inline_serializer(
    "QueuedJob",
    {"queued": serializers.CharField(help_text="The job sent to the workers."), "detail": serializers.CharField()},
)


class GraphPassSerializer(KGOptionsSerializer):
    use_cache = serializers.BooleanField(default=True, help_text="Serve repeated extraction calls from the cache.")


class BenchmarkLaunchSerializer(StrictFieldsMixin, serializers.Serializer):
    dataset = serializers.SlugField(help_text="A pairs dataset with labels.")
    dataset_version = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    extractor = serializers.CharField(default="dependency", help_text="dependency, given or llm:<endpoint>.")
    alpha_sweep = serializers.BooleanField(default=False, help_text="Also every variant at alpha 0.0 .. 1.0.")


class FabricateSerializer(StrictFieldsMixin, serializers.Serializer):
    into = serializers.SlugField(help_text="The dkd dataset to write (made, or continued).")
    generator = serializers.SlugField(help_text="The generator's model endpoint.")
    alterations = serializers.IntegerField(min_value=1, max_value=50, default=DEFAULT_ALTERATIONS)
    limit = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)


class QuestionsSerializer(StrictFieldsMixin, serializers.Serializer):
    generator = serializers.SlugField(help_text="The generator's model endpoint.")
    per_context = serializers.IntegerField(min_value=1, max_value=100, default=DEFAULT_QUESTIONS)
    limit = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None, help_text="Only the first N contexts."
    )


def _body(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    body = serializer_class(data=request.data)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


def _queued(job: str, detail: str) -> Response:
    return Response({"queued": job, "detail": detail}, status=status.HTTP_202_ACCEPTED)


class RunGraphPassView(APIView):
    """Score the knowledge graphs of a run's answers (S3KG / CUS, then TAU on the lowest 5 %): ``run_kg --run``."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=GraphPassSerializer, responses={202: QueuedJob, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        data = _body(GraphPassSerializer, request)
        use_cache = data.pop("use_cache")
        try:
            graph_pass_launch(run=run, kg=kg_options(data), use_cache=use_cache, actor=request.user)  # type: ignore[arg-type]
        except LaunchError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return _queued("graph_pass", f"knowledge graphs of run {run.pk}'s answers")


class BenchmarkLaunchView(APIView):
    """Benchmark every S3KG variant and baseline as a paraphrase detector on a pairs dataset (``bench_similarity``):
    max F1 over a threshold sweep and AUROC, stored as a new similarity_benchmark run."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=BenchmarkLaunchSerializer, responses={202: QueuedJob, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request) -> Response:
        data = _body(BenchmarkLaunchSerializer, request)
        dataset = datasets_or_400(request, data["dataset"], data["dataset_version"])
        try:
            benchmark_launch(
                dataset=dataset,
                extractor=data["extractor"],
                alpha_sweep=data["alpha_sweep"],
                actor=request.user,  # type: ignore[arg-type]
            )
        except LaunchError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return _queued("similarity_benchmark", f"the similarity benchmark on {dataset.name}")


class FabricateView(APIView):
    """CDK-E step 1 (``fabricate_contexts``): the generator rewrites the dataset's real texts into divergent contexts
    of the dkd dataset ``into``, with their alterations; what fails its checks is kept for review on its page."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=FabricateSerializer, responses={202: QueuedJob, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, name: str) -> Response:
        source = visible_dataset_or_404(request, name)
        data = _body(FabricateSerializer, request)
        try:
            fabrication_launch(
                source=source,
                target_name=data["into"],
                generator=data["generator"],
                n_alterations=data["alterations"],
                limit=data["limit"],
                actor=request.user,  # type: ignore[arg-type]
            )
        except LaunchError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return _queued("fabricate_contexts", f"divergent contexts from {source.name} into {data['into']}")


class QuestionsGenerateView(APIView):
    """CDK-E step 2 (``generate_questions``): draft questions answerable only from each context's divergent facts,
    written as drafts for review; contexts that have questions are left alone."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(request=QuestionsSerializer, responses={202: QueuedJob, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, name: str) -> Response:
        dataset = visible_dataset_or_404(request, name)
        data = _body(QuestionsSerializer, request)
        try:
            questions_launch(
                dataset=dataset,
                generator=data["generator"],
                per_context=data["per_context"],
                limit=data["limit"],
                actor=request.user,  # type: ignore[arg-type]
            )
        except LaunchError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
        return _queued("generate_questions", f"draft questions for {dataset.name}")
