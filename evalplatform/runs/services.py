"""Writes of the runs app that the tasks use: a run's lifecycle (start, stop), its cost and its progress, and
what is shared with the launch (``evalplatform.runs.launch``): its manifest and its estimate.

Everything here is idempotent, so a killed worker or a failed call leaves a resumable run. A stop writes an
audit event in the same transaction."""

from __future__ import annotations

import logging
import platform
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Dataset, Question
from evalplatform.llm.pricing import Budget, CostEstimate
from evalplatform.roles import AnyUser
from evalplatform.runs import selectors
from evalplatform.runs.models import Generation, Run
from evalplatform.runs.spec import RunSpec, SpecError
from evalplatform.runs.stages import stages_for

log = logging.getLogger(__name__)
PIPELINE_VERSION = "answer-run@2"
Actor = AnyUser | None


def run_manifest(spec: RunSpec) -> dict[str, Any]:
    """Versions of everything that shapes the numbers, stored with the run: the pipeline's, and each stage's."""
    manifest: dict[str, Any] = {"pipeline": PIPELINE_VERSION, "python": platform.python_version()}
    for stage in stages_for(spec):
        for key, value in stage.manifest(spec).items():
            if isinstance(value, dict) and isinstance(manifest.get(key), dict):
                manifest[key] = manifest[key] | value
            else:
                manifest[key] = value
    return manifest


def check_conditions(questions: list[Question], spec: RunSpec) -> None:
    if "real" in spec.conditions:
        lacking = {q.context.key for q in questions if not q.context.source_text.strip()}
        if lacking:
            raise SpecError(
                "conditions",
                f"'real' needs the real source text, which {len(lacking)} of the run's contexts lack "
                f"(e.g. '{sorted(lacking)[0]}'); the public DKD ships only the divergent texts",
            )


def run_estimate(*, dataset: Dataset, spec: RunSpec) -> CostEstimate:
    """Pre-flight cost of a run: every call each of its stages would make, at the endpoints' prices."""
    questions = list(selectors.run_questions(dataset, spec))
    total = CostEstimate(0, 0, 0, 0.0)
    for stage in stages_for(spec):
        stage.validate(spec)
        part = stage.estimate(questions=questions, spec=spec)
        total = CostEstimate(
            total.n_requests + part.n_requests,
            total.input_tokens + part.input_tokens,
            total.output_tokens + part.output_tokens,
            total.cost_usd + part.cost_usd,
        )
    return total


def run_budget(run: Run) -> Budget | None:
    """The part of the run's hard budget still unspent (None when the run has no budget)."""
    if run.budget_usd is None:
        return None
    return Budget(max(0.0, float(run.budget_usd - run.cost_usd)))


def run_add_cost(*, run_id: int, cost_usd: float) -> None:
    if cost_usd:
        Run.objects.filter(pk=run_id).update(cost_usd=F("cost_usd") + Decimal(str(round(cost_usd, 6))))


def run_start(*, run: Run) -> bool:
    """queued → running (a resumed run is running already). False when the run is finished or stopped."""
    started = Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, started_at=timezone.now()
    )
    return bool(started) or Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).exists()


def run_stop(*, run_id: int, status: str, reason: str, actor: Actor = None) -> bool:
    """Stop an active run (cancelled, or failed) and say why; a finished run stays as it is."""
    with transaction.atomic():
        stopped = Run.objects.filter(pk=run_id, status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).update(
            status=status, status_reason=reason, finished_at=timezone.now()
        )
        if stopped:
            run = Run.objects.select_related("dataset").get(pk=run_id)
            audit_record(
                actor=actor,
                action="run.stop",
                obj=run,
                payload={"status": status, "reason": reason},
                dataset=run.dataset,
            )
    if stopped:
        log.info("run %s stopped (%s): %s", run_id, status, reason)
    return bool(stopped)


def generation_mark_failed(*, generation_id: int, error: str) -> None:
    Generation.objects.filter(pk=generation_id, status=Generation.Status.PENDING).update(
        status=Generation.Status.FAILED, error=error[:2000]
    )


def run_refresh_progress(*, run_id: int) -> Run:
    """Recount the run's progress from its rows (never incremented, so retries cannot double count) and
    finish it when every unit is done."""
    run = Run.objects.get(pk=run_id)
    finished, failed = selectors.run_progress(run)
    Run.objects.filter(pk=run_id).update(progress_done=min(finished, run.progress_total), progress_failed=failed)
    if finished >= run.progress_total:
        Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(
            status=Run.Status.DONE, finished_at=timezone.now()
        )
    run.refresh_from_db()
    return run


@transaction.atomic
def run_export_record(*, run: Run, kind: str, fmt: str, actor: Actor) -> None:
    """Record that a run's rows left the platform (who, which rows, in which format)."""
    audit_record(actor=actor, action="run.export", obj=run, payload={"kind": kind, "format": fmt}, dataset=run.dataset)
