"""Finding 10: the home page listed every dataset (names, counts, licences) to every logged-in user, annotators
and other projects included. It now lists what the datasets page lists: ``datasets_visible_to``."""

import pytest
from django.contrib.auth.models import User

from evalplatform.corpus.models import Dataset, Project
from evalplatform.corpus.selectors import dataset_list_with_counts
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def secret(world: World) -> Dataset:
    other = Project.objects.create(name="other-lab")
    return Dataset.objects.create(name="secret-corpus", kind="qa", project=other, licence="CONFIDENTIAL-LICENCE")


@pytest.mark.parametrize("role", ["nobody", "annotator", "outsider"])
def test_users_outside_a_project_see_none_of_its_datasets(world: World, secret: Dataset, role: str) -> None:
    page = client_for(world, role).get("/").content.decode()
    assert "secret-corpus" not in page and "CONFIDENTIAL-LICENCE" not in page
    assert "dkd-mini" not in page  # the world's project: not theirs either


def test_a_researcher_sees_on_home_what_the_datasets_page_shows(world: World, secret: Dataset) -> None:
    client = client_for(world, "researcher")
    home, datasets = client.get("/").content.decode(), client.get("/datasets/").content.decode()
    for name in ("dkd-mini", "mrpc-mini"):
        assert name in home and name in datasets
    assert "secret-corpus" not in home and "secret-corpus" not in datasets


def test_an_admin_sees_every_dataset(world: World, secret: Dataset) -> None:
    assert "secret-corpus" in client_for(world, "admin").get("/").content.decode()


def test_counts_are_not_multiplied_by_the_project_join(world: World) -> None:
    project = world.dataset.project
    assert project is not None
    for i in range(3):  # more members in the project: the visibility join must not multiply counts
        project.members.add(User.objects.create_user(f"member-{i}"))
    Dataset.objects.filter(pk=world.dataset.pk).update(created_by=world.users["researcher"])
    rows = {row.name: row for row in dataset_list_with_counts(user=world.users["researcher"])}
    assert (rows["dkd-mini"].n_contexts, rows["dkd-mini"].n_questions) == (2, 4)
