"""The run's own Celery task: schedule what is left of a run, stage by stage. The stages' tasks (answering,
judging, graphs) belong to the methods that register them. Tasks are thin, take ids and are idempotent;
``acks_late`` with ``reject_on_worker_lost`` redelivers the task of a killed worker."""

import logging
import random
from collections.abc import Callable

from celery import shared_task
from celery.exceptions import Retry

from evalplatform.runs import services
from evalplatform.runs.models import Run, StageProgress
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import stages_for
from evalplatform.runs.watchdog import run_watch, runs_watch

log = logging.getLogger(__name__)
# A stage's task whose calls still fail after the client's own retries is rescheduled on a worker up to
# MAX_RETRIES times, with exponential backoff (capped at BACKOFF_CAP_S) and jitter, then marked failed.
MAX_RETRIES = 4
BACKOFF_CAP_S = 120


def guarded(body: Callable[[], object], on_unexpected: Callable[[str], object], what: str) -> None:
    """Run a task's body; a Celery retry passes through, and any other exception is logged and handed, as
    ``unexpected error: <type>: <message>``, to ``on_unexpected``, which fails the work it was doing with that
    cause: no cell or score is left pending for ever by an error nobody foresaw."""
    try:
        body()
    except Retry:
        raise
    except Exception as exc:
        log.exception("%s failed unexpectedly", what)
        on_unexpected(f"unexpected error: {type(exc).__name__}: {exc}")


def retry_countdown(retries: int) -> float:
    """Seconds before retry number ``retries + 1``: full jitter over an exponential backoff."""
    return random.uniform(0.5, 1.0) * min(BACKOFF_CAP_S, 2 ** (retries + 1))


@shared_task(name="runs.run_execute", acks_late=True, reject_on_worker_lost=True)
def run_execute(run_id: int) -> None:
    """Start the run (queued → running) and send what is left of each of its stages to the workers."""
    run = Run.objects.select_related("dataset").get(pk=run_id)
    if not services.run_start(run=run):
        return
    if run.planned_at is None:  # a large run: its cells are written here, not in the launching request
        services.run_plan_cells(run=run)
    if not StageProgress.objects.filter(run=run).exists():  # a run launched before progress was counted
        services.run_reconcile_progress(run_id=run_id)
    # The later stages first: each takes the cells answered so far, the answer stage then sends the pending
    # ones, whose tasks hand them on. Scheduled the other way, a cell answered in between would be sent twice.
    for stage in reversed(stages_for(RunSpec.from_dict(run.spec))):
        stage.schedule(run)
    services.run_finish_if_complete(run_id=run_id)


@shared_task(name="runs.watchdog")
def runs_watchdog_task() -> dict[int, str]:
    """Look at every running run (Celery beat sends this every RUN_WATCHDOG_EVERY_S)."""
    return runs_watch()


@shared_task(name="runs.watch_run")
def run_watch_task(run_id: int) -> str:
    """Look at one run (sent when a progress poll finds it stale)."""
    return run_watch(run_id=run_id)
