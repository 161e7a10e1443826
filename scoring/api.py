"""The benchmark API under /api/benchmarks/: each method's F1 / AUROC on each pairs dataset, from the
similarity_benchmark runs a user sees."""

import django_filters
from django.db.models import QuerySet
from rest_framework import generics, serializers

from evalplatform.permissions import RESEARCHER_ONLY
from scoring.models import BenchmarkResult
from scoring.selectors import benchmark_results_visible_to


class BenchmarkResultSerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="run.dataset.name", read_only=True)

    class Meta:
        model = BenchmarkResult
        fields = ["run", "dataset", "method", "n", "f1", "auroc", "threshold", "precision", "recall", "status"]


class BenchmarkFilter(django_filters.FilterSet):
    dataset = django_filters.CharFilter(field_name="run__dataset__name")

    class Meta:
        model = BenchmarkResult
        fields = ["run", "method", "dataset"]


class BenchmarkResultListView(generics.ListAPIView):
    """Each method's max F1 (with its threshold, precision and recall) and AUROC on each pairs dataset, from the
    similarity-benchmark runs you see (those of your projects' datasets and those you launched)."""

    serializer_class = BenchmarkResultSerializer
    permission_classes = RESEARCHER_ONLY
    filterset_class = BenchmarkFilter

    def get_queryset(self) -> QuerySet[BenchmarkResult]:
        return benchmark_results_visible_to(self.request.user).order_by("run_id", "method")
