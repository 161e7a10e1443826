"""The work queue: "next item" claims a slot on an open item under a row lock, with an expiring lease.

An item of overlap k accepts at most k live assignments (submitted, or claimed with a lease still
running). A claim locks candidate items with ``SELECT ... FOR UPDATE SKIP LOCKED`` in primary-key order,
so concurrent annotators never wait on each other and never both take the last slot of an item; a
submission locks the same item row, so it cannot interleave with a claim that reclaims its slot.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotation.models import (
    AssignmentStatus,
    ItemState,
    ReviewAssignment,
    ReviewItem,
    TauAssignment,
    TauItem,
)

# 30 minutes: how long a claimed item stays reserved for its annotator (our choice: a CDK-E review of a
# context and a question takes a few minutes; after 30 an abandoned claim is given to someone else).
LEASE = timedelta(minutes=30)
# Candidate items locked per round of a claim: small, so a claim holds few rows.
_BATCH = 16

ItemT = TypeVar("ItemT", ReviewItem, TauItem)
AssignmentT = TypeVar("AssignmentT", ReviewAssignment, TauAssignment)


class AnnotationError(Exception):
    """A rule of the annotation workflow refused the request; the message says which."""


def _claim(item_model: type[ItemT], assignment_model: type[AssignmentT], annotator: User) -> AssignmentT | None:
    now = timezone.now()
    with transaction.atomic():
        mine = (
            assignment_model.objects.select_related("item")
            .filter(annotator=annotator, status=AssignmentStatus.CLAIMED, lease_expires_at__gt=now)
            .order_by("pk")
            .first()
        )
        if mine is not None:
            return mine
        last_pk = 0
        while True:
            batch = list(
                item_model.objects.filter(state=ItemState.OPEN, pk__gt=last_pk)
                .exclude(assignments__annotator=annotator)
                .order_by("pk")
                .select_for_update(skip_locked=True)[:_BATCH]
            )
            if not batch:
                return None
            for item in batch:
                taken = _take_slot(item, assignment_model, annotator, now)
                if taken is not None:
                    return taken
            last_pk = batch[-1].pk


def _take_slot(item: Any, assignment_model: type[AssignmentT], annotator: User, now: datetime) -> AssignmentT | None:
    """With the item row locked: a new assignment if a slot is free, reclaiming the oldest expired lease
    when every slot is held."""
    rows = assignment_model.objects.filter(item_id=item.pk)
    live = rows.filter(
        Q(status=AssignmentStatus.SUBMITTED) | Q(status=AssignmentStatus.CLAIMED, lease_expires_at__gt=now)
    ).count()
    if live >= item.overlap:
        return None
    stale = rows.filter(status=AssignmentStatus.CLAIMED, lease_expires_at__lte=now).order_by("lease_expires_at", "pk")
    held = live + stale.count()
    if held >= item.overlap:
        oldest = stale.first()
        assert oldest is not None
        assignment_model.objects.filter(pk=oldest.pk, status=AssignmentStatus.CLAIMED).update(
            status=AssignmentStatus.EXPIRED
        )
    return assignment_model.objects.create(item=item, annotator=annotator, lease_expires_at=timezone.now() + LEASE)


def review_next(*, annotator: User) -> ReviewAssignment | None:
    """The annotator's current review if its lease runs, else a slot on the first open question they have
    never been assigned; None when there is nothing for them."""
    return _claim(ReviewItem, ReviewAssignment, annotator)


def tau_next(*, annotator: User) -> TauAssignment | None:
    """Like ``review_next``, for TAU alignment items (overlap 3)."""
    return _claim(TauItem, TauAssignment, annotator)


def assignment_mark_submitted(assignment: ReviewAssignment | TauAssignment, *, actor: User) -> None:
    """The claimed -> submitted transition, with the item row already locked by the caller.

    A lease that ran out can still be submitted as long as nobody reclaimed its slot."""
    if assignment.annotator_id != actor.pk:
        raise AnnotationError("only the annotator of an assignment can submit it")
    model = type(assignment)
    updated = model.objects.filter(pk=assignment.pk, status=AssignmentStatus.CLAIMED).update(
        status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now()
    )
    if updated != 1:
        raise AnnotationError(
            "this assignment is no longer open: it was submitted, or its lease expired and was reclaimed"
        )
    assignment.refresh_from_db()


def submitted_count(item: ReviewItem | TauItem) -> int:
    return item.assignments.filter(status=AssignmentStatus.SUBMITTED).count()
