"""Two-annotator review of CDK-E questions and their consensus.

Lifecycle of a question: draft -> in_review (queued) -> validated or rejected (a consensus decision).
After both reviews are in, the automatic rule (docs/annotation.md) decides when both accept with agreeing
ground truths (validated) or both reject (rejected); anything else waits for a decision by one of the two
annotators or a reviewer, recorded as a new Consensus version. A decided item is final: only a reviewer of its
project (a researcher, an admin) can reopen it, with a reason that the audit trail keeps, and then the next
decision is again a new version."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from annotation.consensus_rule import ground_truths_agree
from annotation.models import (
    REVIEW_OVERLAP,
    AssignmentStatus,
    Consensus,
    ItemState,
    Review,
    ReviewAssignment,
    ReviewItem,
)
from annotation.permissions import can_decide_consensus, reviewer_sees_item
from annotation.services.queue import AnnotationError, assignment_mark_submitted, submitted_count
from evalplatform.audit.services import audit_record
from evalplatform.corpus.models import Question


def annotation_queue_questions(*, questions: Iterable[Question], overlap: int = REVIEW_OVERLAP) -> int:
    """Put draft questions in review (status in_review, one ReviewItem each, the draft ground truth kept);
    questions already queued or no longer draft are left alone. Returns how many were queued."""
    if overlap < 1:
        raise ValueError("overlap must be at least 1")
    queued = 0
    with transaction.atomic():
        for question in questions:
            moved = Question.objects.filter(pk=question.pk, status=Question.Status.DRAFT).update(
                status=Question.Status.IN_REVIEW
            )
            if moved != 1 or ReviewItem.objects.filter(question_id=question.pk).exists():
                continue
            ReviewItem.objects.create(question=question, overlap=overlap, draft_ground_truth=question.ground_truth)
            question.status = Question.Status.IN_REVIEW
            queued += 1
    return queued


def review_submit(
    *,
    assignment: ReviewAssignment,
    actor: User,
    context_coherent: bool,
    question_valid: bool,
    ground_truth: str,
    comment: str = "",
) -> Review:
    """Record one annotator's verdict on their own claimed assignment, with an audit event; the last
    review of an item triggers the automatic consensus in the same transaction.

    A question marked valid needs a ground truth."""
    ground_truth = ground_truth.strip()
    if context_coherent and question_valid and not ground_truth:
        raise AnnotationError("write the ground-truth answer of a valid question")
    with transaction.atomic():
        item = ReviewItem.objects.select_for_update().select_related("question").get(pk=assignment.item_id)
        assignment_mark_submitted(assignment, actor=actor)
        review = Review.objects.create(
            assignment=assignment,
            context_coherent=context_coherent,
            question_valid=question_valid,
            ground_truth=ground_truth,
            comment=comment.strip(),
        )
        audit_record(
            actor=actor,
            action="review.submit",
            obj=review,
            payload={
                "item": item.pk,
                "question": item.question_id,
                "context_coherent": context_coherent,
                "question_valid": question_valid,
                "ground_truth": ground_truth,
            },
            dataset=item.question.dataset,
        )
        if submitted_count(item) >= item.overlap:
            _consensus_automatic(item)
    return review


def item_reviews(item: ReviewItem) -> list[Review]:
    """The submitted reviews of an item, first submitted first (callers enforce blindness)."""
    return list(
        Review.objects.filter(assignment__item=item, assignment__status=AssignmentStatus.SUBMITTED)
        .select_related("assignment__annotator")
        .order_by("submitted_at", "pk")
    )


def _consensus_automatic(item: ReviewItem) -> None:
    reviews = item_reviews(item)
    first, second = reviews[0], reviews[1]
    if first.accepts and second.accepts:
        agreement = ground_truths_agree(first.ground_truth, second.ground_truth)
        details = {"agreement": agreement.as_dict(), "reviews": [r.pk for r in reviews]}
        if agreement.agree:
            _decide(item, Consensus.Decision.VALIDATED, first.ground_truth, None, "auto-agree", details)
            return
        item.state = ItemState.NEEDS_DECISION
    elif not first.accepts and not second.accepts:
        _decide(
            item,
            Consensus.Decision.REJECTED,
            "",
            None,
            "auto-both-reject",
            {"reviews": [r.pk for r in reviews]},
        )
        return
    else:
        item.state = ItemState.NEEDS_DECISION
    item.save(update_fields=["state"])


def _decide(
    item: ReviewItem,
    decision: str,
    ground_truth: str,
    actor: User | None,
    rule: str,
    details: Mapping[str, Any],
) -> Consensus:
    question = Question.objects.select_for_update().get(pk=item.question_id)
    version = (Consensus.objects.filter(question=question).aggregate(v=Max("version"))["v"] or 0) + 1
    consensus = Consensus.objects.create(
        question=question,
        version=version,
        decision=decision,
        ground_truth=ground_truth,
        previous_ground_truth=question.ground_truth,
        decided_by=actor,
        rule=rule,
        details=dict(details),
    )
    if decision == Consensus.Decision.VALIDATED:
        question.metadata.setdefault("draft_ground_truth", item.draft_ground_truth)
        question.ground_truth = ground_truth
        question.status = Question.Status.VALIDATED
    else:
        question.status = Question.Status.REJECTED
    question.save(update_fields=["metadata", "ground_truth", "status"])
    item.state = ItemState.DECIDED
    item.save(update_fields=["state"])
    audit_record(
        actor=actor,
        action="consensus.decide",
        obj=consensus,
        payload={
            "item": item.pk,
            "question": question.pk,
            "version": version,
            "decision": decision,
            "rule": rule,
            "ground_truth": ground_truth,
        },
        dataset=question.dataset,
    )
    return consensus


def consensus_decide(*, item: ReviewItem, actor: User, decision: str, ground_truth: str = "") -> Consensus:
    """Record the final decision on a question whose two reviews are in and that is not decided yet: by one of
    its two annotators or a reviewer (researcher of its project, admin). Each decision is a new version; the
    latest wins. A decided item is refused until a reviewer reopens it (``consensus_reopen``)."""
    if decision not in Consensus.Decision.values:
        raise AnnotationError(f"decision must be one of {', '.join(Consensus.Decision.values)}")
    ground_truth = ground_truth.strip()
    if decision == Consensus.Decision.VALIDATED and not ground_truth:
        raise AnnotationError("a validated question needs its final ground truth")
    with transaction.atomic():
        locked = ReviewItem.objects.select_for_update().select_related("question__dataset").get(pk=item.pk)
        if locked.state == ItemState.OPEN:
            raise AnnotationError("consensus opens once both reviews are submitted")
        if locked.state == ItemState.DECIDED:
            raise AnnotationError("this question is decided; only a researcher of its project can reopen it")
        if not can_decide_consensus(actor, locked):
            raise AnnotationError("only the item's annotators or a reviewer of its project can decide")
        reviews = [r.pk for r in item_reviews(locked)]
        return _decide(
            locked,
            decision,
            ground_truth if decision == "validated" else "",
            actor,
            "manual",
            {"reviews": reviews},
        )


def consensus_reopen(*, item: ReviewItem, actor: User, reason: str) -> ReviewItem:
    """Reopen a decided item for a new decision: a reviewer of its project (researcher, admin) only, with a
    reason, audited. The question keeps its last decision (status and ground truth) until the next one."""
    reason = reason.strip()
    if not reason:
        raise AnnotationError("say why the decision is reopened")
    with transaction.atomic():
        locked = ReviewItem.objects.select_for_update().select_related("question__dataset").get(pk=item.pk)
        if not reviewer_sees_item(actor, locked):
            raise AnnotationError("only a researcher of the question's project can reopen its decision")
        if locked.state != ItemState.DECIDED:
            raise AnnotationError("only a decided question can be reopened")
        latest = Consensus.objects.filter(question_id=locked.question_id).order_by("-version").first()
        locked.state = ItemState.NEEDS_DECISION
        locked.save(update_fields=["state"])
        audit_record(
            actor=actor,
            action="consensus.reopen",
            obj=locked,
            payload={
                "item": locked.pk,
                "question": locked.question_id,
                "reopened_version": latest.version if latest else None,
                "reason": reason,
            },
            dataset=locked.question.dataset,
        )
    return locked
