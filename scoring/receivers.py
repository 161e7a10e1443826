"""What the scoring app does when the runs app reports something (connected in ``ScoringConfig.ready``): a finished
run gets its results computed and kept, on a worker, so that its first reader waits for nothing."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from evalplatform.runs.signals import run_finished
from scoring.tasks import warm_results_task


@receiver(run_finished, dispatch_uid="scoring.warm_results")
def warm_results(sender: Any, *, run_id: int, **kwargs: Any) -> None:
    warm_results_task.delay(run_id)
