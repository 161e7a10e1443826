"""Who may do what in the annotation app: role checks for pages and the API, and object-level checks.

- annotators claim, review and label (their own assignments only);
- reviewers (researchers and admins) see consensus and the audit log of the datasets they can see
  (evalplatform.corpus.selectors.datasets_visible_to), agreement and calibration reports of the runs they see
  (evalplatform.runs.selectors.runs_visible_to);
- a consensus decision is taken by one of the item's two annotators, once both submitted, or a reviewer; a
  decided one is final until a reviewer reopens it.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from annotation.models import AssignmentStatus, ReviewItem
from evalplatform.corpus.selectors import datasets_visible_to
from evalplatform.roles import AnyUser, is_annotator, is_researcher


def is_reviewer(user: AnyUser) -> bool:
    """Researchers and admins review consensus and read reports."""
    return is_researcher(user)


def can_annotate(user: AnyUser) -> bool:
    return is_annotator(user)


def can_use_annotation(user: AnyUser) -> bool:
    return is_annotator(user) or is_reviewer(user)


def reviewer_sees_item(user: AnyUser, item: ReviewItem) -> bool:
    return is_reviewer(user) and datasets_visible_to(user).filter(pk=item.question.dataset_id).exists()


def submitted_on(user: AnyUser, item: ReviewItem) -> bool:
    return bool(
        user.is_authenticated
        and item.assignments.filter(annotator_id=user.pk, status=AssignmentStatus.SUBMITTED).exists()
    )


def can_decide_consensus(user: AnyUser, item: ReviewItem) -> bool:
    return submitted_on(user, item) or reviewer_sees_item(user, item)


class IsAnnotator(BasePermission):
    message = "only annotators can claim and submit annotation work"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return can_annotate(request.user)


class IsReviewer(BasePermission):
    message = "only researchers and admins can read this"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return is_reviewer(request.user)


class UsesAnnotation(BasePermission):
    message = "only annotators, researchers and admins use the annotation API"

    def has_permission(self, request: Request, view: APIView) -> bool:
        return can_use_annotation(request.user)
