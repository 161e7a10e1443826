"""Finding 3: blind review leaked through /annotation/audit/. A researcher who is also an annotator read the other
annotator's verdict and ground truth there before submitting theirs, and researchers saw what the consensus page
refuses them. The audit log now applies the visibility of the objects its events describe."""

import json

import pytest
from django.test import Client

from annotation.models import CalibrationItem
from annotation.services import calibration_label_submit, review_submit, tau_item_create, tau_label_submit
from evalplatform.roles import user_add_role
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from tests.annotation.conftest import claim_review, claim_tau, make_world

pytestmark = pytest.mark.django_db

SECRET_VERDICT = "Finished in 1901, says Anna"


@pytest.fixture
def ann():
    return make_world(n_questions=1)


def _audit(user) -> str:
    client = Client()
    client.force_login(user)
    response = client.get("/annotation/audit/")
    assert response.status_code == 200
    return response.content.decode()


def _consensus_status(user, item_pk: int) -> int:
    client = Client()
    client.force_login(user)
    return client.get(f"/annotation/consensus/{item_pk}/").status_code


def _anna_reviews(ann) -> int:
    assignment = claim_review(ann.annotator)
    review_submit(
        assignment=assignment,
        actor=ann.annotator,
        context_coherent=True,
        question_valid=True,
        ground_truth=SECRET_VERDICT,
    )
    return assignment.item_id


def test_a_researcher_annotator_cannot_read_the_other_verdict_before_submitting(ann) -> None:
    user_add_role(user=ann.researcher, role="annotator")
    item = _anna_reviews(ann)
    mine = claim_review(ann.researcher)
    assert mine.item_id == item  # the second slot of the same question
    assert _consensus_status(ann.researcher, item) == 403
    assert SECRET_VERDICT not in _audit(ann.researcher)
    review_submit(
        assignment=mine, actor=ann.researcher, context_coherent=True, question_valid=True, ground_truth="In 1901."
    )
    assert _consensus_status(ann.researcher, item) == 200
    assert SECRET_VERDICT in _audit(ann.researcher)  # both in: the item is open to its reviewers


@pytest.mark.parametrize("reader", ["researcher", "admin"])
def test_reviewers_do_not_see_there_what_the_consensus_page_refuses(ann, reader: str) -> None:
    item = _anna_reviews(ann)
    user = getattr(ann, reader)
    assert _consensus_status(user, item) == 403
    page = _audit(user)
    assert SECRET_VERDICT not in page
    assert "review.submit" not in page


def test_an_annotator_who_reviews_sees_their_own_events(ann) -> None:
    user_add_role(user=ann.researcher, role="annotator")
    assignment = claim_review(ann.researcher)
    review_submit(
        assignment=assignment, actor=ann.researcher, context_coherent=True, question_valid=True, ground_truth="Mine."
    )
    assert "Mine." in _audit(ann.researcher)


def test_tau_labels_stay_hidden_until_the_item_is_complete(ann) -> None:
    user_add_role(user=ann.admin, role="annotator")
    tau_item_create(gold=[["tower", "in", "lyon"]], answer=[["tower", "in", "paris"]])
    anna = claim_tau(ann.annotator)
    tau_label_submit(
        assignment=anna,
        actor=ann.annotator,
        aligned=[],
        answer_errors={"0": "entity_wrong"},
        gold_errors={"0": "missing"},
    )
    assert "entity_wrong" not in _audit(ann.admin)
    admin = claim_tau(ann.admin)
    tau_label_submit(assignment=admin, actor=ann.admin, aligned=[[0, 0]], answer_errors={}, gold_errors={})
    assert "entity_wrong" not in _audit(ann.admin)  # two of three
    third = claim_tau(ann.third)
    tau_label_submit(assignment=third, actor=ann.third, aligned=[[0, 0]], answer_errors={}, gold_errors={})
    assert "entity_wrong" in _audit(ann.admin)


def test_calibration_labels_stay_hidden_from_a_reader_who_may_still_label(ann) -> None:
    user_add_role(user=ann.researcher, role="annotator")
    endpoint = ModelEndpoint.objects.create(name="cand-model", provider="openai", model_id="gpt-x")
    run = Run.objects.create(kind=Run.Kind.CDKE, dataset=ann.dataset)
    generation = Generation.objects.create(
        run=run, question=ann.questions[0], model=endpoint, temperature=0.2, condition="divergent", status="done"
    )
    item = CalibrationItem.objects.create(generation=generation, seed=1)
    calibration_label_submit(item=item, annotator=ann.annotator, lav=0, acc=0.25, cm=0.75, error_type="verbose")
    assert "verbose" not in _audit(ann.researcher)
    calibration_label_submit(item=item, annotator=ann.researcher, lav=1, acc=1, cm=1)
    assert "verbose" in _audit(ann.researcher)


def test_the_selector_is_the_annotation_layers(ann) -> None:
    from annotation.selectors import audit_events_visible_to
    from evalplatform.corpus import selectors as corpus_selectors

    assert not hasattr(corpus_selectors, "audit_events_visible_to")
    _anna_reviews(ann)
    assert not audit_events_visible_to(ann.researcher).filter(action="review.submit").exists()
    assert audit_events_visible_to(ann.annotator).count() == 0  # annotators read no audit log
    assert json.dumps(list(audit_events_visible_to(ann.outsider).values_list("payload", flat=True))) == "[]"
