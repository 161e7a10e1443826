"""The annotator's flow: review goes straight to the next question with "n of N", keeps what was typed after a
refusal; consensus says why a decision is needed, diffs the two ground truths and can adopt one; TAU shows the
question, answer and gold texts with their triplets' terms marked, numbers triplets from 1 and keeps the labels
after a refusal. (The keyboard, the mouse, undo, the links and the narrow screen are tested in a real browser:
tests/workflows/test_tour.py.)"""

import json

import pytest

from annotation.models import ReviewAssignment
from annotation.presentation import mark_terms, word_diff
from annotation.services import review_next, review_submit, tau_item_create, tau_next
from evalplatform.corpus.models import Question
from tests.web.conftest import World, client_for, make_user

pytestmark = pytest.mark.django_db


def queue(world: World, n: int) -> None:
    Question.objects.filter(dataset=world.dataset, key__in=[f"q{i}" for i in range(n)]).update(status="draft")
    client_for(world, "researcher").post("/api/datasets/dkd-mini/review/")


def test_review_shows_its_place_goes_to_the_next_and_keeps_input_on_a_refusal(world: World) -> None:
    queue(world, 3)
    annotator = world.users["annotator"]
    client = client_for(world, "annotator")
    first = client.post("/annotation/review/next/")
    assert first.status_code == 302
    page = client.get(first["Location"]).content.decode()
    assert 'id="queue-position">1 of 3<' in page
    # A valid question without a ground truth is refused: the page comes back with the radio buttons and the comment.
    refused = client.post(
        first["Location"], {"context_coherent": "yes", "question_valid": "yes", "ground_truth": "", "comment": "hm"}
    )
    assert refused.status_code == 400
    text = refused.content.decode()
    assert 'value="yes" required checked' in text and ">hm</textarea>" in text
    done = client.post(first["Location"], {"context_coherent": "yes", "question_valid": "yes", "ground_truth": "1901"})
    assert done.status_code == 302 and done["Location"] != first["Location"]
    assert "/annotation/review/" in done["Location"]
    assert 'id="queue-position">2 of 3<' in client.get(done["Location"]).content.decode()
    assert ReviewAssignment.objects.filter(annotator=annotator).count() == 2


def reviewed_twice(world: World, truth_a: str, truth_b: str) -> int:
    queue(world, 1)
    other = make_user("ben-annotator", "annotator")
    items = []
    for user, truth in ((world.users["annotator"], truth_a), (other, truth_b)):
        assignment = review_next(annotator=user)
        assert assignment is not None
        review_submit(assignment=assignment, actor=user, context_coherent=True, question_valid=True, ground_truth=truth)
        items.append(assignment.item_id)
    assert items[0] == items[1]
    return items[0]


def test_consensus_says_why_diffs_and_adopts_one_ground_truth(world: World) -> None:
    item = reviewed_twice(world, "Finished in 1901 in Lyon.", "Finished in 1902 in Lyon.")
    client = client_for(world, "annotator")
    text = client.get(f"/annotation/consensus/{item}/").content.decode()
    assert (
        "Why a decision is needed" in text
        and "The numbers and dates differ: 1901 (anna-annotator) against 1902 (ben-annotator)." in text
    )
    assert "<del>1901</del>" in text and "<ins>1902</ins>" in text
    adopted = client.post(f"/annotation/consensus/{item}/", {"adopt": "1"})
    assert adopted.status_code == 302
    question = Question.objects.get(key="q0", dataset=world.dataset)
    assert question.status == "validated" and question.ground_truth == "Finished in 1902 in Lyon."


def test_word_diff_and_term_marks_escape_the_text() -> None:
    left, right = word_diff("in <b>1901</b> here", "in <b>1902</b> here")
    assert (
        left == "in <del>&lt;b&gt;1901&lt;/b&gt;</del> here" and right == "in <ins>&lt;b&gt;1902&lt;/b&gt;</ins> here"
    )
    assert mark_terms("The Tower <x> was built", ["tower", "built"], "t") == (
        'The <mark class="t">Tower</mark> &lt;x&gt; was <mark class="t">built</mark>'
    )


def test_tau_page_shows_the_texts_numbers_from_one_and_keeps_labels_after_a_refusal(world: World) -> None:
    generation = world.generations[0]  # "In 1901." to "When? (0)", ground truth "In 1901."
    tau_item_create(
        gold=[["tower", "finish in", "1901"], ["tower", "in", "lyon"]],
        answer=[["tower", "finish in", "1901"]],
        generation=generation,
    )
    annotator = world.users["annotator"]
    assignment = tau_next(annotator=annotator)
    assert assignment is not None
    client = client_for(world, "annotator")
    page = client.get(f"/annotation/tau/{assignment.pk}/").content.decode()
    assert 'id="tau-texts"' in page and "When? (0)" in page
    assert '<mark class="answer-term">1901</mark>' in page and '<span class="num">G2</span>' in page
    label = {"aligned": [[0, 0]], "answer_errors": {}, "gold_errors": {}}
    refused = client.post(f"/annotation/tau/{assignment.pk}/", {"label": json.dumps(label)})
    assert refused.status_code == 400
    text = refused.content.decode()
    assert "left: gold 2" in text  # numbered from 1, as the page shows the triplets
    assert json.dumps(json.dumps(label))[1:-1].replace('"', "&quot;") in text or "[[0, 0]]" in text
