"""What a researcher's campaign page reads (scoped to the datasets and runs the user sees): progress of review per
dataset, each annotator's submitted and open work, agreement so far, what waits for a consensus decision, and the
TAU and calibration work queued from each run. Every statistic comes from ``annotation.agreement``."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from annotation.agreement import accuracy, cohen_kappa, mean_pairwise_f1
from annotation.models import (
    AssignmentStatus,
    CalibrationItem,
    CalibrationLabel,
    ItemState,
    Review,
    ReviewAssignment,
    ReviewItem,
    TauAssignment,
    TauItem,
    TauLabel,
)
from annotation.permissions import is_reviewer
from evalplatform.corpus.models import Dataset, Question
from evalplatform.corpus.selectors import datasets_visible_to, latest_versions
from evalplatform.roles import AnyUser
from evalplatform.runs.models import Run
from evalplatform.runs.selectors import runs_visible_to


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


@dataclass
class ReviewAgreement:
    """The first two reviews of each question compared on accept (context coherent and question valid)."""

    pairs: int = 0
    kappa: float | None = None
    raw: float | None = None


@dataclass
class DatasetProgress:
    dataset: Dataset
    questions: int
    status: dict[str, int]
    items: dict[str, int]
    reviews_submitted: int
    agreement: ReviewAgreement

    @property
    def queued(self) -> int:
        return sum(self.items.values())

    @property
    def decided_percent(self) -> float:
        return 100.0 * self.items.get(ItemState.DECIDED, 0) / self.queued if self.queued else 0.0


@dataclass
class AnnotatorProgress:
    username: str
    reviews_submitted: int = 0
    reviews_open: int = 0
    tau_submitted: int = 0
    tau_open: int = 0
    calibration_labels: int = 0

    @property
    def total(self) -> int:
        return self.reviews_submitted + self.tau_submitted + self.calibration_labels


@dataclass
class RunCampaign:
    run: Run
    tau_items: int
    tau_complete: int
    tau_labels: int
    tau_pairwise_f1: float | None
    calibration_items: int
    calibration_labels: int


@dataclass
class Campaign:
    datasets: list[DatasetProgress] = field(default_factory=list)
    annotators: list[AnnotatorProgress] = field(default_factory=list)
    runs: list[RunCampaign] = field(default_factory=list)
    waiting: list[ReviewItem] = field(default_factory=list)


def review_agreement(items: list[int]) -> ReviewAgreement:
    """Cohen's kappa and raw agreement on accept over the items' first two submitted reviews."""
    votes: dict[int, list[bool]] = defaultdict(list)
    rows = (
        Review.objects.filter(assignment__item_id__in=items, assignment__status=AssignmentStatus.SUBMITTED)
        .order_by("submitted_at", "pk")
        .values_list("assignment__item_id", "context_coherent", "question_valid")
    )
    for item_id, coherent, valid in rows:
        votes[item_id].append(bool(coherent and valid))
    pairs = [v[:2] for v in votes.values() if len(v) >= 2]
    if not pairs:
        return ReviewAgreement()
    first, second = [p[0] for p in pairs], [p[1] for p in pairs]
    return ReviewAgreement(len(pairs), _finite(cohen_kappa(first, second)), accuracy(first, second))


def _dataset_progress(dataset: Dataset) -> DatasetProgress:
    status = dict(
        Question.objects.filter(dataset=dataset)
        .values_list("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    items = dict(
        ReviewItem.objects.filter(question__dataset=dataset)
        .values_list("state")
        .annotate(n=Count("pk"))
        .values_list("state", "n")
    )
    item_ids = list(ReviewItem.objects.filter(question__dataset=dataset).values_list("pk", flat=True))
    return DatasetProgress(
        dataset=dataset,
        questions=sum(status.values()),
        status={s: status.get(s, 0) for s in Question.Status.values},
        items={s: items.get(s, 0) for s in ItemState.values},
        reviews_submitted=Review.objects.filter(assignment__item_id__in=item_ids).count(),
        agreement=review_agreement(item_ids),
    )


def _tau_f1(run: Run) -> float | None:
    sets: dict[int, list[set[tuple[int, int]]]] = defaultdict(list)
    labels = TauLabel.objects.filter(
        assignment__item__generation__run=run, assignment__item__state=ItemState.COMPLETE
    ).values_list("assignment__item_id", "aligned")
    for item_id, aligned in labels:
        sets[item_id].append({(int(a), int(g)) for a, g in aligned})
    scores = [mean_pairwise_f1(s) for s in sets.values() if len(s) >= 2]
    return sum(scores) / len(scores) if scores else None


def campaign_overview(*, user: AnyUser) -> Campaign:
    """Everything the campaign page shows, for a researcher or an admin (others: nothing)."""
    if not is_reviewer(user):
        return Campaign()
    visible = datasets_visible_to(user)
    with_items = visible.filter(pk__in=ReviewItem.objects.values("question__dataset_id"))
    shown = (
        (latest_versions(visible).exclude(kind=Dataset.Kind.PAIRS) | with_items).distinct().order_by("name", "-version")
    )
    campaign = Campaign(datasets=[_dataset_progress(d) for d in shown])
    runs = runs_visible_to(user).filter(
        Q(generations__tau_items__isnull=False) | Q(generations__calibration_item__isnull=False)
    )
    for run in runs.distinct().order_by("-pk")[:50]:
        tau = TauItem.objects.filter(generation__run=run)
        calibration = CalibrationItem.objects.filter(generation__run=run)
        campaign.runs.append(
            RunCampaign(
                run=run,
                tau_items=tau.count(),
                tau_complete=tau.filter(state=ItemState.COMPLETE).count(),
                tau_labels=TauLabel.objects.filter(assignment__item__in=tau).count(),
                tau_pairwise_f1=_tau_f1(run),
                calibration_items=calibration.count(),
                calibration_labels=CalibrationLabel.objects.filter(item__in=calibration).count(),
            )
        )
    campaign.annotators = annotator_progress(user=user)
    campaign.waiting = list(
        ReviewItem.objects.filter(question__dataset__in=visible, state=ItemState.NEEDS_DECISION)
        .select_related("question__dataset")
        .order_by("pk")[:200]
    )
    return campaign


def _per_annotator(rows: QuerySet[Any]) -> QuerySet[Any]:
    """(annotator's username, how many of ``rows`` are theirs), one pair per annotator, in one query."""
    return rows.values_list("annotator__username").order_by().annotate(n=Count("pk"))


def annotator_progress(*, user: AnyUser) -> list[AnnotatorProgress]:
    """Per annotator, their work on the datasets and runs the user sees: submitted, and claimed with a live lease."""
    now = timezone.now()
    visible = datasets_visible_to(user)
    runs = runs_visible_to(user).values("pk")
    rows: dict[str, AnnotatorProgress] = {}

    def row(name: str) -> AnnotatorProgress:
        return rows.setdefault(name, AnnotatorProgress(name))

    live = Q(status=AssignmentStatus.CLAIMED, lease_expires_at__gt=now)
    reviews = ReviewAssignment.objects.filter(item__question__dataset__in=visible)
    for name, n in _per_annotator(reviews.filter(status=AssignmentStatus.SUBMITTED)):
        row(name).reviews_submitted = n
    for name, n in _per_annotator(reviews.filter(live)):
        row(name).reviews_open = n
    taus = TauAssignment.objects.filter(item__generation__run__in=runs)
    for name, n in _per_annotator(taus.filter(status=AssignmentStatus.SUBMITTED)):
        row(name).tau_submitted = n
    for name, n in _per_annotator(taus.filter(live)):
        row(name).tau_open = n
    for name, n in _per_annotator(CalibrationLabel.objects.filter(item__generation__run__in=runs)):
        row(name).calibration_labels = n
    return [rows[name] for name in sorted(rows)]
