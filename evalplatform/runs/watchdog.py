"""The run watchdog: a running run that has made no progress for ``RUN_STALE_AFTER_S`` (a killed worker's task
waits for the broker's visibility timeout, an hour on Redis; a lost message never comes back) gets its
unfinished work sent again, stage by stage; after ``RUN_WATCHDOG_KICKS`` re-sends without progress it fails,
with the reason, and ``run_resume`` continues it. Everything it sends is idempotent."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from evalplatform.runs import services
from evalplatform.runs.models import Run
from evalplatform.runs.spec import RunSpec
from evalplatform.runs.stages import stages_for

log = logging.getLogger(__name__)


def run_is_stale(run: Run, now: datetime | None = None) -> bool:
    """Running, and no unit finished (nor watchdog re-send happened) for ``RUN_STALE_AFTER_S``."""
    last = run.progress_at or run.started_at or run.created_at
    now = now or timezone.now()
    return run.status == Run.Status.RUNNING and now - last > timedelta(seconds=settings.RUN_STALE_AFTER_S)


def run_watch(*, run_id: int, now: datetime | None = None) -> str:
    """Look at one run: 'progressing', 'done' (its counters were behind), 'resent' or 'failed'."""
    now = now or timezone.now()
    run = Run.objects.get(pk=run_id)
    if not run_is_stale(run, now):
        return "progressing"
    run = services.run_reconcile_progress(run_id=run_id)
    if run.status != Run.Status.RUNNING:
        return "done"
    if run.watchdog_kicks >= settings.RUN_WATCHDOG_KICKS:
        minutes = settings.RUN_STALE_AFTER_S * (run.watchdog_kicks + 1) // 60
        services.run_stop(
            run_id=run_id,
            status=Run.Status.FAILED,
            reason=(
                f"no progress for about {minutes} minutes although its work was sent again {run.watchdog_kicks} "
                f"times: are workers running for its queues? run_resume continues it"
            ),
        )
        return "failed"
    stale_before = now - timedelta(seconds=settings.RUN_STALE_AFTER_S)
    for stage in reversed(stages_for(RunSpec.from_dict(run.spec))):
        stage.requeue_stale(run, sent_before=stale_before)
        stage.schedule(run)
    Run.objects.filter(pk=run_id).update(watchdog_kicks=F("watchdog_kicks") + 1, progress_at=now)
    log.warning("run %s was stale: its unfinished work was sent again (%s)", run_id, run.watchdog_kicks + 1)
    return "resent"


def runs_watch(now: datetime | None = None) -> dict[int, str]:
    """Every running run, looked at once."""
    ids = list(Run.objects.filter(status=Run.Status.RUNNING).values_list("pk", flat=True))
    return {run_id: run_watch(run_id=run_id, now=now) for run_id in ids}
