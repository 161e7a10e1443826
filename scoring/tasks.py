"""Thin Celery tasks of S3KG's graph stage. They take ids, return early when their work is done, call services
and write under unique constraints; retries happen only on transient provider errors (the LLM extractor), with
backoff and jitter. ``acks_late`` with ``reject_on_worker_lost`` redelivers the task of a killed worker; a
redelivered task finds the GraphScores written and does nothing. CDK-E's tasks are in ``scoring.cdke.tasks``
(imported here so that a worker's autodiscovery of ``scoring.tasks`` registers them too)."""

import logging

from celery import Task, shared_task

from evalplatform.llm.errors import ProviderError, TransientProviderError
from evalplatform.runs import selectors as run_selectors
from evalplatform.runs import services as run_services
from evalplatform.runs.models import Generation, Run
from evalplatform.runs.spec import SpecError
from evalplatform.runs.tasks import MAX_RETRIES, guarded, retry_countdown
from scoring.cdke.tasks import generation_answer_task, generation_score_task
from scoring.embeddings import get_encoder
from scoring.kg_spec import KGSpec
from scoring.services.graph_scores import GRAPH_STAGE, graph_scores_compute, graph_scores_mark_failed
from scoring.services.kg_runs import run_tau
from scoring.snapshots import warm

log = logging.getLogger(__name__)

__all__ = ["generation_answer_task", "generation_graph_task", "generation_score_task"]


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
    run_services.run_finish_if_complete(run_id=generation.run_id)


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
    run_services.run_finish_if_complete(run_id=run.pk)
    if run_selectors.stage_complete(run_id=run.pk, stage=GRAPH_STAGE):
        run_tau(run=run, kg=kg)
