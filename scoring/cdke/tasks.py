"""Thin Celery tasks of CDK-E's answering and judging. They take ids, return early when their work is done or
the run is no longer active, call services, and write under unique constraints; retries happen only on
transient provider errors, with backoff and jitter. ``acks_late`` with ``reject_on_worker_lost`` redelivers the
task of a killed worker."""

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from celery import Task, shared_task
from celery.signals import worker_process_init
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from evalplatform.llm.errors import BudgetExceeded, TransientProviderError
from evalplatform.runs import selectors as run_selectors
from evalplatform.runs import services as run_services
from evalplatform.runs.clients import client_for
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import stages_for
from evalplatform.runs.tasks import MAX_RETRIES, guarded, retry_countdown
from scoring.cdke.answer import generation_answer
from scoring.cdke.judge import JUDGE_METRICS, JudgeContext, MetricResult, generation_score, scores_store
from scoring.cdke.judge_prompts import JUDGE_PROMPT_SETS
from scoring.cdke.retest import retest_judge, retest_mark_failed, retest_units
from scoring.cdke.similarity import ASS_BATCH, ass_batch
from scoring.embeddings import Encoder, get_encoder
from scoring.models import GenerationScore, RetestBatch, ScoreStatus

log = logging.getLogger(__name__)
# Seconds the answers of a run gather before their ASS batch runs.
SIMILARITY_WINDOW_S = 1
# The per-cell tasks (a few per cell, thousands per run) store no result in the result backend: nothing reads
# them (progress is in the database), and each stored result costs the worker a serialisation and a write.
IGNORE_RESULT = True


def _stop_at_budget(run: Run, exc: BudgetExceeded) -> None:
    run_services.run_stop(run_id=run.pk, status=Run.Status.CANCELLED, reason=f"stopped at the budget: {exc}")


@shared_task(name="cdke.feed_answers", acks_late=True, reject_on_worker_lost=True, ignore_result=IGNORE_RESULT)
def feed_answers_task(run_id: int) -> int:
    """Send the run's next pending cells to the workers, as many as keep RUN_QUEUE_HIGH_WATER in flight, in
    chunks of RUN_FEED_CHUNK, in planned order; look again in RUN_FEED_EVERY_S while some are still unsent. A
    100,000-cell run is never queued at once."""
    if not run_selectors.run_is_active(run_id):
        return 0
    sent = 0
    while True:
        cursor = feed_cursor(run_id)
        ids = answers_to_send(run_id, cursor)
        if not ids:
            break
        with transaction.atomic():
            Generation.objects.filter(pk__in=ids).update(queued_at=timezone.now())
            # Moved only if nobody reset it meanwhile (cells sent again below it: the watchdog, a retry).
            Run.objects.filter(pk=run_id, feed_from_id=cursor).update(feed_from_id=ids[-1] + 1)
        for generation_id in ids:
            generation_answer_task.delay(generation_id)
        sent += len(ids)
    if unsent(run_id, feed_cursor(run_id)).exists():
        feed_answers_task.apply_async((run_id,), countdown=settings.RUN_FEED_EVERY_S)
    return sent


def feed_cursor(run_id: int) -> int | None:
    return Run.objects.filter(pk=run_id).values_list("feed_from_id", flat=True).first()


def feed_cursor_reset(run_id: int) -> None:
    """The feeder looks from the run's first cell again (cells below the cursor are to be sent again: the
    watchdog's re-send, a retry of failed cells)."""
    Run.objects.filter(pk=run_id).update(feed_from_id=None)


def unsent(run_id: int, cursor: int | None = None) -> QuerySet[Generation]:
    """The run's pending cells not sent yet, from the feed cursor on (``Run.feed_from_id``: every unsent cell is at
    or after it). Without the bound, PostgreSQL may walk the primary key from the table's first row (it does while
    the table's visibility map is not set), through every earlier run's cells and this run's answered ones."""
    return Generation.objects.filter(
        run_id=run_id, status=Generation.Status.PENDING, queued_at__isnull=True, pk__gte=cursor or 0
    )


def answers_to_send(run_id: int, cursor: int | None = None) -> list[int]:
    """The next chunk of unsent pending cells, if the run has room in flight (primary-key order is plan order)."""
    in_flight = Generation.objects.filter(run_id=run_id, status=Generation.Status.PENDING, queued_at__isnull=False)
    room = settings.RUN_QUEUE_HIGH_WATER - in_flight.count()
    if room <= 0:
        return []
    chunk = min(room, settings.RUN_FEED_CHUNK)
    return list(unsent(run_id, cursor).order_by("pk").values_list("pk", flat=True)[:chunk])


@shared_task(
    name="cdke.generation_answer",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=MAX_RETRIES,
    ignore_result=IGNORE_RESULT,
)
def generation_answer_task(self: Task, generation_id: int) -> None:
    """Answer one cell, then hand the answer to every later stage of the run (ASS, judges, graphs). An unexpected
    error fails the cell with its cause (it is never left pending for ever)."""
    guarded(
        lambda: _answer(self, generation_id),
        lambda error: _answer_failed(generation_id, error),
        f"answering generation {generation_id}",
    )


def _answer_failed(generation_id: int, error: str) -> None:
    run_services.generation_mark_failed(generation_id=generation_id, error=error)  # the count finishes the run


def _answer(self: Task, generation_id: int) -> None:
    generation = Generation.objects.select_related("run", "question__context", "model").get(pk=generation_id)
    run = generation.run
    if not run.is_active:  # as read with the cell a moment ago: no second query
        return
    spec = RunSpec.from_dict(run.spec)
    stored = False  # by this task: then the cell carries what was stored, and is not read again
    if generation.status == Generation.Status.PENDING:
        try:
            client = client_for(generation.model, budget=run_services.run_budget(run), use_cache=spec.use_cache)
            stored = generation_answer(generation=generation, client=client, spec=spec, use_cache=spec.use_cache)
        except BudgetExceeded as exc:
            _stop_at_budget(run, exc)
            return
        except TransientProviderError as exc:
            if self.request.is_eager or self.request.retries >= MAX_RETRIES:
                run_services.generation_mark_failed(generation_id=generation_id, error=f"kept failing: {exc}")
            else:
                raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc
        if stored:  # what this answer cost is spent: the judging below, in this task, sees it in the budget
            run.cost_usd += generation.cost_usd
        else:
            generation.refresh_from_db(fields=["status"])
    if generation.status == Generation.Status.DONE:
        for stage in stages_for(spec):
            stage.after_answer(generation, spec, answered_here=stored)


@shared_task(name="cdke.similarity_batch", acks_late=True, reject_on_worker_lost=True, ignore_result=IGNORE_RESULT)
def similarity_batch_task(run_id: int) -> int:
    """ASS of a batch of the run's answers that lack it (on the embeddings workers); sends itself again while
    some are left."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None or not run_selectors.run_is_active(run_id):
        return 0
    batch = ass_batch(run=run, encoder=get_encoder(RunSpec.from_dict(run.spec).embedder))
    if batch.taken == ASS_BATCH:
        similarity_batch_task.delay(run_id)
    return batch.stored


def similarity_batch_soon(run_id: int) -> None:
    """Ask for an ASS batch of the run in a second, at most once a second from this process: answers come by the
    hundred per second, and the batch that runs after the window takes all that came in it. Inline (eager),
    at once."""
    if similarity_batch_task.app.conf.task_always_eager:
        similarity_batch_task.delay(run_id)
    elif cache.add(f"similarity-batch-{run_id}", 1, timeout=SIMILARITY_WINDOW_S):
        similarity_batch_task.apply_async((run_id,), countdown=SIMILARITY_WINDOW_S)


@shared_task(
    name="cdke.generation_score",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=MAX_RETRIES,
    ignore_result=IGNORE_RESULT,
)
def generation_score_task(self: Task, generation_id: int, evaluator_id: int) -> None:
    """One evaluator's FC, Acc, Cm and LAV of one answer (and AC, when its ASS is in), each metric on its
    own. A transient provider error is retried like an answer's (backoff and jitter), asking only for what is
    still missing; on the last attempt the metric that keeps failing is stored as failed, the others scored. An
    unexpected error fails what is missing of the unit, with its cause."""
    guarded(
        lambda: _score(self, generation_id, evaluator_id),
        lambda error: _score_failed(generation_id, evaluator_id, error),
        f"scoring generation {generation_id} by endpoint {evaluator_id}",
    )


def _score_failed(generation_id: int, evaluator_id: int, error: str) -> None:
    """Fail what is missing of the unit, with the cause."""
    generation = Generation.objects.select_related("run", "question").get(pk=generation_id)
    evaluator = ModelEndpoint.objects.get(pk=evaluator_id)
    stored = GenerationScore.objects.filter(generation=generation, scorer=evaluator.name)
    have = set(stored.values_list("metric", flat=True))
    missing = [MetricResult(m, None, ScoreStatus.FAILED, "", {"error": error}) for m in JUDGE_METRICS if m not in have]
    spec = RunSpec.from_dict(generation.run.spec)
    scores_store(
        generation=generation,
        evaluator=evaluator,
        results=missing,
        prompt_set=spec.judge_prompts,
        fc_weight=spec.fc_weight,
    )


def _score(self: Task, generation_id: int, evaluator_id: int) -> None:
    generation = Generation.objects.select_related("run", "question__context").get(pk=generation_id)
    run = generation.run
    if not run.is_active:  # as read with the cell a moment ago: no second query
        return
    evaluator = ModelEndpoint.objects.get(pk=evaluator_id)
    last_attempt = self.request.is_eager or self.request.retries >= MAX_RETRIES
    try:
        _judge(generation, evaluator, RunSpec.from_dict(run.spec), last_attempt=last_attempt)
    except TransientProviderError as exc:  # what was scored is stored; the rest is asked again later
        raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc


def _judge(
    generation: Generation, evaluator: ModelEndpoint, spec: RunSpec, *, last_attempt: bool, unjudged: bool = False
) -> None:
    """One evaluator's unit of one answer (``generation.run`` and ``generation.question.context`` loaded), and what
    its calls cost; a budget reached stops the run. Raises TransientProviderError when a metric keeps failing
    before the last attempt (what was scored is stored). ``unjudged``: the caller has just answered the cell."""
    run = generation.run
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
            fc_weight=spec.fc_weight,
            last_attempt=last_attempt,
            metrics=spec.metrics,
            unjudged=unjudged,
        )
    except BudgetExceeded as exc:
        _stop_at_budget(run, exc)
    finally:
        run_services.run_add_cost(run_id=run.pk, cost_usd=judge.cost_usd)


def judge_where_answered(generation: Generation, spec: RunSpec, *, last_attempt: bool, unjudged: bool = False) -> None:
    """Every evaluator's unit of an answer, judged in the task that stored it, with the cell, its run and context as
    that task holds them (issue 15: one task per evaluator and cell cost a Celery message each way and three queries
    more). An evaluator whose provider keeps failing, or whose judging fails unexpectedly, gets its own task, which
    retries (after a backoff) or fails the unit as ``generation_score_task`` does; what was scored stays. A run
    stopped meanwhile is seen when the next task starts, not here: at most the cells being answered are judged.
    ``unjudged``: the cell was answered by this task, so no unit of it has rows yet (none is read)."""
    for evaluator in run_selectors.run_evaluators(spec):
        try:
            _judge(generation, evaluator, spec, last_attempt=last_attempt, unjudged=unjudged)
        except Exception as exc:  # handed over whole: the evaluator's task handles every error
            transient = isinstance(exc, TransientProviderError)
            log.warning(
                "judging generation %s by %s where it was answered: %s; its own task takes it over",
                generation.pk,
                evaluator.name,
                exc if transient else type(exc).__name__,
            )
            countdown = retry_countdown(0) if transient else 0
            generation_score_task.apply_async((generation.pk, evaluator.pk), countdown=countdown)


@shared_task(name="cdke.retest_score", bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES)
def retest_score_task(self: Task, batch_id: int, generation_id: int, evaluator_id: int) -> None:
    """Judge one sampled answer a second time with one evaluator, the response cache off (``scoring.cdke.retest``);
    only what the unit lacks is asked. A transient provider error is retried with backoff and jitter; on the last
    attempt the metric that keeps failing is stored as failed."""
    batch = RetestBatch.objects.select_related("run").filter(pk=batch_id).first()
    if batch is None:
        return
    generation = Generation.objects.select_related("question__context").get(pk=generation_id)
    evaluator = ModelEndpoint.objects.get(pk=evaluator_id)
    last_attempt = self.request.is_eager or self.request.retries >= MAX_RETRIES

    def body() -> None:
        try:
            retest_judge(batch=batch, generation=generation, evaluator=evaluator, last_attempt=last_attempt)
        except TransientProviderError as exc:
            raise self.retry(exc=exc, countdown=retry_countdown(self.request.retries)) from exc

    guarded(
        body,
        lambda error: retest_mark_failed(batch=batch, generation=generation, evaluator=evaluator, error=error),
        f"retest {batch_id} of generation {generation_id} by evaluator {evaluator_id}",
    )


def retest_enqueue(batch: RetestBatch) -> int:
    """Send every unit the batch still lacks to the workers (the llm queue); returns how many."""
    units = retest_units(batch)
    for generation_id, evaluator_id in units:
        retest_score_task.delay(batch.pk, generation_id, evaluator_id)
    return len(units)


def encoder_preload(
    queues: Iterable[str], *, encoder: Callable[[], Encoder | Any] = get_encoder
) -> threading.Thread | None:
    """In a process that takes the embeddings queue, load the default encoder now, in a background thread (torch
    and the model: about 5 s of CPU, which the first ASS batch paid otherwise, and longer than a prefork child may
    take to report that it is up); in any other process (the llm threads, the default queue of one worker that
    runs everything), nothing. Returns the loading thread."""
    if settings.QUEUE_EMBEDDINGS not in set(queues):
        return None
    thread = threading.Thread(target=lambda: encoder().load(), name="encoder-preload", daemon=True)
    thread.start()
    return thread


@worker_process_init.connect
def _encoder_preload_in_worker_process(**kwargs: Any) -> None:
    """A prefork child of a worker started with ``-Q ...,embeddings,...`` loads its encoder as it starts."""
    encoder_preload(similarity_batch_task.app.amqp.queues.consume_from or {})
