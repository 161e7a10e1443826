"""Every role against every page and API route, blind review by page and API, CSRF on forms."""

import json
from dataclasses import dataclass

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from annotation.models import CalibrationItem
from annotation.selectors import NotOpenYet, tau_labels_of
from annotation.services import review_submit, tau_item_create, tau_label_submit, tau_next
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from tests.annotation.conftest import claim_review, claim_tau

ROLES = ("admin", "researcher", "outsider", "annotator", "other", "anonymous")


@dataclass
class Objects:
    ra: int  # the annotator's claimed review assignment (item "open")
    open_item: int
    done_item: int  # both reviews in (annotator and other), disagreeing: waiting for a decision
    ta: int  # the annotator's TAU assignment
    cal: int
    run: int


@pytest.fixture
def objects(world) -> Objects:
    done = claim_review(world.annotator)
    review_submit(
        assignment=done,
        actor=world.annotator,
        context_coherent=True,
        question_valid=True,
        ground_truth="In 1901.",
    )
    other = claim_review(world.other)
    review_submit(assignment=other, actor=world.other, context_coherent=False, question_valid=False, ground_truth="")
    ra = claim_review(world.annotator)
    tau_item_create(gold=[["tower", "in", "lyon"]], answer=[["tower", "in", "paris"]])
    ta = claim_tau(world.annotator)
    endpoint = ModelEndpoint.objects.create(name="cand-model", provider="openai", model_id="gpt-x")
    run = Run.objects.create(kind=Run.Kind.CDKE, dataset=world.dataset)
    gen = Generation.objects.create(
        run=run,
        question=world.questions[0],
        model=endpoint,
        temperature=0.2,
        condition="divergent",
        text="Lyon, 1901.",
        status="done",
    )
    cal = CalibrationItem.objects.create(generation=gen, seed=1)
    return Objects(ra.pk, ra.item_id, done.item_id, ta.pk, cal.pk, run.pk)


def _client(world, role: str) -> Client:
    client = Client()
    if role != "anonymous":
        client.force_login(getattr(world, role))
    return client


def _routes(o: Objects) -> list[tuple[str, str, str, dict, tuple[int, ...]]]:
    """(method, name, url, data, expected status per role in ROLES order)."""
    review_form = {"context_coherent": "yes", "question_valid": "yes", "ground_truth": "Lyon", "comment": ""}
    tau_form = {"label": json.dumps({"aligned": [[0, 0]], "answer_errors": {}, "gold_errors": {}})}
    decide = {"decision": "validated", "ground_truth": "In 1901."}
    r = reverse
    #        admin researcher outsider annotator other anonymous
    return [
        ("get", "dashboard", r("annotation:dashboard"), {}, (200, 200, 200, 200, 200, 302)),
        ("post", "review-next", r("annotation:review-next"), {}, (403, 403, 403, 302, 302, 302)),
        ("get", "review", r("annotation:review", args=[o.ra]), {}, (403, 403, 403, 200, 404, 302)),
        (
            "post",
            "review submit",
            r("annotation:review", args=[o.ra]),
            review_form,
            (403, 403, 403, 302, 404, 302),
        ),
        ("get", "consensus-list", r("annotation:consensus-list"), {}, (200, 200, 200, 200, 200, 302)),
        (
            "get",
            "consensus done",
            r("annotation:consensus", args=[o.done_item]),
            {},
            (200, 200, 404, 200, 200, 302),
        ),
        (
            "get",
            "consensus open",
            r("annotation:consensus", args=[o.open_item]),
            {},
            (403, 403, 404, 403, 404, 302),
        ),
        (
            "post",
            "consensus decide",
            r("annotation:consensus", args=[o.done_item]),
            decide,
            (302, 302, 404, 302, 302, 302),
        ),
        ("post", "tau-next", r("annotation:tau-next"), {}, (403, 403, 403, 302, 302, 302)),
        ("get", "tau", r("annotation:tau", args=[o.ta]), {}, (403, 403, 403, 200, 404, 302)),
        ("post", "tau submit", r("annotation:tau", args=[o.ta]), tau_form, (403, 403, 403, 302, 404, 302)),
        ("get", "tau-agreement", r("annotation:tau-agreement"), {}, (200, 200, 200, 403, 403, 302)),
        ("get", "calibration-next", r("annotation:calibration-next"), {}, (403, 403, 403, 302, 302, 302)),
        ("get", "calibration", r("annotation:calibration", args=[o.cal]), {}, (403, 403, 403, 200, 200, 302)),
        (
            "post",
            "calibration submit",
            r("annotation:calibration", args=[o.cal]),
            {"lav": "1", "acc": "1", "cm": "0.5"},
            (403, 403, 403, 302, 302, 302),
        ),
        (
            "get",
            "calibration-report",
            r("annotation:calibration-report", args=[o.run]),
            {},
            (200, 200, 404, 403, 403, 302),
        ),
        ("get", "audit", r("annotation:audit"), {}, (200, 200, 200, 403, 403, 302)),
        ("get", "api-queue", r("annotation:api-queue"), {}, (403, 403, 403, 200, 200, 403)),
        (
            "post",
            "api-next review",
            r("annotation:api-next", args=["review"]),
            {},
            (403, 403, 403, 200, 200, 403),
        ),
        ("post", "api-next tau", r("annotation:api-next", args=["tau"]), {}, (403, 403, 403, 200, 200, 403)),
        ("get", "api-assignments", r("annotation:api-assignments"), {}, (403, 403, 403, 200, 200, 403)),
        ("get", "api-review", r("annotation:api-review", args=[o.ra]), {}, (403, 403, 403, 200, 404, 403)),
        (
            "post",
            "api-review-submit",
            r("annotation:api-review-submit", args=[o.ra]),
            {"context_coherent": True, "question_valid": False, "ground_truth": ""},
            (403, 403, 403, 201, 404, 403),
        ),
        ("get", "api-tau", r("annotation:api-tau", args=[o.ta]), {}, (403, 403, 403, 200, 404, 403)),
        (
            "post",
            "api-tau-submit",
            r("annotation:api-tau-submit", args=[o.ta]),
            {"aligned": [], "answer_errors": {"0": "entity_wrong"}, "gold_errors": {"0": "missing"}},
            (403, 403, 403, 201, 404, 403),
        ),
        (
            "get",
            "api-consensus done",
            r("annotation:api-consensus", args=[o.done_item]),
            {},
            (200, 200, 404, 200, 200, 403),
        ),
        (
            "get",
            "api-consensus open",
            r("annotation:api-consensus", args=[o.open_item]),
            {},
            (403, 403, 404, 403, 404, 403),
        ),
        (
            "post",
            "api-consensus-decide",
            r("annotation:api-consensus-decide", args=[o.done_item]),
            decide,
            (201, 201, 404, 201, 201, 403),
        ),
    ]


def test_permission_matrix_every_role_on_every_route(world, objects) -> None:
    mismatches = []
    routes = _routes(objects)
    for method, name, url, data, expected in routes:
        for role, want in zip(ROLES, expected, strict=True):
            client = _client(world, role)
            with transaction.atomic():  # every request starts from the same state
                if method == "get":
                    response = client.get(url)
                elif name.startswith("api"):
                    response = client.post(url, data=json.dumps(data), content_type="application/json")
                else:
                    response = client.post(url, data=data)
                transaction.set_rollback(True)
            if response.status_code != want:
                mismatches.append(f"{role} {method.upper()} {name}: {response.status_code}, expected {want}")
    assert not mismatches, "\n".join(mismatches)
    assert len(routes) * len(ROLES) == 168


def test_permission_pages_refuse_a_post_without_csrf_token(world, objects) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.annotator)
    response = client.post(
        reverse("annotation:review", args=[objects.ra]),
        {"context_coherent": "yes", "question_valid": "yes", "ground_truth": "Lyon"},
    )
    assert response.status_code == 403
    page = client.get(reverse("annotation:review", args=[objects.ra])).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page


def _verdicts(world):
    a = claim_review(world.annotator)
    review_submit(
        assignment=a,
        actor=world.annotator,
        context_coherent=True,
        question_valid=True,
        ground_truth="SECRET-VERDICT-OF-ANNA in 1901",
    )
    b = claim_review(world.other)
    assert b.item_id == a.item_id
    return a, b


def test_blind_api_refuses_the_other_review_before_both_submitted(world) -> None:
    a, b = _verdicts(world)
    client = _client(world, "other")
    assert client.get(reverse("annotation:api-review", args=[a.pk])).status_code == 404
    refused = client.get(reverse("annotation:api-consensus", args=[a.item_id]))
    assert refused.status_code == 403
    assert "SECRET-VERDICT" not in refused.content.decode()
    own = client.get(reverse("annotation:api-review", args=[b.pk]))
    assert own.status_code == 200 and own.json()["review"] is None
    for url in (reverse("annotation:api-assignments"), reverse("annotation:api-queue")):
        assert "SECRET-VERDICT" not in client.get(url).content.decode()
    # a reviewer is refused too while the item is blind
    assert _client(world, "researcher").get(reverse("annotation:api-consensus", args=[a.item_id])).status_code == 403


def test_blind_pages_hide_the_other_review_until_both_submitted(world) -> None:
    a, b = _verdicts(world)
    client = _client(world, "other")
    for url in (
        reverse("annotation:review", args=[b.pk]),
        reverse("annotation:dashboard"),
        reverse("annotation:consensus-list"),
        reverse("annotation:consensus", args=[a.item_id]),
        reverse("annotation:review", args=[a.pk]),
    ):
        assert "SECRET-VERDICT" not in client.get(url).content.decode(), url
    review_submit(
        assignment=b,
        actor=world.other,
        context_coherent=True,
        question_valid=True,
        ground_truth="It was 1889 in Paris.",
    )
    page = client.get(reverse("annotation:consensus", args=[a.item_id]))
    assert page.status_code == 200
    assert "SECRET-VERDICT-OF-ANNA in 1901" in page.content.decode()
    api = client.get(reverse("annotation:api-consensus", args=[a.item_id])).json()
    assert sorted(r["annotator"] for r in api["reviews"]) == ["anna-annotator", "bob-annotator"]


def test_blind_tau_labels_hidden_until_three_submitted(world) -> None:
    item = tau_item_create(gold=[["a", "r", "b"]], answer=[["a", "r", "b"]])
    first = claim_tau(world.annotator)
    tau_label_submit(assignment=first, actor=world.annotator, aligned=[[0, 0]], answer_errors={}, gold_errors={})
    second = claim_tau(world.other)
    with pytest.raises(NotOpenYet):
        tau_labels_of(item)
    assert _client(world, "other").get(reverse("annotation:api-tau", args=[first.pk])).status_code == 404
    tau_label_submit(assignment=second, actor=world.other, aligned=[[0, 0]], answer_errors={}, gold_errors={})
    third = claim_tau(world.third)
    tau_label_submit(
        assignment=third,
        actor=world.third,
        aligned=[],
        answer_errors={"0": "extra"},
        gold_errors={"0": "missing"},
    )
    item.refresh_from_db()
    assert len(tau_labels_of(item)) == 3
    assert tau_next(annotator=world.third) is None
