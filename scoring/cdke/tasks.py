"""Thin Celery tasks of CDK-E's answering and judging. They take ids, return early when their work is done or
the run is no longer active, call services, and write under unique constraints; retries happen only on
transient provider errors, with backoff and jitter. ``acks_late`` with ``reject_on_worker_lost`` redelivers the
task of a killed worker."""

from celery import Task, shared_task

from evalplatform.llm.errors import BudgetExceeded, TransientProviderError
from evalplatform.runs import selectors as run_selectors
from evalplatform.runs import services as run_services
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import stages_for
from evalplatform.runs.tasks import MAX_RETRIES, retry_countdown
from scoring.cdke.answer import generation_answer
from scoring.cdke.judge import JudgeContext, generation_score
from scoring.cdke.judge_prompts import JUDGE_PROMPT_SETS
from scoring.embeddings import get_encoder


def _stop_at_budget(run: Run, exc: BudgetExceeded) -> None:
    run_services.run_stop(run_id=run.pk, status=Run.Status.CANCELLED, reason=f"stopped at the budget: {exc}")


@shared_task(
    name="cdke.generation_answer", bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES
)
def generation_answer_task(self: Task, generation_id: int) -> None:
    """Answer one cell, then hand the answer to every later stage of the run (ASS, judges, graphs)."""
    generation = Generation.objects.select_related("run", "question__context", "model").get(pk=generation_id)
    run = generation.run
    if not run_selectors.run_is_active(run.pk):
        return
    spec = RunSpec.from_dict(run.spec)
    if generation.status == Generation.Status.PENDING:
        try:
            client = client_for(generation.model, budget=run_services.run_budget(run), use_cache=spec.use_cache)
            generation_answer(generation=generation, client=client, spec=spec, use_cache=spec.use_cache)
        except BudgetExceeded as exc:
            _stop_at_budget(run, exc)
            return
        except TransientProviderError as exc:
            if self.request.is_eager or self.request.retries >= MAX_RETRIES:
                run_services.generation_mark_failed(generation_id=generation_id, error=f"kept failing: {exc}")
            else:
                raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
        generation.refresh_from_db()
    if generation.status == Generation.Status.DONE:
        for stage in stages_for(spec):
            stage.after_answer(generation, spec)
    run_services.run_refresh_progress(run_id=run.pk)


@shared_task(
    name="cdke.generation_score", bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES
)
def generation_score_task(self: Task, generation_id: int, evaluator_id: int) -> None:
    """One evaluator's FC, AC, Acc, Cm and LAV of one answer (ASS too, when it is missing)."""
    generation = Generation.objects.select_related("run", "question").get(pk=generation_id)
    run = generation.run
    if not run_selectors.run_is_active(run.pk):
        return
    spec = RunSpec.from_dict(run.spec)
    evaluator = ModelEndpoint.objects.get(pk=evaluator_id)
    judge = JudgeContext(
        evaluator=evaluator,
        prompts=JUDGE_PROMPT_SETS[spec.judge_prompts],
        client=client_for(evaluator, budget=run_services.run_budget(run), use_cache=spec.use_cache),
        use_cache=spec.use_cache,
    )
    try:
        generation_score(
            generation=generation,
            judge=judge,
            encoder=get_encoder(spec.embedder),
            fc_weight=spec.fc_weight,
            metrics=spec.metrics,
        )
    except BudgetExceeded as exc:
        _stop_at_budget(run, exc)
        return
    finally:
        run_services.run_add_cost(run_id=run.pk, cost_usd=judge.cost_usd)
    run_services.run_refresh_progress(run_id=run.pk)
