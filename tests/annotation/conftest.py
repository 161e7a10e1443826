"""Users of every role, a small DKD dataset in a project, and helpers to drive the annotation workflow."""

from dataclasses import dataclass

import pytest
from django.contrib.auth.models import User

from annotation.models import ReviewAssignment, TauAssignment
from annotation.services import annotation_queue_questions, review_next, tau_next
from evalplatform.corpus.models import Alteration, Context, Dataset, Project, Question
from evalplatform.roles import user_add_role


@dataclass
class World:
    admin: User
    researcher: User
    outsider: User
    annotator: User
    other: User
    third: User
    dataset: Dataset
    context: Context
    questions: list[Question]


def make_user(name: str, role: str | None) -> User:
    user = User.objects.create_user(username=name)
    user.set_unusable_password()
    user.save()
    if role:
        user_add_role(user=user, role=role)
    return user


def make_world(n_questions: int = 3) -> World:
    admin = make_user("ada-admin", "admin")
    researcher = make_user("rita-researcher", "researcher")
    outsider = make_user("oscar-outsider", "researcher")
    annotator = make_user("anna-annotator", "annotator")
    other = make_user("bob-annotator", "annotator")
    third = make_user("cleo-annotator", "annotator")
    project = Project.objects.create(name="divergent")
    project.members.add(researcher)
    dataset = Dataset.objects.create(name="dkd-mini", kind=Dataset.Kind.DKD, project=project)
    context = Context.objects.create(
        dataset=dataset,
        key="c1",
        text="The Eiffel Tower was finished in 1901 in Lyon by <Gustave> & Co.",
        source_text="The Eiffel Tower was finished in 1889 in Paris by Gustave Eiffel.",
    )
    Alteration.objects.create(context=context, position=0, field="date", original="1889", divergent="1901")
    Alteration.objects.create(context=context, position=1, field="place", original="Paris", divergent="Lyon")
    questions = [
        Question.objects.create(
            dataset=dataset,
            context=context,
            key=f"q{i}",
            position=i,
            text=f"Question {i}: where and when?",
            ground_truth=f"Draft answer {i}",
        )
        for i in range(n_questions)
    ]
    annotation_queue_questions(questions=questions)
    return World(admin, researcher, outsider, annotator, other, third, dataset, context, questions)


@pytest.fixture
def world(db: None) -> World:
    return make_world()


def claim_review(user: User) -> ReviewAssignment:
    """The next review for this annotator; the test expects there is one."""
    assignment = review_next(annotator=user)
    assert assignment is not None, f"no review left for {user.username}"
    return assignment


def claim_tau(user: User) -> TauAssignment:
    assignment = tau_next(annotator=user)
    assert assignment is not None, f"no TAU item left for {user.username}"
    return assignment
