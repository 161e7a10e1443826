"""The corpus API under /api/datasets/: datasets a user sees (the latest version of each name, or any version with
``?version=N``), uploads (POST, multipart), their contexts with alterations, their questions with status, and
exports in the import formats (streamed). Researchers and admins only."""

from typing import Any

import django_filters
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evalplatform.corpus.exporters import EXPORTERS, export_dataset
from evalplatform.corpus.models import Context, Dataset, Project, Question
from evalplatform.corpus.records import DatasetImportError
from evalplatform.corpus.selectors import dataset_get, datasets_visible_to, latest_versions
from evalplatform.corpus.serializers import (
    ContextSerializer,
    DatasetDetailSerializer,
    DatasetSerializer,
    DatasetUploadSerializer,
    QuestionSerializer,
)
from evalplatform.corpus.services import dataset_export_record, dataset_upload
from evalplatform.permissions import RESEARCHER_ONLY

EXPORT_SUFFIX = {"dkd": "json", "qa-jsonl": "jsonl", "pairs-jsonl": "jsonl"}


VERSION_PARAMETER = OpenApiParameter(
    "version", OpenApiTypes.INT, OpenApiParameter.QUERY, description="A version of the dataset; the latest if left out."
)


def requested_version(request: Request) -> int | None:
    raw = request.query_params.get("version")
    if raw in (None, ""):
        return None
    if not str(raw).isdigit() or int(raw) < 1:
        raise ValidationError({"version": "must be a positive whole number"})
    return int(raw)


def visible_dataset_or_404(request: Request, name: str, version: int | None = None) -> Dataset:
    """The dataset version the request names (``?version=N``, else the latest) among those the user sees."""
    version = version if version is not None else requested_version(request)
    dataset = dataset_get(user=request.user, name=name, version=version)
    if dataset is None:
        suffix = f" version {version}" if version is not None else ""
        raise NotFound(f"no dataset '{name}'{suffix} that you can see")
    return dataset


class DatasetFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains")
    project = django_filters.CharFilter(field_name="project__name")

    class Meta:
        model = Dataset
        fields = ["kind", "name", "project"]


class DatasetListView(generics.ListCreateAPIView):
    """GET: the datasets you see, the latest version of each name (``?all_versions=true``: every version).
    POST (multipart): upload a file as a dataset; a name you already have becomes its next version."""

    serializer_class = DatasetSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_class = DatasetFilter
    parser_classes = [MultiPartParser, FormParser]

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        return DatasetUploadSerializer if self.request.method == "POST" else DatasetSerializer

    def get_queryset(self) -> QuerySet[Dataset]:
        datasets = datasets_visible_to(self.request.user).select_related("project", "created_by")
        if self.request.query_params.get("all_versions") not in ("1", "true", "yes"):
            datasets = latest_versions(datasets)
        return datasets.order_by("name", "-version")

    @extend_schema(
        parameters=[
            OpenApiParameter("all_versions", OpenApiTypes.BOOL, description="List every version, not the latest.")
        ]
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": DatasetUploadSerializer},
        responses={201: DatasetDetailSerializer, 400: OpenApiTypes.OBJECT},
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = DatasetUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        project = None
        if data.get("project"):
            project = Project.objects.filter(name=data["project"]).first()
            if project is None:
                raise ValidationError({"project": f"no project named '{data['project']}'"})
        try:
            dataset = dataset_upload(
                upload=data["file"],
                import_format=data["format"],
                actor=request.user,  # type: ignore[arg-type]
                name=data.get("name") or None,
                project=project,
                key_by_line=data["key_by_line"],
            )
        except DatasetImportError as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        return Response(DatasetDetailSerializer(dataset).data, status=status.HTTP_201_CREATED)


class DatasetDetailView(generics.RetrieveAPIView):
    """One dataset (its latest version, or ``?version=N``): counts, question status counts and its versions."""

    serializer_class = DatasetDetailSerializer
    permission_classes = RESEARCHER_ONLY

    def get_object(self) -> Dataset:
        return visible_dataset_or_404(self.request, self.kwargs["name"])

    @extend_schema(parameters=[VERSION_PARAMETER])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ContextListView(generics.ListAPIView):
    """A dataset's contexts in order, each with its real source text and alterations (``?version=N``)."""

    serializer_class = ContextSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_fields = ["key"]

    def get_queryset(self) -> QuerySet[Context]:
        if getattr(self, "swagger_fake_view", False):  # the schema generator, with no URL arguments
            return Context.objects.none()
        dataset = visible_dataset_or_404(self.request, self.kwargs["name"])
        return Context.objects.filter(dataset=dataset).prefetch_related("alterations").order_by("position", "pk")


class QuestionFilter(django_filters.FilterSet):
    context = django_filters.CharFilter(field_name="context__key")

    class Meta:
        model = Question
        fields = ["status", "context"]


class QuestionListView(generics.ListAPIView):
    """A dataset's questions with their ground truth, real answer and review status (``?version=N``)."""

    serializer_class = QuestionSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_class = QuestionFilter

    def get_queryset(self) -> QuerySet[Question]:
        if getattr(self, "swagger_fake_view", False):
            return Question.objects.none()
        dataset = visible_dataset_or_404(self.request, self.kwargs["name"])
        return (
            Question.objects.filter(dataset=dataset)
            .select_related("context")
            .order_by("context__position", "position", "pk")
        )


class DatasetExportView(APIView):
    """The dataset in one of the formats it can be imported from, streamed chunk by chunk."""

    permission_classes = RESEARCHER_ONLY
    throttle_scope = "export"

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)})
    def get(self, request: Request, name: str, fmt: str) -> StreamingHttpResponse:
        dataset = visible_dataset_or_404(request, name)
        if fmt not in EXPORTERS:
            raise NotFound(f"unknown export format '{fmt}' (known: {', '.join(EXPORTERS)})")
        try:
            chunks: Any = export_dataset(dataset, fmt)
        except ValueError as exc:
            raise ValidationError({"format": str(exc)}) from exc
        dataset_export_record(dataset=dataset, fmt=fmt, actor=request.user)
        content_type = "application/json" if fmt == "dkd" else "application/x-ndjson"
        response = StreamingHttpResponse(chunks, content_type=f"{content_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{dataset.name}.{EXPORT_SUFFIX[fmt]}"'
        return response
