"""Finding 4: either annotator could re-decide an item after a researcher's or the automatic decision, replacing
the ground truth. A decided item is now final, except for a researcher's explicit reopen, which is audited."""

import json

import pytest
from django.test import Client

from annotation.models import Consensus, ItemState, ReviewItem
from annotation.services import consensus_decide, review_submit
from evalplatform.audit.models import AuditEvent
from evalplatform.corpus.models import Question
from tests.annotation.conftest import claim_review, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann():
    return make_world(n_questions=1)


def _review(user, accept: bool, ground_truth: str) -> int:
    assignment = claim_review(user)
    review_submit(
        assignment=assignment, actor=user, context_coherent=accept, question_valid=accept, ground_truth=ground_truth
    )
    return assignment.item_id


def _api(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _post(user, path: str, body: dict) -> int:
    return _api(user).post(path, data=json.dumps(body), content_type="application/json").status_code


@pytest.fixture
def decided_by_researcher(ann) -> int:
    _review(ann.annotator, True, "In 1901.")
    item = _review(ann.other, False, "")
    consensus_decide(
        item=ReviewItem.objects.get(pk=item), actor=ann.researcher, decision="validated", ground_truth="In 1901."
    )
    return item


def test_an_annotator_cannot_redecide_after_the_researcher(ann, decided_by_researcher) -> None:
    item = decided_by_researcher
    overwrite = {"decision": "rejected", "ground_truth": ""}
    assert _post(ann.other, f"/api/annotation/consensus/{item}/decide/", overwrite) == 403
    page = _api(ann.other).post(f"/annotation/consensus/{item}/", overwrite)
    assert page.status_code == 400 and b"decided" in page.content
    question = Question.objects.get(review_item=item)
    assert (question.status, question.ground_truth) == ("validated", "In 1901.")
    assert Consensus.objects.filter(question=question).count() == 1


def test_an_annotator_cannot_redecide_after_the_automatic_decision(ann) -> None:
    _review(ann.annotator, True, "It was finished in 1901 in Lyon.")
    item = _review(ann.other, True, "It was finished in 1901 in Lyon.")
    assert ReviewItem.objects.get(pk=item).state == ItemState.DECIDED  # auto-agree
    body = {"decision": "validated", "ground_truth": "Something else entirely."}
    assert _post(ann.annotator, f"/api/annotation/consensus/{item}/decide/", body) == 403
    assert Question.objects.get(review_item=item).ground_truth == "It was finished in 1901 in Lyon."


def test_only_a_researcher_of_the_project_reopens_with_a_reason_and_it_is_audited(ann, decided_by_researcher) -> None:
    item = decided_by_researcher
    path = f"/api/annotation/consensus/{item}/reopen/"
    assert _post(ann.annotator, path, {"reason": "I changed my mind"}) == 403
    assert _post(ann.outsider, path, {"reason": "x"}) == 404
    assert _post(ann.researcher, path, {}) == 400
    assert _post(ann.researcher, path, {"reason": "   "}) == 400
    assert not AuditEvent.objects.filter(action="consensus.reopen").exists()
    response = _api(ann.researcher).post(
        path, data=json.dumps({"reason": "typo in the answer"}), content_type="application/json"
    )
    assert response.status_code == 200 and response.json() == {"item": item, "state": "needs_decision"}
    event = AuditEvent.objects.get(action="consensus.reopen")
    assert event.actor == ann.researcher and event.payload["reason"] == "typo in the answer"
    assert event.payload["reopened_version"] == 1
    # Reopened: one of the item's annotators may decide again (a new version), then it is final again.
    body = {"decision": "validated", "ground_truth": "In 1901, in Lyon."}
    assert _post(ann.other, f"/api/annotation/consensus/{item}/decide/", body) == 201
    assert Question.objects.get(review_item=item).ground_truth == "In 1901, in Lyon."
    assert _post(ann.annotator, f"/api/annotation/consensus/{item}/decide/", body) == 403
    assert _post(ann.researcher, path, {"reason": "again"}) == 200  # reopening twice works the same way


def test_the_page_offers_the_reopen_form_to_the_researcher_only(ann, decided_by_researcher) -> None:
    item = decided_by_researcher
    assert b'name="action" value="reopen"' in _api(ann.researcher).get(f"/annotation/consensus/{item}/").content
    annotator_page = _api(ann.annotator).get(f"/annotation/consensus/{item}/").content
    assert b"Record decision" not in annotator_page and b'value="reopen"' not in annotator_page
    assert b'name="adopt"' not in annotator_page  # nor a button that adopts a ground truth
    reopened = _api(ann.researcher).post(f"/annotation/consensus/{item}/", {"action": "reopen", "reason": "recheck"})
    assert reopened.status_code == 302
    assert ReviewItem.objects.get(pk=item).state == ItemState.NEEDS_DECISION
    assert (
        _api(ann.annotator).post(f"/annotation/consensus/{item}/", {"action": "reopen", "reason": "x"}).status_code
        == 400
    )


def test_an_item_waiting_for_a_decision_cannot_be_reopened(ann) -> None:
    _review(ann.annotator, True, "In 1901.")
    item = _review(ann.other, False, "")
    assert _post(ann.researcher, f"/api/annotation/consensus/{item}/reopen/", {"reason": "x"}) == 403
