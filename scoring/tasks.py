"""Thin Celery tasks of S3KG's graph stage. They take ids, return early when their work is done, call services
and write under unique constraints; retries happen only on transient provider errors (the LLM extractor), with
backoff and jitter. ``acks_late`` with ``reject_on_worker_lost`` redelivers the task of a killed worker; a
redelivered task finds the GraphScores written and does nothing. CDK-E's tasks are in ``scoring.cdke.tasks``
(imported here so that a worker's autodiscovery of ``scoring.tasks`` registers them too)."""

import logging

from celery import Task, shared_task
from django.contrib.auth.models import User

from evalplatform.corpus.models import Dataset
from evalplatform.llm.errors import ProviderError, TransientProviderError
from evalplatform.runs import selectors as run_selectors
from evalplatform.runs import services as run_services
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import SpecError
from evalplatform.runs.tasks import MAX_RETRIES, guarded, retry_countdown
from scoring.cdke.fabricate import contexts_fabricate
from scoring.cdke.questions import questions_generate
from scoring.cdke.tasks import generation_answer_task, generation_score_task
from scoring.embeddings import get_encoder
from scoring.kg_spec import KGSpec
from scoring.services.benchmark import similarity_benchmark_run
from scoring.services.graph_scores import GRAPH_STAGE, graph_scores_compute, graph_scores_mark_failed
from scoring.services.kg_runs import run_graph_pass, run_tau
from scoring.snapshots import warm

log = logging.getLogger(__name__)

__all__ = [
    "fabricate_task",
    "generation_answer_task",
    "generation_graph_task",
    "generation_score_task",
    "graph_pass_task",
    "questions_task",
    "similarity_benchmark_task",
]
# Long jobs launched from a page or the API (scoring.services.launches): generous limits, no retry (each is
# idempotent: graphs and scores are written under unique constraints, fabrication and questions continue where they
# stopped, a benchmark is a new run).
LONG_SOFT_LIMIT_S = 6 * 3600


def _user(user_id: int | None) -> User | None:
    return User.objects.filter(pk=user_id).first() if user_id is not None else None


@shared_task(
    name="scoring.graph_pass",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=LONG_SOFT_LIMIT_S,
    time_limit=LONG_SOFT_LIMIT_S + 60,
)
def graph_pass_task(run_id: int, kg: dict[str, object], use_cache: bool = True) -> None:
    """A knowledge-graph pass over a run's answered generations (``run_kg --run``)."""
    run = Run.objects.filter(pk=run_id).first()
    if run is not None:
        run_graph_pass(run=run, kg=KGSpec.from_dict(kg), use_cache=use_cache)


@shared_task(
    name="scoring.similarity_benchmark",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=LONG_SOFT_LIMIT_S,
    time_limit=LONG_SOFT_LIMIT_S + 60,
)
def similarity_benchmark_task(dataset_id: int, extractor: str, alpha_sweep: bool, user_id: int | None) -> None:
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is not None:
        similarity_benchmark_run(dataset=dataset, extractor=extractor, alpha_sweep=alpha_sweep, actor=_user(user_id))


@shared_task(
    name="scoring.fabricate_contexts",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=LONG_SOFT_LIMIT_S,
    time_limit=LONG_SOFT_LIMIT_S + 60,
)
def fabricate_task(
    source_id: int, target_name: str, generator_id: int, n_alterations: int, limit: int | None, user_id: int | None
) -> None:
    source = Dataset.objects.filter(pk=source_id).first()
    generator = ModelEndpoint.objects.filter(pk=generator_id).first()
    if source is not None and generator is not None:
        contexts_fabricate(
            source=source,
            target_name=target_name,
            generator=generator,
            n_alterations=n_alterations,
            limit=limit,
            actor=_user(user_id),
        )


@shared_task(
    name="scoring.generate_questions",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=LONG_SOFT_LIMIT_S,
    time_limit=LONG_SOFT_LIMIT_S + 60,
)
def questions_task(
    dataset_id: int, generator_id: int, per_context: int, limit: int | None, user_id: int | None
) -> None:
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    generator = ModelEndpoint.objects.filter(pk=generator_id).first()
    if dataset is not None and generator is not None:
        questions_generate(
            dataset=dataset, generator=generator, per_context=per_context, limit=limit, actor=_user(user_id)
        )


@shared_task(name="scoring.warm_results", acks_late=True)
def warm_results_task(run_id: int) -> int:
    """Compute and keep a finished run's results (Table 2, correlations, error classes, graph scores)."""
    run = Run.objects.filter(pk=run_id).first()
    return 0 if run is None else warm(run)


@shared_task(
    name="scoring.generation_graph",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=MAX_RETRIES,
    soft_time_limit=900,
    time_limit=960,
)
def generation_graph_task(self: Task, generation_id: int) -> None:
    """Answer, gold and context graphs of one answered generation, GoldSim / CtxSim / CUS per variant of
    ``run.spec["kg"]``, then TAU once the run's last graph is in. An unexpected error fails the generation's
    graph scores with its cause."""
    guarded(
        lambda: _graphs(self, generation_id),
        lambda error: _graphs_failed(generation_id, error),
        f"the graphs of generation {generation_id}",
    )


def _graphs_failed(generation_id: int, error: str) -> None:
    generation = Generation.objects.select_related("run").filter(pk=generation_id).first()
    if generation is None or not generation.run.spec.get("kg"):
        return
    kg = KGSpec.from_dict(generation.run.spec["kg"])
    graph_scores_mark_failed(generation=generation, kg=kg, reason=error, encoder_name=get_encoder(kg.encoder).name)


def _graphs(self: Task, generation_id: int) -> None:
    generation = Generation.objects.select_related("run", "question__context", "model").filter(pk=generation_id).first()
    if generation is None or generation.status != Generation.Status.DONE:
        return
    run = generation.run
    if not run_selectors.run_is_active(run.pk) or not run.spec.get("kg"):
        return
    try:
        kg = KGSpec.from_dict(run.spec["kg"])
    except SpecError as exc:
        run_services.run_stop(run_id=run.pk, status=Run.Status.FAILED, reason=str(exc))
        return
    use_cache = bool(run.spec.get("use_cache", True))
    try:
        graph_scores_compute(generations=[generation], kg=kg, use_cache=use_cache)
    except TransientProviderError as exc:
        if not self.request.is_eager and self.request.retries < MAX_RETRIES:
            raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
        graph_scores_mark_failed(
            generation=generation, kg=kg, reason=f"kept failing: {exc}", encoder_name=get_encoder(kg.encoder).name
        )
    except ProviderError as exc:
        graph_scores_mark_failed(
            generation=generation, kg=kg, reason=f"extraction failed: {exc}", encoder_name=get_encoder(kg.encoder).name
        )
    if run_selectors.stage_complete(run_id=run.pk, stage=GRAPH_STAGE):
        run_tau(run=run, kg=kg)
