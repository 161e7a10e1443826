"""Annotation campaigns a researcher starts: a dataset's draft questions into two-annotator review, a seeded sample of
a run's answers into judge calibration, a run's lowest-TAU items into three-annotator alignment. Each is idempotent
(a second call queues nothing new) and says how many it queued; each that queues something writes an audit event in
the same transaction."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import REVIEW_OVERLAP, CalibrationItem, ReviewItem, TauItem
from annotation.services.calibration import calibration_queue
from annotation.services.review import annotation_queue_questions
from annotation.services.tau import tau_item_create
from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Dataset, Question
from evalplatform.runs.models import Generation, Run
from scoring.kg_results import run_kg_spec
from scoring.models import TauDiagnosis
from scoring.services.graphs import graph_triplets


@dataclass(frozen=True)
class Queued:
    """What a campaign call did: ``queued`` new items, ``already`` queued before, ``skipped`` that could not be."""

    queued: int
    already: int
    skipped: int = 0

    def as_json(self) -> dict[str, int]:
        return {"queued": self.queued, "already_queued": self.already, "skipped": self.skipped}


def review_queue_dataset(*, dataset: Dataset, actor: User | None) -> Queued:
    """Queue every draft question of the dataset for two blind reviews (CDK-E, paper C §3.2). Questions in review
    already are counted as ``already``; validated and rejected ones as ``skipped`` (their review is over)."""
    with transaction.atomic():
        drafts = list(Question.objects.filter(dataset=dataset, status=Question.Status.DRAFT).order_by("pk"))
        queued = annotation_queue_questions(questions=drafts, overlap=REVIEW_OVERLAP)
        already = ReviewItem.objects.filter(question__dataset=dataset).count() - queued
        skipped = (
            Question.objects.filter(dataset=dataset, status__in=[Question.Status.VALIDATED, Question.Status.REJECTED])
            .exclude(review_item__isnull=False)
            .count()
        )
        if queued:
            audit_record(
                actor=actor,
                action="review.queue",
                obj=dataset,
                payload={"queued": queued, "already_queued": already, "version": dataset.version},
                dataset=dataset,
            )
    return Queued(queued, already, skipped)


def calibration_sample(*, run: Run, sample_size: int, seed: int, actor: User | None) -> Queued:
    """Queue a seeded random sample of the run's answered generations for human LAV / Acc / Cm labels (the same seed
    draws the same sample, so a second call queues nothing new). ``skipped``: the sample asked for more answers than
    the run has."""
    if sample_size < 1:
        raise ValueError("the sample size must be at least 1")
    done = Generation.objects.filter(run=run, status=Generation.Status.DONE).count()
    if not done:
        raise ValueError(f"run {run.pk} has no answered generation to sample")
    before = CalibrationItem.objects.filter(generation__run=run).count()
    items = calibration_queue(run=run, sample_size=sample_size, seed=seed, actor=actor)
    after = CalibrationItem.objects.filter(generation__run=run).count()
    return Queued(after - before, len(items) - (after - before), max(0, sample_size - done))


def tau_queue_run(*, run: Run, actor: User | None) -> Queued:
    """Queue each TAU diagnosis of the run's first S3KG variant (the lowest 5 % of each model, temperature and
    condition: S3KG §4) that has no alignment item yet, for three blind labels."""
    kg = run_kg_spec(run)
    diagnoses = list(
        TauDiagnosis.objects.filter(graph_score__generation__run=run, graph_score__variant=kg.variants[0])
        .select_related("graph_score__generation", "graph_score__answer_graph", "graph_score__gold_graph")
        .order_by("pk")
    )
    if not diagnoses:
        raise ValueError(f"run {run.pk} has no TAU diagnosis yet: score its knowledge graphs first")
    with transaction.atomic():
        have = set(
            TauItem.objects.filter(graph_score__in=[d.graph_score for d in diagnoses]).values_list(
                "graph_score_id", flat=True
            )
        )
        queued = 0
        for diagnosis in diagnoses:
            score = diagnosis.graph_score
            if score.pk in have:
                continue
            tau_item_create(
                gold=[list(t) for t in graph_triplets(score.gold_graph)],
                answer=[list(t) for t in graph_triplets(score.answer_graph)],
                graph_score=score,
            )
            queued += 1
        if queued:
            audit_record(
                actor=actor,
                action="tau.queue",
                obj=run,
                payload={"queued": queued, "already_queued": len(have)},
                dataset=run.dataset,
            )
    return Queued(queued, len(have))
