"""Scoped reads of the annotation app. Blind review is enforced here: nothing returns another annotator's
review or label before every slot of the item is submitted, whichever page or API route asks."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone
from django.utils.safestring import SafeString

from annotation.models import (
    AssignmentStatus,
    CalibrationItem,
    CalibrationLabel,
    Consensus,
    ItemState,
    Review,
    ReviewAssignment,
    ReviewItem,
    TauAssignment,
    TauItem,
    TauLabel,
)
from annotation.permissions import can_annotate, is_reviewer
from evalplatform.audit.models import AuditEvent
from evalplatform.corpus.highlight import highlight
from evalplatform.corpus.models import Alteration
from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.roles import AnyUser, is_admin
from evalplatform.runs.models import Run
from evalplatform.runs.selectors import run_get, runs_visible_to


class NotOpenYet(Exception):
    """The user is involved with the item, but its other annotations are still hidden (blind review)."""


def review_assignment_get(*, user: AnyUser, pk: int) -> ReviewAssignment | None:
    """One of the user's own review assignments; nobody else's, whatever their role."""
    if not user.is_authenticated:
        return None
    return (
        ReviewAssignment.objects.select_related("item__question__context", "item__question__dataset")
        .filter(pk=pk, annotator_id=user.pk)
        .first()
    )


def tau_assignment_get(*, user: AnyUser, pk: int) -> TauAssignment | None:
    if not user.is_authenticated:
        return None
    return TauAssignment.objects.select_related("item").filter(pk=pk, annotator_id=user.pk).first()


def own_review(assignment: ReviewAssignment) -> Review | None:
    return Review.objects.filter(assignment=assignment).first()


def own_tau_label(assignment: TauAssignment) -> TauLabel | None:
    return TauLabel.objects.filter(assignment=assignment).first()


def my_review_assignments(*, user: AnyUser) -> QuerySet[ReviewAssignment]:
    if not user.is_authenticated:
        return ReviewAssignment.objects.none()
    return ReviewAssignment.objects.filter(annotator_id=user.pk).select_related("item__question").order_by("-pk")


def my_tau_assignments(*, user: AnyUser) -> QuerySet[TauAssignment]:
    if not user.is_authenticated:
        return TauAssignment.objects.none()
    return TauAssignment.objects.filter(annotator_id=user.pk).select_related("item").order_by("-pk")


@dataclass(frozen=True)
class QueueSummary:
    review_available: int
    tau_available: int
    calibration_available: int
    review_submitted: int
    tau_submitted: int
    calibration_submitted: int
    review_current: ReviewAssignment | None
    tau_current: TauAssignment | None


def queue_summary(*, user: AnyUser) -> QueueSummary:
    """What is left for this annotator (open items with a free slot they were never assigned) and what
    they have done."""
    now = timezone.now()
    if not can_annotate(user):
        return QueueSummary(0, 0, 0, 0, 0, 0, None, None)
    live = Q(assignments__status=AssignmentStatus.SUBMITTED) | Q(
        assignments__status=AssignmentStatus.CLAIMED, assignments__lease_expires_at__gt=now
    )

    def available(model: type[ReviewItem] | type[TauItem]) -> int:
        open_items = model.objects.filter(state=ItemState.OPEN).exclude(assignments__annotator_id=user.pk)
        return open_items.annotate(live=Count("assignments", filter=live)).filter(live__lt=F("overlap")).count()

    mine_review = my_review_assignments(user=user)
    mine_tau = my_tau_assignments(user=user)
    return QueueSummary(
        review_available=available(ReviewItem),
        tau_available=available(TauItem),
        calibration_available=CalibrationItem.objects.exclude(labels__annotator_id=user.pk).count(),
        review_submitted=mine_review.filter(status=AssignmentStatus.SUBMITTED).count(),
        tau_submitted=mine_tau.filter(status=AssignmentStatus.SUBMITTED).count(),
        calibration_submitted=CalibrationLabel.objects.filter(annotator_id=user.pk).count(),
        review_current=mine_review.filter(status=AssignmentStatus.CLAIMED, lease_expires_at__gt=now).first(),
        tau_current=mine_tau.filter(status=AssignmentStatus.CLAIMED, lease_expires_at__gt=now).first(),
    )


def highlight_divergent(text: str, alterations: list[Alteration]) -> SafeString:
    """The context, HTML-escaped, with every occurrence of an alteration's divergent fact wrapped in
    ``<mark class="divergent">`` (longest fact first where two overlap)."""
    return highlight(text, (a.divergent for a in alterations), "divergent")


# -- consensus (blind) -------------------------------------------------------------------------------


def review_items_visible_to(user: AnyUser) -> QuerySet[ReviewItem]:
    """Reviewers: the items of the datasets they see; annotators: the items they were assigned."""
    items = ReviewItem.objects.select_related("question__dataset")
    if is_admin(user):
        return items.all()
    scope = Q(assignments__annotator_id=user.pk, assignments__status=AssignmentStatus.SUBMITTED)
    if is_reviewer(user):
        scope |= Q(question__dataset__in=datasets_visible_to(user))
    return items.filter(scope).distinct() if user.is_authenticated else items.none()


@dataclass(frozen=True)
class ConsensusView:
    item: ReviewItem
    reviews: list[Review]
    decisions: list[Consensus]

    @property
    def latest(self) -> Consensus | None:
        return self.decisions[0] if self.decisions else None


def consensus_get(*, user: AnyUser, item_pk: int) -> ConsensusView | None:
    """Both reviews and every decision of an item, for its annotators and its reviewers, once both
    reviews are in. None when the user may not know of the item; ``NotOpenYet`` while it is blind."""
    item = ReviewItem.objects.select_related("question__context", "question__dataset").filter(pk=item_pk).first()
    if item is None or not user.is_authenticated:
        return None
    involved = item.assignments.filter(annotator_id=user.pk).exclude(status=AssignmentStatus.EXPIRED).exists()
    reviewer = is_reviewer(user) and datasets_visible_to(user).filter(pk=item.question.dataset_id).exists()
    if not involved and not reviewer:
        return None
    if item.state == ItemState.OPEN:
        raise NotOpenYet("the other review stays hidden until both reviews are submitted")
    reviews = list(
        Review.objects.filter(assignment__item=item, assignment__status=AssignmentStatus.SUBMITTED)
        .select_related("assignment__annotator")
        .order_by("submitted_at", "pk")
    )
    decisions = list(Consensus.objects.filter(question=item.question).select_related("decided_by"))
    return ConsensusView(item=item, reviews=reviews, decisions=decisions)


def consensus_list(*, user: AnyUser) -> QuerySet[ReviewItem]:
    """Items past their reviews that the user may open: waiting for a decision first."""
    return review_items_visible_to(user).exclude(state=ItemState.OPEN).order_by("state", "pk")


# -- TAU labels (blind) ------------------------------------------------------------------------------


def tau_items_complete_visible_to(user: AnyUser) -> QuerySet[TauItem]:
    """Complete TAU items for reviewers: admins all; researchers those of the runs they see, as the run pages
    do (``runs_visible_to``: their datasets' runs and the runs they launched)."""
    items = TauItem.objects.filter(state=ItemState.COMPLETE).select_related("graph_score")
    if is_admin(user):
        return items
    if is_reviewer(user):
        return items.filter(generation__run__in=runs_visible_to(user).values("pk"))
    return items.none()


def calibration_run_get(*, user: AnyUser, pk: int) -> Run | None:
    """A run whose calibration report the user may read: a reviewer who sees the run on its own page."""
    if not is_reviewer(user):
        return None
    return run_get(user=user, pk=pk)


def tau_labels_of(item: TauItem) -> list[TauLabel]:
    """The labels of a complete item (callers have checked it is complete and visible)."""
    if item.state == ItemState.OPEN:
        raise NotOpenYet("TAU labels stay hidden until all three are submitted")
    return list(TauLabel.objects.filter(assignment__item=item).select_related("assignment__annotator").order_by("pk"))


def calibration_next(*, user: AnyUser) -> CalibrationItem | None:
    """The first queued generation this annotator has not labelled."""
    if not can_annotate(user):
        return None
    return (
        CalibrationItem.objects.exclude(labels__annotator_id=user.pk)
        .select_related("generation__question__context", "generation__model")
        .order_by("pk")
        .first()
    )


def calibration_item_get(*, user: AnyUser, pk: int) -> CalibrationItem | None:
    if not can_annotate(user):
        return None
    return CalibrationItem.objects.select_related("generation__question__context").filter(pk=pk).first()


# -- the audit trail (blind) -------------------------------------------------------------------------


def audit_events_visible_to(user: AnyUser) -> QuerySet[AuditEvent]:
    """The audit events a reviewer may read, with the visibility of the objects they describe.

    Admins: every event; researchers: the events of the datasets they see; others: none. From either, the
    events that would break blind review are taken out, whatever the reader's role: another annotator's
    review of an item still open (its verdict and ground truth; the consensus page refuses it too), another
    annotator's TAU label of an item not yet complete, and another annotator's calibration label of a
    generation the reader may still label themselves. Only the annotation layer knows what is blind, hence
    this selector lives here, not beside the trail."""
    events = AuditEvent.objects.select_related("actor")
    if is_admin(user):
        scoped = events.all()
    elif is_reviewer(user):
        scoped = events.filter(dataset_id__in=datasets_visible_to(user).values("pk"))
    else:
        return events.none()
    hidden_reviews = (
        Review.objects.filter(assignment__item__state=ItemState.OPEN)
        .exclude(assignment__annotator_id=user.pk)
        .values("pk")
    )
    hidden_tau_labels = (
        TauLabel.objects.filter(assignment__item__state=ItemState.OPEN)
        .exclude(assignment__annotator_id=user.pk)
        .values("pk")
    )
    blind = Q(object_type=Review._meta.label_lower, object_id__in=hidden_reviews) | Q(
        object_type=TauLabel._meta.label_lower, object_id__in=hidden_tau_labels
    )
    if can_annotate(user):
        still_to_label = CalibrationItem.objects.exclude(labels__annotator_id=user.pk).values("pk")
        hidden_calibration = CalibrationLabel.objects.filter(item__in=still_to_label).values("pk")
        blind |= Q(object_type=CalibrationLabel._meta.label_lower, object_id__in=hidden_calibration)
    return scoped.exclude(blind)
