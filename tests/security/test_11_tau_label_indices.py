"""Finding 11: TAU labels accepted out-of-range and negative triplet indices (in the error maps; ``int()`` also read
floats and bools as indices). Every index must now name a triplet of the item, and is refused otherwise."""

import json

import pytest
from django.test import Client

from annotation.models import TauLabel
from annotation.services import AnnotationError, tau_item_create, tau_label_submit
from tests.annotation.conftest import claim_tau, make_world

pytestmark = pytest.mark.django_db

GOLD = [["tower", "in", "lyon"], ["tower", "built in", "1901"]]
ANSWER = [["tower", "in", "paris"]]


@pytest.fixture
def labelling():
    ann = make_world(n_questions=1)
    tau_item_create(gold=GOLD, answer=ANSWER)
    return ann, claim_tau(ann.annotator)


def _submit(labelling, aligned, answer_errors, gold_errors) -> TauLabel:
    ann, assignment = labelling
    return tau_label_submit(
        assignment=assignment,
        actor=ann.annotator,
        aligned=aligned,
        answer_errors=answer_errors,
        gold_errors=gold_errors,
    )


@pytest.mark.parametrize(
    ("aligned", "answer_errors", "gold_errors", "refusal"),
    [
        ([], {"0": "extra", "5": "extra"}, {"0": "missing", "1": "missing"}, "answer triplet 5 is out of range"),
        ([], {"0": "extra", "-1": "extra"}, {"0": "missing", "1": "missing"}, "'-1' is not a triplet index"),
        ([], {"0": "extra"}, {"0": "missing", "1": "missing", "2": "missing"}, "gold triplet 2 is out of range"),
        ([[0, 0]], {}, {"1": "missing", "-2": "missing"}, "'-2' is not a triplet index"),
        ([[0, -1]], {}, {"0": "missing", "1": "missing"}, "gold triplet -1 is out of range"),
        ([[0, 7]], {}, {"0": "missing", "1": "missing"}, "gold triplet 7 is out of range"),
        ([[True, 0]], {}, {"1": "missing"}, "'True' is not a triplet index"),
        ([[0.9, 0]], {}, {"1": "missing"}, "'0.9' is not a triplet index"),
        ([], {"0": "extra"}, {"0": "missing", "01": "missing", "1": "missing"}, "given two error types"),
        ([[0, 0]], {}, ["missing"], "gold_errors maps a triplet index"),
        ("0,0", {}, {}, "aligned is a list"),
    ],
)
def test_bad_indices_are_refused_and_nothing_is_stored(labelling, aligned, answer_errors, gold_errors, refusal) -> None:
    with pytest.raises(AnnotationError, match=refusal):
        _submit(labelling, aligned, answer_errors, gold_errors)
    assert not TauLabel.objects.exists()


def test_a_valid_label_is_stored_with_normalised_keys(labelling) -> None:
    label = _submit(labelling, [[0, 1]], {}, {"0": "entity_wrong"})
    assert (label.aligned, label.answer_errors, label.gold_errors) == ([[0, 1]], {}, {"0": "entity_wrong"})


def test_the_api_answers_400_for_an_out_of_range_index(labelling) -> None:
    ann, assignment = labelling
    client = Client()
    client.force_login(ann.annotator)
    body = {
        "aligned": [],
        "answer_errors": {"0": "extra", "3": "extra"},
        "gold_errors": {"0": "missing", "1": "missing"},
    }
    response = client.post(f"/api/annotation/tau/{assignment.pk}/submit/", json.dumps(body), "application/json")
    assert response.status_code == 400 and "out of range" in response.json()["detail"]
    assert not TauLabel.objects.exists()
