"""Writes of the runs app that the tasks use: a run's lifecycle (start, stop), its cost and its progress, and
what is shared with the launch (``evalplatform.runs.launch``): its manifest and its estimate.

Everything here is idempotent, so a killed worker or a failed call leaves a resumable run. A stop writes an
audit event in the same transaction."""

from __future__ import annotations

import logging
import platform
from collections.abc import Sequence
from decimal import Decimal
from itertools import islice
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Dataset, Question
from evalplatform.llm.pricing import Budget, CostEstimate
from evalplatform.roles import AnyUser
from evalplatform.runs import selectors
from evalplatform.runs.fields import stored_error
from evalplatform.runs.models import ACTIVE_STATUSES, Generation, ModelEndpoint, Run, StageProgress
from evalplatform.runs.signals import run_finished
from evalplatform.runs.spec import RunSpec, SpecError
from evalplatform.runs.stages import stages_for

log = logging.getLogger(__name__)
# Cells written per INSERT when a run is planned.
PLAN_BATCH = 2000
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


def cell_count(n_questions: int, spec: RunSpec) -> int:
    return n_questions * len(spec.models) * len(spec.temperatures) * len(spec.conditions) * spec.samples


def check_run_size(n_cells: int) -> None:
    """Refuse a run of more cells than ``EVALPLATFORM_MAX_RUN_CELLS``, saying how to narrow it."""
    cap = settings.MAX_RUN_CELLS
    if n_cells > cap:
        raise SpecError(
            "limit",
            f"this run has {n_cells:,} cells (questions x models x temperatures x conditions x samples), more than "
            f"the {cap:,} this platform allows (EVALPLATFORM_MAX_RUN_CELLS); narrow it with limit or per_context, "
            "fewer models, temperatures, conditions or samples, or split it into several runs",
        )


def run_estimate(*, dataset: Dataset, spec: RunSpec) -> CostEstimate:
    """Pre-flight cost of a run: every call each of its stages would make, at the endpoints' prices."""
    questions = list(selectors.run_questions(dataset, spec))
    check_run_size(cell_count(len(questions), spec))
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
        Run.objects.filter(pk=run_id).update(cost_usd=F("cost_usd") + _usd(cost_usd))


def _usd(cost_usd: float) -> Decimal:
    """A cost as the run's cost column keeps it (six decimals)."""
    return Decimal(str(round(cost_usd, 6)))


def run_start(*, run: Run) -> bool:
    """queued → running (a resumed run is running already). False when the run is finished or stopped."""
    started = Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.RUNNING, started_at=timezone.now()
    )
    return bool(started) or Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).exists()


def run_stop(*, run_id: int, status: str, reason: str, actor: Actor = None) -> bool:
    """Stop an active run (cancelled, or failed) and say why; a finished run stays as it is."""
    with transaction.atomic():
        stopped = Run.objects.filter(pk=run_id, status__in=ACTIVE_STATUSES).update(
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


def generation_mark_failed(*, generation_id: int, error: str) -> bool:
    """A pending cell whose answer kept failing: failed, with its cause; its later units fail with it."""
    with transaction.atomic():
        generation = Generation.objects.filter(pk=generation_id, status=Generation.Status.PENDING).first()
        if generation is None:
            return False
        updated = Generation.objects.filter(pk=generation_id, status=Generation.Status.PENDING).update(
            status=Generation.Status.FAILED, error=stored_error(error)
        )
        if updated:
            run_count_failed_cell(run_id=generation.run_id)
    return bool(updated)


# -- progress: counted as units finish, recounted only to reconcile --------------------------------------


def run_plan_progress(*, run: Run, spec: RunSpec, n_cells: int) -> None:
    """One StageProgress row per stage of the run (units per cell x cells), and the run's total."""
    rows = [
        StageProgress(run=run, stage=stage.name, per_cell=stage.units_per_cell(spec), total=0)
        for stage in stages_for(spec)
    ]
    for row in rows:
        row.total = row.per_cell * n_cells
    StageProgress.objects.bulk_create(rows, ignore_conflicts=True)
    run.progress_total = sum(row.total for row in rows)
    Run.objects.filter(pk=run.pk).update(progress_total=run.progress_total)


def run_plan_cells(
    *, run: Run, questions: Sequence[Question] | None = None, models: Sequence[ModelEndpoint] | None = None
) -> int:
    """Write the run's cells, one pending Generation each, streamed in batches of PLAN_BATCH in planned order (a
    context's cells together; the answers are later sent in primary-key order, which is this order), so that
    memory stays bounded however many cells. Idempotent (a cell is written once: the one-per-cell constraint), so
    an interrupted planning is simply done again. Returns how many cells the run has."""
    spec = RunSpec.from_dict(run.spec)
    questions = questions if questions is not None else list(selectors.run_questions(run.dataset, spec))
    models = models if models is not None else selectors.endpoints_named(spec.models, "models")
    cells = (
        Generation(run_id=run.pk, question_id=q.pk, model_id=m.pk, temperature=t, condition=c, sample_index=s)
        for q in questions
        for m in models
        for t in spec.temperatures
        for c in spec.conditions
        for s in range(spec.samples)
    )
    while batch := list(islice(cells, PLAN_BATCH)):
        Generation.objects.bulk_create(batch, ignore_conflicts=True)
    Run.objects.filter(pk=run.pk).update(planned_at=timezone.now())
    return Generation.objects.filter(run=run).order_by().count()


def run_count(*, run_id: int, stage: str, done: int = 1, failed: int = 0, cost_usd: float = 0.0) -> None:
    """Count units of one stage that finished (and what they cost, in the same statement), and finish the run when
    this count completes it. Call it inside the transaction that stored them, and only when this writer stored
    them (a conditional update that changed a row, an insert that did not conflict)."""
    counted = StageProgress.objects.filter(run_id=run_id, stage=stage).update(
        done=F("done") + done, failed=F("failed") + failed
    )
    if counted:  # a stage the run does not have (a second graph pass over a CDK-E run) counts nothing
        _run_progress_add(run_id=run_id, done=done, failed=failed, cost_usd=cost_usd)
    else:
        run_add_cost(run_id=run_id, cost_usd=cost_usd)


def run_count_failed_cell(*, run_id: int) -> None:
    """A cell whose answer failed finishes every unit it gives every stage, as failed."""
    per_cell = sum(StageProgress.objects.filter(run_id=run_id).values_list("per_cell", flat=True))
    StageProgress.objects.filter(run_id=run_id).update(
        done=F("done") + F("per_cell"), failed=F("failed") + F("per_cell")
    )
    _run_progress_add(run_id=run_id, done=per_cell, failed=per_cell)


def _run_progress_add(*, run_id: int, done: int, failed: int, cost_usd: float = 0.0) -> None:
    """Add to the run's counters. Only a count can complete a run, so the count that reaches the total finishes
    it: a count that leaves units to do is one UPDATE (a condition on the row it updates), and only the one that
    matches nothing there (the last, or a run gone) adds and finishes in two more. Before, every task ended with a
    conditional UPDATE to finish the run, three or four a cell (issue 15, goal 2)."""
    added = {
        "progress_done": F("progress_done") + done,
        "progress_failed": F("progress_failed") + failed,
        "progress_at": timezone.now(),
        "watchdog_kicks": 0,
    }
    if cost_usd:
        added["cost_usd"] = F("cost_usd") + _usd(cost_usd)
    if not Run.objects.filter(pk=run_id, progress_done__lt=F("progress_total") - done).update(**added):
        Run.objects.filter(pk=run_id).update(**added)
        run_finish_if_complete(run_id=run_id)


def run_finish_if_complete(*, run_id: int) -> bool:
    """running → done once every unit is finished (one conditional update: whoever counts the last unit), and
    ``run_finished`` sent when that commits. The counters call it when they reach the total; the rest only where
    a run may be complete without a count (a run with nothing left to do when it starts, a reconciliation)."""
    finished = bool(
        Run.objects.filter(pk=run_id, status=Run.Status.RUNNING, progress_done__gte=F("progress_total")).update(
            status=Run.Status.DONE, finished_at=timezone.now()
        )
    )
    if finished:
        transaction.on_commit(lambda: run_finished.send(sender=Run, run_id=run_id))
    return finished


@transaction.atomic
def run_reconcile_progress(*, run_id: int) -> Run:
    """Recount every stage's units from the rows (on resume, after a retry forgot failed units, and when the
    watchdog looks at a run), correct the counters, and finish the run when every unit is done. O(run): never
    on the hot path."""
    run = Run.objects.select_for_update().get(pk=run_id)
    if run.planned_at is None:  # its cells are still being written: nothing to recount yet
        return run
    spec = RunSpec.from_dict(run.spec)
    n_cells = Generation.objects.filter(run=run).order_by().count()
    failed_cells = Generation.objects.filter(run=run, status=Generation.Status.FAILED).order_by().count()
    done_total = failed_total = planned = 0
    for stage in stages_for(spec):
        done, failed = stage.progress(run, spec, failed_cells=failed_cells)
        per_cell = stage.units_per_cell(spec)
        StageProgress.objects.update_or_create(
            run=run,
            stage=stage.name,
            defaults={"per_cell": per_cell, "total": per_cell * n_cells, "done": done, "failed": failed},
        )
        done_total, failed_total, planned = done_total + done, failed_total + failed, planned + per_cell * n_cells
    Run.objects.filter(pk=run_id).update(
        progress_total=planned, progress_done=min(done_total, planned), progress_failed=failed_total
    )
    run_finish_if_complete(run_id=run_id)
    run.refresh_from_db()
    return run


@transaction.atomic
def run_export_record(*, run: Run, kind: str, fmt: str, actor: Actor) -> None:
    """Record that a run's rows left the platform (who, which rows, in which format)."""
    audit_record(actor=actor, action="run.export", obj=run, payload={"kind": kind, "format": fmt}, dataset=run.dataset)
