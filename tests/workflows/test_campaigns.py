"""Annotation campaigns from the product: a researcher queues a dataset's draft questions for review (idempotent,
says how many), samples a run's answers for calibration, sends a run's TAU diagnoses to labelling, and reads the
campaign's progress per dataset and annotator with the agreement so far and what waits for consensus."""

import pytest

from annotation.models import CalibrationItem, ItemState, ReviewItem, TauItem
from annotation.services import review_next, review_submit, tau_next
from evalplatform.audit.models import AuditEvent
from evalplatform.corpus.models import Question
from tests.web.conftest import World, client_for, make_user

pytestmark = pytest.mark.django_db


def drafts(world: World, n: int = 3) -> None:
    Question.objects.filter(dataset=world.dataset, key__in=[f"q{i}" for i in range(n)]).update(
        status=Question.Status.DRAFT
    )


def test_queue_a_dataset_for_review_is_idempotent_and_says_how_many(world: World) -> None:
    drafts(world)  # q0-q2 draft, q3 validated
    client = client_for(world, "researcher")
    first = client.post("/api/datasets/dkd-mini/review/")
    assert first.status_code == 200
    assert first.json() | {} == {"queued": 3, "already_queued": 0, "skipped": 1, "dataset": "dkd-mini", "version": 1}
    assert ReviewItem.objects.filter(question__dataset=world.dataset).count() == 3
    assert set(Question.objects.filter(dataset=world.dataset).values_list("status", flat=True)) == {
        "in_review",
        "validated",
    }
    second = client.post("/api/datasets/dkd-mini/review/")
    assert second.json()["queued"] == 0 and second.json()["already_queued"] == 3
    assert ReviewItem.objects.count() == 3
    assert AuditEvent.objects.filter(action="review.queue").count() == 1  # the call that queued nothing wrote nothing
    # Others: annotators 403, a researcher outside the project 404, a body is refused.
    assert client_for(world, "annotator").post("/api/datasets/dkd-mini/review/").status_code == 403
    assert client_for(world, "outsider").post("/api/datasets/dkd-mini/review/").status_code == 404
    assert client.post("/api/datasets/dkd-mini/review/", {"limit": 2}, format="json").status_code == 400


def test_the_dataset_page_button_queues_and_says_how_many(world: World) -> None:
    drafts(world, 2)
    client = client_for(world, "researcher")
    assert b'id="queue-review"' in client.get("/datasets/dkd-mini/").content
    response = client.post("/datasets/dkd-mini/review/", {"version": "1"}, follow=True)
    assert b"Queued 2 question(s) for two-annotator review" in response.content
    response = client.post("/datasets/dkd-mini/review/", {"version": "1"}, follow=True)
    assert b"Queued 0 question(s)" in response.content and b"2 were queued before" in response.content


def test_calibration_sample_is_seeded_idempotent_and_counts_what_it_could_not_draw(world: World) -> None:
    client = client_for(world, "researcher")
    url = f"/api/runs/{world.run.pk}/calibration/"
    first = client.post(url, {"sample_size": 2, "seed": 7}, format="json").json()
    assert (first["queued"], first["already_queued"], first["skipped"]) == (2, 0, 0)
    again = client.post(url, {"sample_size": 2, "seed": 7}, format="json").json()
    assert (again["queued"], again["already_queued"]) == (0, 2)
    more = client.post(url, {"sample_size": 6, "seed": 7}, format="json").json()
    assert (more["queued"], more["already_queued"], more["skipped"]) == (2, 2, 2)  # the run has 4 answers
    assert CalibrationItem.objects.filter(generation__run=world.run).count() == 4
    assert client.post(url, {"sample_size": 0}, format="json").status_code == 400
    assert client.post(url, {"sample_size": 2, "size": 3}, format="json").status_code == 400
    assert client_for(world, "outsider").post(url, {"sample_size": 2}, format="json").status_code == 404


def test_tau_items_of_a_run_are_sent_once_and_a_run_without_graphs_is_refused(world: World) -> None:
    client = client_for(world, "researcher")
    url = f"/api/runs/{world.run.pk}/tau/"
    refused = client.post(url)
    assert refused.status_code == 400 and "knowledge-graph" in refused.json()["run"][0]
    world.run.spec = world.run.spec | {"kg": {"extractor": "dependency", "variants": ["s3kg"]}}
    world.run.save()
    first = client.post(url).json()
    assert (first["queued"], first["already_queued"]) == (1, 0)
    item = TauItem.objects.get()
    assert item.answer == [["tower", "finish in", "1901"]] and len(item.gold) == 2
    assert item.generation == world.generations[0] and item.overlap == 3
    assert client.post(url).json()["queued"] == 0


def test_the_campaign_page_shows_progress_agreement_and_what_waits_for_consensus(world: World) -> None:
    drafts(world, 2)
    researcher = client_for(world, "researcher")
    researcher.post("/api/datasets/dkd-mini/review/")
    second_annotator = make_user("ben-annotator", "annotator")
    annotators = [world.users["annotator"], second_annotator]
    # q0: both accept with ground truths that differ in their key fact; q1: one accepts, one rejects.
    for truth_a, truth_b, valid_b in [("In 1901.", "In 1902.", True), ("In 1901.", "", False)]:
        a = review_next(annotator=annotators[0])
        b = review_next(annotator=annotators[1])
        assert a is not None and b is not None and a.item_id == b.item_id
        review_submit(
            assignment=a, actor=annotators[0], context_coherent=True, question_valid=True, ground_truth=truth_a
        )
        review_submit(
            assignment=b, actor=annotators[1], context_coherent=True, question_valid=valid_b, ground_truth=truth_b
        )
    assert ReviewItem.objects.filter(state=ItemState.NEEDS_DECISION).count() == 2
    body = researcher.get("/api/annotation/campaigns/").json()
    row = next(d for d in body["datasets"] if d["dataset"] == "dkd-mini")
    assert row["review_items"]["needs_decision"] == 2 and row["reviews_submitted"] == 4
    # Accept votes: (True, True) and (True, False): raw agreement 0.5; kappa is 0 (p_o 0.5 = p_e 0.5).
    assert row["agreement"] == {"pairs": 2, "kappa": 0.0, "raw": 0.5}
    names = {a["username"]: a for a in body["annotators"]}
    assert names["anna-annotator"]["reviews_submitted"] == 2 and names["ben-annotator"]["reviews_submitted"] == 2
    assert len(body["waiting_for_consensus"]) == 2
    page = researcher.get("/annotation/campaigns/")
    assert page.status_code == 200 and b"campaign-waiting" in page.content
    assert client_for(world, "annotator").get("/annotation/campaigns/").status_code == 403
    outsider = client_for(world, "outsider").get("/api/annotation/campaigns/").json()
    assert outsider["waiting_for_consensus"] == [] and outsider["annotators"] == []
    assert tau_next(annotator=annotators[0]) is None
