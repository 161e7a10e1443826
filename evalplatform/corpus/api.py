"""The corpus API under /api/datasets/: datasets a user sees, their contexts with alterations, their
questions with status, and exports in the import formats (streamed). Researchers and admins only."""

from typing import Any

import django_filters
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.views import APIView

from evalplatform.corpus.exporters import EXPORTERS, export_dataset
from evalplatform.corpus.models import Context, Dataset, Question
from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.corpus.serializers import (
    ContextSerializer,
    DatasetDetailSerializer,
    DatasetSerializer,
    QuestionSerializer,
)
from evalplatform.corpus.services import dataset_export_record
from evalplatform.permissions import RESEARCHER_ONLY

EXPORT_SUFFIX = {"dkd": "json", "qa-jsonl": "jsonl", "pairs-jsonl": "jsonl"}


def visible_dataset_or_404(request: Request, name: str) -> Dataset:
    dataset = datasets_visible_to(request.user).filter(name=name).first()
    if dataset is None:
        raise NotFound(f"no dataset '{name}' that you can see")
    return dataset


class DatasetFilter(django_filters.FilterSet):
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains")
    project = django_filters.CharFilter(field_name="project__name")

    class Meta:
        model = Dataset
        fields = ["kind", "name", "project"]


class DatasetListView(generics.ListAPIView):
    serializer_class = DatasetSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_class = DatasetFilter

    def get_queryset(self) -> QuerySet[Dataset]:
        return datasets_visible_to(self.request.user).select_related("project", "created_by").order_by("name")


class DatasetDetailView(generics.RetrieveAPIView):
    serializer_class = DatasetDetailSerializer
    permission_classes = RESEARCHER_ONLY

    def get_object(self) -> Dataset:
        return visible_dataset_or_404(self.request, self.kwargs["name"])


class ContextListView(generics.ListAPIView):
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
