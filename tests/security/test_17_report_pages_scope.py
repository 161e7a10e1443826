"""Finding 17: the calibration report and the TAU agreement page lacked the ``created_by`` clause the run pages use:
a run's creator who left its project got 404 there and 200 on the run. Both now see runs as the run pages do
(``runs_visible_to``), and outsiders still see nothing."""

import pytest
from django.contrib.auth.models import User

from annotation.models import CalibrationItem
from annotation.services import tau_item_create, tau_label_submit, tau_next
from evalplatform.roles import user_add_role
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def left_the_project(world: World) -> World:
    """Rita launched the world's run, then left its project."""
    project = world.dataset.project
    assert project is not None
    project.members.remove(world.users["researcher"])
    return world


def test_the_creator_who_left_reads_the_calibration_report_as_the_run(left_the_project: World) -> None:
    world = left_the_project
    CalibrationItem.objects.create(generation=world.generations[0], seed=1)
    client = client_for(world, "researcher")
    assert client.get(f"/runs/{world.run.pk}/").status_code == 200
    assert client.get(f"/annotation/calibration/runs/{world.run.pk}/").status_code == 200
    assert client_for(world, "outsider").get(f"/annotation/calibration/runs/{world.run.pk}/").status_code == 404


def test_the_creator_who_left_sees_the_tau_agreement_of_the_run(left_the_project: World) -> None:
    world = left_the_project
    tau_item_create(
        gold=[["tower", "in", "lyon"]], answer=[["tower", "in", "lyon"]], generation=world.generations[0], overlap=2
    )
    second = User.objects.create_user("bea-annotator")
    user_add_role(user=second, role="annotator")
    for annotator in (world.users["annotator"], second):
        assignment = tau_next(annotator=annotator)
        assert assignment is not None
        tau_label_submit(assignment=assignment, actor=annotator, aligned=[[0, 0]], answer_errors={}, gold_errors={})
    mine = client_for(world, "researcher").get("/annotation/tau/agreement/").content.decode()
    assert "1 complete item(s)" in mine
    theirs = client_for(world, "outsider").get("/annotation/tau/agreement/").content.decode()
    assert "0 complete item(s)" in theirs
