"""Honest live progress: per phase (answering, judging), elapsed time and the time left at the pace so far; Stop,
Resume and Retry failed as buttons and in the API, each through the runs services with an audit event."""

from datetime import timedelta

import pytest
from django.utils import timezone

from evalplatform.audit.models import AuditEvent
from evalplatform.runs.models import Generation, Run, StageProgress
from tests.web.conftest import World, client_for

pytestmark = pytest.mark.django_db


def test_progress_gives_each_phase_elapsed_time_and_no_eta_once_done(world: World) -> None:
    run = world.run  # 4 cells, 1 evaluator: 4 units each of answer, similarity and judge, all done
    start = timezone.now() - timedelta(minutes=10)
    Run.objects.filter(pk=run.pk).update(started_at=start, finished_at=start + timedelta(seconds=120))
    data = client_for(world, "researcher").get(f"/api/runs/{run.pk}/progress/").json()
    assert data["phases"] == [
        {"stage": "answer", "phase": "answering", "done": 4, "failed": 0, "total": 4},
        {"stage": "similarity", "phase": "similarity (ASS)", "done": 4, "failed": 0, "total": 4},
        {"stage": "judge", "phase": "judging", "done": 4, "failed": 0, "total": 4},
    ]
    assert data["elapsed_s"] == 120.0 and data["eta_s"] is None


def test_a_running_run_has_an_eta_at_its_pace_so_far(world: World) -> None:
    run = world.run
    Generation.objects.filter(pk__in=[g.pk for g in world.generations[2:]]).update(status="pending", text="")
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING, progress_done=3, started_at=timezone.now() - timedelta(seconds=100), finished_at=None
    )
    StageProgress.objects.filter(run=run, stage="answer").update(done=2)
    StageProgress.objects.filter(run=run, stage__in=["similarity", "judge"]).update(done=0)
    StageProgress.objects.filter(run=run, stage="similarity").update(done=1)
    data = client_for(world, "researcher").get(f"/api/runs/{run.pk}/progress/").json()
    # 3 of 12 units in 100 s: the 9 left take 300 s at that pace.
    assert data["eta_s"] == pytest.approx(300, abs=5) and data["elapsed_s"] == pytest.approx(100, abs=2)
    assert data["phases"][0] == {"stage": "answer", "phase": "answering", "done": 2, "failed": 0, "total": 4}


def test_stop_resume_and_retry_buttons(world: World) -> None:
    client = client_for(world, "researcher")
    run = world.run
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, finished_at=None)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="stop-run"' in page and 'id="resume-run"' not in page
    response = client.post(f"/runs/{run.pk}/stop/", follow=True)
    run.refresh_from_db()
    assert run.status == Run.Status.CANCELLED and b"Run stopped" in response.content
    assert 'id="resume-run"' in client.get(f"/runs/{run.pk}/").content.decode()
    client.post(f"/runs/{run.pk}/resume/")
    run.refresh_from_db()
    assert run.status == Run.Status.RUNNING
    # A done run with a failed answer: Retry puts it back to pending.
    failed = world.generations[3]
    Generation.objects.filter(pk=failed.pk).update(status="failed", error="boom")
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE, progress_failed=2)
    assert 'id="retry-failed"' in client.get(f"/runs/{run.pk}/").content.decode()
    client.post(f"/runs/{run.pk}/resume/", {"retry_failed": "1"})
    failed.refresh_from_db()
    run.refresh_from_db()
    assert failed.status == "pending" and run.status == Run.Status.RUNNING
    actions = list(AuditEvent.objects.filter(object_id=run.pk).values_list("action", flat=True))
    assert actions.count("run.stop") == 1 and actions.count("run.resume") == 2


def test_the_api_resumes_with_retry_failed_and_refuses_unknown_fields(world: World) -> None:
    client = client_for(world, "researcher")
    run = world.run
    url = f"/api/runs/{run.pk}/resume/"
    assert client.post(url, {"retry": True}, format="json").status_code == 400
    assert client.post(url, {}, format="json").status_code == 400  # done, nothing failed
    Generation.objects.filter(pk=world.generations[0].pk).update(status="failed")
    Run.objects.filter(pk=run.pk).update(progress_failed=2)
    response = client.post(url, {"retry_failed": True}, format="json")
    assert response.status_code == 200 and response.json()["status"] == "running"
    assert Generation.objects.get(pk=world.generations[0].pk).status == "pending"
