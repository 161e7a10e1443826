"""The review queue, leases, the automatic consensus rule and manual decisions."""

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.consensus_rule import AGREE_COSINE, ground_truths_agree, key_facts
from annotation.models import AssignmentStatus, Consensus, ItemState, ReviewAssignment, ReviewItem
from annotation.selectors import highlight_divergent
from annotation.services import (
    AnnotationError,
    annotation_queue_questions,
    consensus_decide,
    consensus_reopen,
    review_next,
    review_submit,
)
from evalplatform.audit.models import AuditEvent
from evalplatform.corpus.models import Question
from tests.annotation.conftest import claim_review


def _submit(user, accept: bool, ground_truth: str):
    assignment = claim_review(user)
    assert assignment is not None
    return review_submit(
        assignment=assignment,
        actor=user,
        context_coherent=accept,
        question_valid=accept,
        ground_truth=ground_truth,
    )


def test_queue_puts_draft_questions_in_review_once(world) -> None:
    assert ReviewItem.objects.count() == 3
    assert set(Question.objects.values_list("status", flat=True)) == {"in_review"}
    assert annotation_queue_questions(questions=world.questions) == 0
    assert ReviewItem.objects.get(question=world.questions[0]).draft_ground_truth == "Draft answer 0"


def test_queue_overlap_two_and_never_the_same_item_twice(world) -> None:
    first = claim_review(world.annotator)
    assert review_next(annotator=world.annotator) == first  # resuming, not hoarding
    review_submit(
        assignment=first, actor=world.annotator, context_coherent=False, question_valid=False, ground_truth=""
    )
    second = claim_review(world.annotator)
    assert second.item_id != first.item_id
    b = claim_review(world.other)
    assert b.item_id == first.item_id  # the first item still had a free slot
    c = claim_review(world.third)
    assert c.item_id == second.item_id  # first item: both slots held
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewAssignment.objects.create(item=first.item, annotator=world.annotator, lease_expires_at=timezone.now())


def test_queue_expired_lease_is_reclaimed_and_its_late_submission_refused(world) -> None:
    annotation_queue_questions(questions=[])
    ReviewItem.objects.exclude(pk=ReviewItem.objects.earliest("pk").pk).delete()
    stale = claim_review(world.annotator)
    ReviewAssignment.objects.filter(pk=stale.pk).update(lease_expires_at=timezone.now() - timedelta(minutes=1))
    b = claim_review(world.other)  # a free slot: nobody loses theirs
    assert b.item_id == stale.item_id
    stale.refresh_from_db()
    assert stale.status == AssignmentStatus.CLAIMED
    c = claim_review(world.third)  # every slot held: the expired lease is reclaimed
    assert c.item_id == stale.item_id
    stale.refresh_from_db()
    assert stale.status == AssignmentStatus.EXPIRED
    with pytest.raises(AnnotationError, match="no longer open"):
        review_submit(
            assignment=stale,
            actor=world.annotator,
            context_coherent=True,
            question_valid=True,
            ground_truth="x",
        )


def test_consensus_auto_validates_agreeing_ground_truths(world) -> None:
    _submit(world.annotator, True, "Marie Curie won the prize in 1911.")
    _submit(world.other, True, "In 1911 Marie Curie won the prize.")
    item = ReviewItem.objects.get(assignments__annotator=world.other)
    question = Question.objects.get(pk=item.question_id)
    assert item.state == ItemState.DECIDED
    assert question.status == "validated"
    assert question.ground_truth == "Marie Curie won the prize in 1911."
    assert question.metadata["draft_ground_truth"].startswith("Draft answer")
    decision = Consensus.objects.get(question=question)
    assert (decision.version, decision.decided_by, decision.rule) == (1, None, "auto-agree")
    assert decision.details["agreement"]["cosine"] >= AGREE_COSINE
    actions = list(AuditEvent.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["review.submit", "review.submit", "consensus.decide"]


def test_consensus_disagreement_waits_for_a_versioned_manual_decision(world) -> None:
    # Same facts, opposite meaning: MiniLM cosine 0.863, below the 0.90 threshold.
    _submit(world.annotator, True, "The bridge was built by Gustave Eiffel in 1889.")
    _submit(world.other, True, "Gustave Eiffel demolished the bridge in 1889.")
    item = ReviewItem.objects.get(assignments__annotator=world.other)
    assert item.state == ItemState.NEEDS_DECISION
    assert item.question.status == "in_review"
    with pytest.raises(AnnotationError):
        consensus_decide(item=item, actor=world.third, decision="validated", ground_truth="x")
    with pytest.raises(AnnotationError):
        consensus_decide(item=item, actor=world.outsider, decision="validated", ground_truth="x")
    first = consensus_decide(item=item, actor=world.other, decision="validated", ground_truth="Built in 1889.")
    with pytest.raises(AnnotationError, match="decided"):  # final until a researcher reopens it
        consensus_decide(item=item, actor=world.researcher, decision="rejected")
    consensus_reopen(item=item, actor=world.researcher, reason="the second review was right")
    second = consensus_decide(item=item, actor=world.researcher, decision="rejected")
    assert (first.version, second.version) == (1, 2)
    question = Question.objects.get(pk=item.question_id)
    assert question.status == "rejected"
    assert question.ground_truth == "Built in 1889."
    assert Consensus.objects.filter(question=question).first() == second  # latest first
    assert AuditEvent.objects.filter(action="consensus.decide").count() == 2


def test_consensus_both_reject_rejects_without_the_encoder(world) -> None:
    _submit(world.annotator, False, "")
    _submit(world.other, False, "")
    item = ReviewItem.objects.get(assignments__annotator=world.other)
    assert item.question.status == "rejected"
    assert Consensus.objects.get(question=item.question).rule == "auto-both-reject"


def test_consensus_one_accepts_one_rejects_needs_a_decision(world) -> None:
    _submit(world.annotator, True, "In 1901.")
    _submit(world.other, False, "")
    assert ReviewItem.objects.get(assignments__annotator=world.other).state == ItemState.NEEDS_DECISION


def test_review_valid_question_needs_a_ground_truth(world) -> None:
    assignment = claim_review(world.annotator)
    with pytest.raises(AnnotationError):
        review_submit(
            assignment=assignment,
            actor=world.annotator,
            context_coherent=True,
            question_valid=True,
            ground_truth="  ",
        )
    with pytest.raises(AnnotationError):
        review_submit(
            assignment=assignment,
            actor=world.other,
            context_coherent=False,
            question_valid=False,
            ground_truth="",
        )


def test_key_facts_compare_numbers_and_names() -> None:
    assert key_facts("The Tower opened in Lyon on 12 May 1,901.") == (
        frozenset({"12", "1901"}),
        frozenset({"tower", "lyon", "may"}),
    )
    assert not ground_truths_agree("It opened in 1901.", "It opened in 1889.").agree
    assert ground_truths_agree("It opened in 1901", "it opened in 1901.").cosine == 1.0  # equal plain texts
    assert ground_truths_agree("In Lyon.", "in lyon").agree is False  # names are capitalised words


def test_highlight_wraps_divergent_facts_and_escapes_the_rest(world) -> None:
    html = highlight_divergent(world.context.text, list(world.context.alterations.all()))
    assert '<mark class="divergent">1901</mark>' in html
    assert '<mark class="divergent">Lyon</mark>' in html
    assert "&lt;Gustave&gt; &amp; Co." in html
    assert "<Gustave>" not in html
