"""Thin Celery tasks of a CDK-E run. They take ids, return early when their work is done, call services,
and write under unique constraints; retries happen only on transient provider errors, with backoff and
jitter. ``acks_late`` with ``reject_on_worker_lost`` redelivers the task of a killed worker."""

import logging
import random

from celery import Task, shared_task

from evalplatform.llm.errors import BudgetExceeded, TransientProviderError
from evalplatform.runs import services
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import RunSpec

log = logging.getLogger(__name__)
# The client retries each call on timeouts, 429 and 5xx; a cell whose calls still fail is rescheduled on a
# worker up to MAX_RETRIES times, with exponential backoff and jitter, then marked failed (resumable).
MAX_RETRIES = 4
BACKOFF_CAP_S = 120


def retry_countdown(retries: int) -> float:
    return random.uniform(0.5, 1.0) * min(BACKOFF_CAP_S, 2 ** (retries + 1))


@shared_task(name="runs.run_execute", acks_late=True, reject_on_worker_lost=True)
def run_execute(run_id: int) -> None:
    """Schedule what is left of a run: the pending answers in context order (a context's cells together,
    so a server's prefix cache reuses the context), and the scoring of answers not yet scored."""
    run = Run.objects.select_related("dataset").get(pk=run_id)
    if not services.run_start(run=run):
        return
    spec = RunSpec.from_dict(run.spec)
    pending = (
        Generation.objects.filter(run=run, status=Generation.Status.PENDING)
        .order_by(
            "question__context__position",
            "question__position",
            "model__name",
            "temperature",
            "condition",
            "sample_index",
        )
        .values_list("pk", flat=True)
    )
    for generation_id in list(pending):
        generation_answer_task.delay(generation_id)
    for evaluator in ModelEndpoint.objects.filter(name__in=spec.evaluators):
        for generation_id in list(services.generations_to_score(run, evaluator).values_list("pk", flat=True)):
            generation_score_task.delay(generation_id, evaluator.pk)
    if spec.kg is not None:
        from scoring.tasks import generation_graph_task

        for generation_id in list(services.generations_to_graph(run).values_list("pk", flat=True)):
            generation_graph_task.delay(generation_id)
    services.run_refresh_progress(run_id=run_id)


@shared_task(
    name="runs.generation_answer", bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES
)
def generation_answer_task(self: Task, generation_id: int) -> None:
    generation = Generation.objects.select_related("run", "question__context", "model").get(pk=generation_id)
    run = generation.run
    if not services.run_is_active(run.pk):
        return
    spec = RunSpec.from_dict(run.spec)
    if generation.status == Generation.Status.PENDING:
        try:
            client = client_for(generation.model, budget=services.run_budget(run), use_cache=spec.use_cache)
            services.generation_answer(generation=generation, client=client, spec=spec, use_cache=spec.use_cache)
        except BudgetExceeded as exc:
            services.run_stop(run_id=run.pk, status=Run.Status.CANCELLED, reason=f"stopped at the budget: {exc}")
            return
        except TransientProviderError as exc:
            if self.request.is_eager or self.request.retries >= MAX_RETRIES:
                services.generation_mark_failed(generation_id=generation_id, error=f"kept failing: {exc}")
            else:
                raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
        generation.refresh_from_db()
    if generation.status == Generation.Status.DONE:
        from scoring.cdke_services import ass_record
        from scoring.embeddings import get_encoder

        ass_record(generation=generation, encoder=get_encoder(spec.embedder))
        for evaluator in ModelEndpoint.objects.filter(name__in=spec.evaluators):
            generation_score_task.delay(generation_id, evaluator.pk)
        if spec.kg is not None:
            from scoring.tasks import generation_graph_task

            generation_graph_task.delay(generation_id)
    services.run_refresh_progress(run_id=run.pk)


@shared_task(
    name="runs.generation_score", bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES
)
def generation_score_task(self: Task, generation_id: int, evaluator_id: int) -> None:
    from scoring.cdke_services import JudgeContext, generation_score
    from scoring.embeddings import get_encoder

    generation = Generation.objects.select_related("run", "question").get(pk=generation_id)
    run = generation.run
    if not services.run_is_active(run.pk):
        return
    spec = RunSpec.from_dict(run.spec)
    evaluator = ModelEndpoint.objects.get(pk=evaluator_id)
    judge = JudgeContext(
        evaluator=evaluator,
        client=client_for(evaluator, budget=services.run_budget(run), use_cache=spec.use_cache),
        use_cache=spec.use_cache,
    )
    try:
        generation_score(
            generation=generation, judge=judge, encoder=get_encoder(spec.embedder), fc_weight=spec.fc_weight
        )
    except BudgetExceeded as exc:
        services.run_stop(run_id=run.pk, status=Run.Status.CANCELLED, reason=f"stopped at the budget: {exc}")
        return
    finally:
        services.run_add_cost(run_id=run.pk, cost_usd=judge.cost_usd)
    services.run_refresh_progress(run_id=run.pk)
