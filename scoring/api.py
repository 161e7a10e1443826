"""The benchmark API under /api/benchmarks/: each method's F1 / AUROC on each pairs dataset, from the
similarity_benchmark runs a user sees.

The comparison API: ``GET /api/runs/compare/?runs=A,B`` (rows aligned by model, evaluator, condition and metric,
with each run's value, the difference last − first, its paired interval and test over the shared questions, and
the judge flags), ``GET /api/runs/compare/answers/`` (the per-question answer diff) and
``GET /api/runs/<id>/effects/`` (divergent − real within one run)."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.judge_agreement import judge_flags_across
from evalplatform.permissions import RESEARCHER_ONLY
from evalplatform.runs import selectors
from evalplatform.runs.api import visible_run_or_404
from evalplatform.runs.models import Run
from scoring.cdke.compare import MAX_COMPARED, answer_diff, compare_runs, condition_effects
from scoring.models import BenchmarkResult
from scoring.selectors import benchmark_results_visible_to

RUNS_PARAMETER = OpenApiParameter(
    "runs", OpenApiTypes.STR, required=True, description="Run ids, comma-separated, in the order to compare (2 to 8)."
)


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


def runs_to_compare(request: Request, raw: str | None) -> list[Run]:
    """The runs a request names, in its order; 400 for fewer than two, a repeat, a run the user cannot see, or runs
    of different datasets."""
    ids = [part.strip() for part in (raw or "").split(",") if part.strip()]
    if len(ids) < 2 or len(ids) > MAX_COMPARED:
        raise ValidationError({"runs": [f"name 2 to {MAX_COMPARED} run ids, comma-separated"]})
    if not all(i.isdigit() for i in ids) or len(set(ids)) != len(ids):
        raise ValidationError({"runs": ["run ids are distinct whole numbers"]})
    runs = []
    for pk in ids:
        run = selectors.run_get(user=request.user, pk=int(pk))
        if run is None:
            raise ValidationError({"runs": [f"no run {pk} that you can see"]})
        runs.append(run)
    if len({run.dataset.name for run in runs}) > 1:
        raise ValidationError({"runs": ["compare runs of one dataset (any of its versions)"]})
    return runs


def run_header(run: Run) -> dict[str, object]:
    return {
        "id": run.pk,
        "kind": run.kind,
        "dataset": run.dataset.name,
        "dataset_version": run.dataset.version,
        "status": run.status,
        "models": run.spec.get("models", []),
        "evaluators": run.spec.get("evaluators", []),
        "temperatures": run.spec.get("temperatures", []),
        "created_at": run.created_at,
    }


class RunCompareView(APIView):
    """Two or more runs of one dataset side by side. ``values`` holds one mean per run (in the order asked, each over
    its own scored questions), ``delta`` is last − first, and ``n_paired``, ``paired_delta``, ``interval`` (95 %
    paired bootstrap) and ``p_value`` (McNemar's exact test for LAV, the sign test otherwise) are over the questions
    both the first and the last run scored. ``flagged`` / ``flag_reason``: the row's evaluator agrees with people
    below a compared run's ``judge_min_agreement`` (which run, and why)."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(parameters=[RUNS_PARAMETER], responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        runs = runs_to_compare(request, request.query_params.get("runs"))
        rows = compare_runs(runs)
        flags = judge_flags_across(runs)  # judges under a compared run's judge_min_agreement
        out = [
            row.as_json() | {"flagged": row.evaluator in flags, "flag_reason": flags.get(row.evaluator)} for row in rows
        ]
        return Response({"runs": [run_header(r) for r in runs], "rows": out})


class RunCompareAnswersView(APIView):
    """Per question, each run's answer of one model under one condition, with its scores; the questions where the
    runs' ``metric`` differs most come first."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(
        parameters=[
            RUNS_PARAMETER,
            OpenApiParameter("model", OpenApiTypes.STR, required=True),
            OpenApiParameter("condition", OpenApiTypes.STR, description="divergent (default), real or none."),
            OpenApiParameter("metric", OpenApiTypes.STR, description="What orders the questions: ass by default."),
            OpenApiParameter("evaluator", OpenApiTypes.STR, description="Whose judge scores to show."),
        ],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request: Request) -> Response:
        runs = runs_to_compare(request, request.query_params.get("runs"))
        model = request.query_params.get("model", "")
        if not model:
            raise ValidationError({"model": ["name the model whose answers to compare"]})
        diffs = answer_diff(
            runs,
            model=model,
            condition=request.query_params.get("condition", "divergent"),
            metric=request.query_params.get("metric", "ass"),
            evaluator=request.query_params.get("evaluator") or None,
        )
        return Response(
            {
                "runs": [r.pk for r in runs],
                "questions": [
                    {
                        "question": d.key,
                        "text": d.question,
                        "ground_truth": d.ground_truth,
                        "spread": d.spread,
                        "answers": [
                            None
                            if a is None
                            else {"generation": a.generation_id, "text": a.text, "status": a.status, "scores": a.scores}
                            for a in d.answers
                        ],
                    }
                    for d in diffs
                ],
            }
        )


class RunEffectsView(APIView):
    """Within one run: divergent − real (the paper's main effect) per model, evaluator and metric, paired by
    question, temperature and sample, with its 95 % paired bootstrap interval and test."""

    permission_classes = RESEARCHER_ONLY

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, pk: int) -> Response:
        run = visible_run_or_404(request, pk)
        return Response({"run": run.pk, "effects": [e.as_json() for e in condition_effects(run)]})
