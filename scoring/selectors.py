"""Reads of the scoring app: a run's scores and graphs, the benchmark results a user sees, the work a stage has
left in a run, and everything the drill-down shows of one answer. Scoped reads build on
``evalplatform.runs.selectors.runs_visible_to``, so they reach exactly the runs their user may see."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from evalplatform.roles import AnyUser
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.selectors import runs_visible_to
from scoring.models import BenchmarkResult, GenerationScore, GraphScore, KnowledgeGraph, ScoreStatus, TauDiagnosis
from scoring.snapshots import run_snapshot

# -- the work left in a run ------------------------------------------------------------------------------


def generations_to_score(run: Run, evaluator: ModelEndpoint) -> QuerySet[Generation]:
    """Answered generations this evaluator has not finished scoring (its LAV row marks a finished set)."""
    return (
        Generation.objects.filter(run=run, status=Generation.Status.DONE)
        .exclude(
            pk__in=GenerationScore.objects.filter(
                generation__run=run, scorer=evaluator.name, metric=GenerationScore.Metric.LAV
            ).values("generation_id")
        )
        .order_by("question__context__position", "question__position", "pk")
    )


def generations_without_ass(run: Run, encoder_name: str) -> QuerySet[Generation]:
    """Answered generations without their ASS by this encoder."""
    return (
        Generation.objects.filter(run=run, status=Generation.Status.DONE)
        .exclude(
            pk__in=GenerationScore.objects.filter(
                generation__run=run, scorer=encoder_name, metric=GenerationScore.Metric.ASS
            ).values("generation_id")
        )
        .select_related("question")
        .order_by("pk")
    )


def generations_to_graph(run: Run) -> QuerySet[Generation]:
    """Answered generations without their knowledge-graph scores yet."""
    return (
        Generation.objects.filter(run=run, status=Generation.Status.DONE)
        .exclude(pk__in=GraphScore.objects.filter(generation__run=run).values("generation_id"))
        .order_by("question__context__position", "question__position", "pk")
    )


# -- scores, graphs and benchmarks a user sees -----------------------------------------------------------


def graph_scores_of(generation: Generation) -> QuerySet[GraphScore]:
    return (
        GraphScore.objects.filter(generation=generation)
        .select_related("answer_graph", "gold_graph", "context_graph")
        .order_by("variant", "alpha", "pk")
    )


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


@run_snapshot
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
    scores = list(GenerationScore.objects.filter(generation=generation).order_by("scorer", "metric"))
    scored_against = sorted(
        {s.ground_truth for s in scores if s.ground_truth and s.ground_truth != question.ground_truth}
    )
    return {
        "generation": generation,
        "context": context.get(generation.condition, ""),
        "question": question.text,
        "ground_truth": question.ground_truth,
        # Ground truths a consensus has replaced since these scores were computed against them.
        "earlier_ground_truths": scored_against,
        "scores": scores,
        "graphs": graphs,
    }
