"""Every action that changes shared state leaves one audit event, written with the change: an import, a launch,
a stop, a resume, an export; and the run lifecycle commands (run_stop, run_resume) do what the page and the API
do."""

from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from evalplatform.audit.models import AuditEvent
from evalplatform.corpus.models import Dataset
from evalplatform.roles import RESEARCHER, user_add_role
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.services import run_stop
from evalplatform.runs.spec import SpecError

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


def _events(action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action).order_by("pk"))


def test_an_import_is_audited_with_its_counts(sample_dataset: Dataset) -> None:
    (event,) = _events("dataset.import")
    assert (event.object_type, event.object_id) == ("corpus.dataset", sample_dataset.pk)
    assert (event.dataset_id, event.dataset_name) == (sample_dataset.pk, "sample")
    assert event.payload["contexts"] == 3 and event.payload["questions"] == sample_dataset.questions.count()


def test_launch_stop_and_resume_are_audited_with_the_actor(
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("cand")
    alice = User.objects.create_user("alice")
    run = run_launch(dataset=sample_dataset, spec={"models": ["cand"], "limit": 2}, actor=alice, enqueue=False)
    (launched,) = _events("run.launch")
    assert launched.actor == alice and launched.object_id == run.pk and launched.payload["cells"] == 2
    assert run_stop(run_id=run.pk, status=Run.Status.CANCELLED, reason="enough", actor=alice)
    assert not run_stop(run_id=run.pk, status=Run.Status.CANCELLED, reason="again")  # nothing changed: no event
    (stopped,) = _events("run.stop")
    assert stopped.payload == {"status": "cancelled", "reason": "enough"} and stopped.dataset_name == "sample"
    with django_capture_on_commit_callbacks(execute=True):
        call_command("run_resume", str(run.pk), "--no-follow", stdout=StringIO())
    (resumed,) = _events("run.resume")
    assert resumed.actor is None and resumed.payload["retry_failed"] is False
    run.refresh_from_db()
    assert run.status == Run.Status.DONE and Generation.objects.filter(run=run, status="done").count() == 2


def test_a_refused_launch_writes_no_run_and_no_event(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    with pytest.raises(SpecError, match="spec field 'models'"):
        run_launch(dataset=sample_dataset, spec={"models": ["nobody"]}, enqueue=False)
    endpoint_factory("cand")
    with pytest.raises(SpecError, match="spec field 'evaluators'"):
        run_launch(dataset=sample_dataset, spec={"models": ["cand"], "evaluators": ["ghost"]}, enqueue=False)
    assert _events("run.launch") == [] and not Run.objects.exists()


def test_exports_are_audited_per_user(sample_dataset: Dataset, endpoint_factory: EndpointFactory) -> None:
    endpoint_factory("cand")
    bob = User.objects.create_user("bob", password="pw")
    user_add_role(user=bob, role=RESEARCHER)
    sample_dataset.created_by = bob
    sample_dataset.save()
    run = run_launch(dataset=sample_dataset, spec={"models": ["cand"], "limit": 1}, actor=bob, enqueue=False)
    client = Client()
    client.force_login(bob)
    assert client.get(f"/api/runs/{run.pk}/export/generations.csv").status_code == 200
    assert client.get("/api/datasets/sample/export/dkd/").status_code == 200
    (run_export,) = _events("run.export")
    (dataset_export,) = _events("dataset.export")
    assert run_export.actor == bob and run_export.payload == {"kind": "generations", "format": "csv"}
    assert dataset_export.actor == bob and dataset_export.payload == {"format": "dkd"}
