"""Concurrent annotators on PostgreSQL: every item ends with exactly its overlap, never more or fewer.

Six threads, each with its own database connection, claim and submit as fast as they can until nothing
is left for them. SQLite serialises writers and ignores SELECT ... FOR UPDATE, so the test needs
PostgreSQL (DATABASE_URL=postgres://...)."""

import threading
import time
from collections import Counter

import pytest
from django.db import connection, connections

from annotation.models import (
    AssignmentStatus,
    ItemState,
    ReviewAssignment,
    ReviewItem,
    TauAssignment,
    TauItem,
)
from annotation.services import (
    AnnotationError,
    review_next,
    review_submit,
    tau_item_create,
    tau_label_submit,
    tau_next,
)
from tests.annotation.conftest import make_user, make_world

pytestmark = pytest.mark.postgres

N_ANNOTATORS = 6


def _require_postgres() -> None:
    if connection.vendor != "postgresql":
        pytest.skip(
            f"the race test needs PostgreSQL row locks (SKIP LOCKED); this run uses {connection.vendor}: "
            "set DATABASE_URL=postgres://..."
        )


def _work(claim, submit, users, errors: list[str], claims: Counter) -> None:
    barrier = threading.Barrier(len(users))

    def run(user) -> None:
        try:
            barrier.wait()
            idle = 0
            while idle < 20:  # a few empty rounds in a row: nothing is left for this annotator
                assignment = claim(user)
                if assignment is None:
                    idle += 1
                    time.sleep(0.01)
                    continue
                idle = 0
                claims[user.pk] += 1
                submit(assignment, user)
        except (AnnotationError, Exception) as exc:  # collected and asserted empty below
            errors.append(f"{user.username}: {exc!r}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"


@pytest.mark.django_db(transaction=True)
def test_race_review_items_get_exactly_two_annotators() -> None:
    _require_postgres()
    world = make_world(n_questions=40)
    users = [world.annotator, world.other, world.third] + [make_user(f"extra-{i}", "annotator") for i in range(3)]
    errors: list[str] = []
    claims: Counter = Counter()

    def submit(assignment, user) -> None:
        # Both reject: the consensus is decided without the sentence encoder, keeping the loop fast.
        review_submit(assignment=assignment, actor=user, context_coherent=False, question_valid=False, ground_truth="")

    _work(lambda u: review_next(annotator=u), submit, users, errors, claims)
    assert not errors, errors
    per_item = Counter(ReviewAssignment.objects.values_list("item_id", flat=True))
    assert len(per_item) == 40
    assert set(per_item.values()) == {2}  # no item got more or fewer than two assignments
    assert ReviewAssignment.objects.exclude(status=AssignmentStatus.SUBMITTED).count() == 0
    assert set(ReviewItem.objects.values_list("state", flat=True)) == {ItemState.DECIDED}
    assert sum(claims.values()) == 80
    assert len([u for u in claims if claims[u] > 0]) > 1  # the work really was shared


@pytest.mark.django_db(transaction=True)
def test_race_tau_items_get_exactly_three_annotators() -> None:
    _require_postgres()
    users = [make_user(f"tau-{i}", "annotator") for i in range(N_ANNOTATORS)]
    for i in range(30):
        tau_item_create(gold=[["a", "r", f"b{i}"]], answer=[["a", "r", f"b{i}"], ["x", "y", "z"]])
    errors: list[str] = []
    claims: Counter = Counter()

    def submit(assignment, user) -> None:
        tau_label_submit(
            assignment=assignment, actor=user, aligned=[[0, 0]], answer_errors={"1": "extra"}, gold_errors={}
        )

    _work(lambda u: tau_next(annotator=u), submit, users, errors, claims)
    assert not errors, errors
    per_item = Counter(TauAssignment.objects.values_list("item_id", flat=True))
    assert len(per_item) == 30
    assert set(per_item.values()) == {3}
    pairs = list(TauAssignment.objects.values_list("item_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))  # no annotator twice on one item
    assert set(TauItem.objects.values_list("state", flat=True)) == {ItemState.COMPLETE}
