"""Scoped reads of runs: every lookup a page or the API makes goes through these, so a researcher never
reaches a run of a dataset outside their projects, and annotators reach none."""

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.roles import AnyUser, is_admin, is_researcher
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.models import BenchmarkResult, GenerationScore, GraphScore, KnowledgeGraph, ScoreStatus, TauDiagnosis


def runs_visible_to(user: AnyUser) -> QuerySet[Run]:
    """Admins see every run; researchers the runs on datasets they see and the runs they launched."""
    if is_admin(user):
        return Run.objects.select_related("dataset", "created_by")
    if is_researcher(user):
        visible = datasets_visible_to(user).values("pk")
        return (
            Run.objects.filter(Q(dataset__in=visible) | Q(created_by=user))
            .select_related("dataset", "created_by")
            .distinct()
        )
    return Run.objects.none()


def run_get(*, user: AnyUser, pk: int) -> Run | None:
    return runs_visible_to(user).filter(pk=pk).first()


def generations_visible_to(user: AnyUser) -> QuerySet[Generation]:
    return Generation.objects.filter(run__in=runs_visible_to(user).values("pk")).select_related(
        "question", "question__context", "model"
    )


def generation_get(*, user: AnyUser, run: Run, pk: int) -> Generation | None:
    return generations_visible_to(user).filter(run=run, pk=pk).first()


def scores_visible_to(user: AnyUser) -> QuerySet[GenerationScore]:
    return GenerationScore.objects.filter(generation__run__in=runs_visible_to(user).values("pk")).select_related(
        "generation"
    )


def graph_scores_of(generation: Generation) -> QuerySet[GraphScore]:
    return (
        GraphScore.objects.filter(generation=generation)
        .select_related("answer_graph", "gold_graph", "context_graph")
        .order_by("variant", "alpha", "pk")
    )


def endpoints_for_launch(user: AnyUser) -> QuerySet[ModelEndpoint]:
    """Active endpoints a researcher may pick for a run (imported answers are never called)."""
    if not is_researcher(user):
        return ModelEndpoint.objects.none()
    return ModelEndpoint.objects.filter(is_active=True).exclude(provider=ModelEndpoint.Provider.IMPORTED)


@dataclass(frozen=True)
class GraphRow:
    """GoldSim / CtxSim / CUS of one model at one temperature (S3KG Tables 3, 7, 8): means over scored items."""

    variant: str
    alpha: float
    model: str
    temperature: float
    condition: str
    n: int
    n_skipped: int
    goldsim: float | None
    ctxsim: float | None
    cus: float | None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def graph_score_rows(run: Run) -> list[GraphRow]:
    groups: dict[tuple[str, float, str, float, str], dict[str, list[float]]] = defaultdict(
        lambda: {"goldsim": [], "ctxsim": [], "cus": [], "skipped": []}
    )
    rows = GraphScore.objects.filter(generation__run=run).values_list(
        "variant",
        "alpha",
        "generation__model__name",
        "generation__temperature",
        "generation__condition",
        "status",
        "goldsim",
        "ctxsim",
        "cus",
    )
    for variant, alpha, model, temperature, condition, status, goldsim, ctxsim, cus in rows.iterator():
        group = groups[(variant, alpha, model, temperature, condition)]
        if status != ScoreStatus.OK or cus is None or goldsim is None or ctxsim is None:
            group["skipped"].append(1.0)
            continue
        group["goldsim"].append(goldsim)
        group["ctxsim"].append(ctxsim)
        group["cus"].append(cus)
    return [
        GraphRow(
            variant,
            alpha,
            model,
            temperature,
            condition,
            len(g["cus"]),
            len(g["skipped"]),
            _mean(g["goldsim"]),
            _mean(g["ctxsim"]),
            _mean(g["cus"]),
        )
        for (variant, alpha, model, temperature, condition), g in sorted(groups.items())
    ]


def benchmark_runs_visible_to(user: AnyUser) -> QuerySet[Run]:
    return runs_visible_to(user).filter(kind=Run.Kind.SIMILARITY_BENCHMARK)


def benchmark_results_visible_to(user: AnyUser) -> QuerySet[BenchmarkResult]:
    return BenchmarkResult.objects.filter(run__in=benchmark_runs_visible_to(user).values("pk")).select_related(
        "run", "run__dataset"
    )


def benchmark_grid(results: QuerySet[BenchmarkResult], metric: str) -> dict[tuple[str, str], float | None]:
    """(method, dataset) -> F1 or AUROC, the latest run of each dataset winning."""
    grid: dict[tuple[str, str], float | None] = {}
    for result in results.order_by("run__created_at", "run_id"):
        grid[(result.method, result.run.dataset.name)] = getattr(result, metric)
    return grid


def _triplets(graph: KnowledgeGraph) -> list[list[str]]:
    return [[t.head, t.relation, t.tail] for t in graph.triplets.all()]


def _tau(score: GraphScore) -> dict[str, Any] | None:
    diagnosis = TauDiagnosis.objects.filter(graph_score=score).first()
    if diagnosis is None:
        return None
    return {
        "threshold": diagnosis.threshold,
        "aligned": diagnosis.aligned,
        "relation_wrong": diagnosis.relation_wrong,
        "entity_wrong": diagnosis.entity_wrong,
        "extra": diagnosis.extra,
        "missing": diagnosis.missing,
        "counts": diagnosis.counts,
    }


def generation_detail(generation: Generation) -> dict[str, Any]:
    """Everything the drill-down shows of one answer: what the model was shown, the truth, every score with
    the judge's raw output, and the three knowledge graphs with the TAU diagnosis of each graph score."""
    question = generation.question
    context = {"divergent": question.context.text, "real": question.context.source_text, "none": ""}
    graphs = []
    for score in graph_scores_of(generation).prefetch_related(
        "answer_graph__triplets", "gold_graph__triplets", "context_graph__triplets"
    ):
        graphs.append(
            {
                "variant": score.variant,
                "alpha": score.alpha,
                "encoder": score.encoder,
                "status": score.status,
                "goldsim": score.goldsim,
                "ctxsim": score.ctxsim,
                "cus": score.cus,
                "skipped_reason": score.skipped_reason,
                "answer_triplets": _triplets(score.answer_graph),
                "gold_triplets": _triplets(score.gold_graph),
                "context_triplets": _triplets(score.context_graph),
                "tau": _tau(score),
            }
        )
    return {
        "generation": generation,
        "context": context.get(generation.condition, ""),
        "question": question.text,
        "ground_truth": question.ground_truth,
        "scores": list(GenerationScore.objects.filter(generation=generation).order_by("scorer", "metric")),
        "graphs": graphs,
    }
