"""Launching and resuming a run: plan it, record who did it, and send it to the workers once the transaction
commits.

The plan of a run is its Generation rows, created pending at launch under the one-per-cell constraint; what is
done with them is the work of the stages the methods register (``evalplatform.runs.stages``); the task that
schedules that work is ``runs.run_execute``. Both write an audit event in the same transaction."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Dataset
from evalplatform.roles import signed_in_user
from evalplatform.runs import selectors
from evalplatform.runs.fingerprint import build_fingerprint
from evalplatform.runs.models import ModelEndpoint, Run
from evalplatform.runs.services import (
    Actor,
    cell_count,
    check_conditions,
    check_run_size,
    run_manifest,
    run_plan_cells,
    run_plan_progress,
    run_reconcile_progress,
)
from evalplatform.runs.spec import RunSpec, SpecError
from evalplatform.runs.stages import stages_for
from evalplatform.runs.tasks import run_execute


@transaction.atomic
def run_launch(
    *,
    dataset: Dataset,
    spec: dict[str, Any],
    actor: Actor = None,
    budget_usd: Decimal | None = None,
    enqueue: bool = True,
    kind: str = Run.Kind.CDKE,
    reproduces: Run | None = None,
) -> Run:
    """Validate a CDK-E (or knowledge-graph) run and plan it: one pending Generation per cell (question × model ×
    temperature × condition × sample), written here for a run of up to RUN_PLAN_INLINE_CELLS cells and by the
    first worker task for a larger one. Refuses a spec naming unknown endpoints, options a stage cannot run, the
    real condition on contexts without real text, or more cells than the cap. The run is enqueued once the
    transaction commits. Its manifest records its fingerprint (``evalplatform.runs.fingerprint``) and, for a
    reproduction (``reproduces``), the run it reproduces."""
    parsed = RunSpec.from_dict(spec)
    if kind not in (Run.Kind.CDKE, Run.Kind.KG):
        raise SpecError("kind", f"run_launch plans answer runs (cdke, kg), not '{kind}'")
    if kind == Run.Kind.KG and parsed.kg is None:
        raise SpecError("kg", "a kg run needs its knowledge-graph options")
    models = selectors.endpoints_named(parsed.models, "models")
    imported = [m.name for m in models if m.provider == ModelEndpoint.Provider.IMPORTED]
    if imported:
        raise SpecError("models", f"'{imported[0]}' stands for answers imported with a dataset and cannot be asked")
    stages = stages_for(parsed)
    for stage in stages:
        stage.validate(parsed)
    questions = list(selectors.run_questions(dataset, parsed))
    if not questions:
        raise SpecError("dataset", f"dataset '{dataset.name}' has no question to run")
    check_conditions(questions, parsed)
    n_cells = cell_count(len(questions), parsed)
    check_run_size(n_cells)
    manifest = run_manifest(parsed)
    manifest["fingerprint"] = build_fingerprint(
        dataset=dataset, spec=parsed, manifest=manifest, pipeline=str(manifest["pipeline"])
    )
    if reproduces is not None:
        manifest["reproduces"] = reproduces.pk
    run = Run.objects.create(
        kind=kind,
        dataset=dataset,
        spec=parsed.to_dict(),
        created_by=signed_in_user(actor),
        budget_usd=budget_usd,
        manifest=manifest,
    )
    run_plan_progress(run=run, spec=parsed, n_cells=n_cells)
    if n_cells <= settings.RUN_PLAN_INLINE_CELLS or not enqueue:
        run_plan_cells(run=run, questions=questions, models=models)
    audit_record(
        actor=actor,
        action="run.launch",
        obj=run,
        payload={"kind": kind, "spec": run.spec, "cells": n_cells, "budget_usd": str(budget_usd or "")},
        dataset=dataset,
    )
    if enqueue:
        run_enqueue(run=run)
    return run


def run_enqueue(*, run: Run) -> None:
    """Send the run to the workers once the current transaction commits (its rows are visible by then)."""
    transaction.on_commit(lambda: run_execute.delay(run.pk))


def run_resume(*, run: Run, retry_failed: bool = False, actor: Actor = None) -> Run:
    """Make a stopped or interrupted run runnable again; the answers and scores it has are kept, and what is
    redone is served from the response cache where it was asked before. ``retry_failed`` also forgets the
    failed units of every stage so that they are tried again."""
    spec = RunSpec.from_dict(run.spec)
    with transaction.atomic():
        forgotten = 0
        for stage in stages_for(spec):
            if retry_failed:
                forgotten += stage.retry_failed(run)
            stage.requeue_stale(run, sent_before=timezone.now())  # what was sent before may be lost: send it again
        Run.objects.filter(pk=run.pk).exclude(status=Run.Status.QUEUED).update(
            status=Run.Status.RUNNING, status_reason="", finished_at=None
        )
        run_reconcile_progress(run_id=run.pk)
        audit_record(
            actor=actor,
            action="run.resume",
            obj=run,
            payload={"retry_failed": retry_failed, "forgotten_failed_units": forgotten},
            dataset=run.dataset,
        )
        run_enqueue(run=run)
    run.refresh_from_db()
    return run
