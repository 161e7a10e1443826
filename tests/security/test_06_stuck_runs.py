"""Finding 6: runs stuck in "running". A worker killed mid-run left its cells queued until the broker's visibility
timeout (an hour), and nothing noticed; an unexpected exception left a run at 0/1 forever. Now a watchdog (beat,
and every progress poll) sends a stale run's work again and fails a run that cannot progress, with the reason;
every unexpected exception fails its cell with the cause; run_resume is a command as well as an API action."""

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from evalplatform.runs.spec import SpecError
from evalplatform.runs.watchdog import run_watch
from tests.conftest import REPO
from tests.runs.conftest import ONE

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


def _stale(run: Run, minutes: int = 20) -> None:
    ago = timezone.now() - timedelta(minutes=minutes)
    Run.objects.filter(pk=run.pk).update(progress_at=ago)
    Generation.objects.filter(run=run, status="pending").update(queued_at=ago)


def test_the_watchdog_resends_the_work_of_a_run_whose_worker_died(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    endpoint_factory("cand")
    run = run_launch(dataset=sample_dataset, spec=ONE | {"models": ["cand"], "limit": 3}, enqueue=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, started_at=timezone.now())
    Generation.objects.filter(run=run).update(queued_at=timezone.now())  # sent, then lost with their worker
    assert run_watch(run_id=run.pk) == "progressing"  # not stale yet
    _stale(run)
    with django_capture_on_commit_callbacks(execute=True):
        assert run_watch(run_id=run.pk) == "resent"
    run.refresh_from_db()
    assert run.status == Run.Status.DONE and run.progress_done == run.progress_total == 3 * 2  # answers and ASS


def test_a_run_that_never_progresses_fails_with_the_reason(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    endpoint_factory("cand")
    run = run_launch(dataset=sample_dataset, spec=ONE | {"models": ["cand"], "limit": 2}, enqueue=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, watchdog_kicks=3)
    _stale(run)
    assert run_watch(run_id=run.pk) == "failed"
    run.refresh_from_db()
    assert run.status == Run.Status.FAILED and "no progress" in run.status_reason and "run_resume" in run.status_reason


def test_a_progress_poll_of_a_stale_run_sends_its_work_again(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory, owner_client: Client
) -> None:
    """Without a beat running, the run page's poll is what notices (once a minute per run)."""
    endpoint_factory("cand")
    run = run_launch(dataset=sample_dataset, spec=ONE | {"models": ["cand"], "limit": 2}, enqueue=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING, started_at=timezone.now())
    Generation.objects.filter(run=run).update(queued_at=timezone.now())
    _stale(run)
    polled = owner_client.get(f"/api/runs/{run.pk}/progress/")
    assert polled.status_code == 200
    run.refresh_from_db()
    assert run.status == Run.Status.DONE and run.progress_done == run.progress_total == 2 * 2


def _broker_settings(broker: str) -> dict[str, Any]:
    """The transport options and the watchdog's staleness as settings give them for ``broker``, in a fresh
    interpreter (the broker is read once, at start-up)."""
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps([settings.CELERY_BROKER_TRANSPORT_OPTIONS, settings.RUN_STALE_AFTER_S]))"
    )
    env = os.environ | {"DJANGO_SETTINGS_MODULE": "evalplatform.settings", "DEBUG": "1", "CELERY_BROKER_URL": broker}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    options, stale = json.loads(done.stdout.strip().splitlines()[-1])
    return {"options": options, "stale": stale}


def test_the_broker_visibility_timeout_is_set_explicitly() -> None:
    redis = _broker_settings("redis://127.0.0.1:6379/0")
    timeout = redis["options"]["visibility_timeout"]
    assert timeout > 0 and timeout > redis["stale"]  # the watchdog acts before the broker would


def test_the_embedded_broker_gets_no_visibility_timeout() -> None:
    """SQLAlchemy's transport passed the option on to create_engine, and a worker on the default broker (make serve)
    could not start (TypeError: Invalid argument(s) 'visibility_timeout')."""
    assert _broker_settings("sqla+sqlite:////tmp/broker.sqlite3")["options"] == {}


def test_an_unexpected_error_fails_the_cell_with_its_cause(
    launch: Callable[..., Run], sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    endpoint_factory("cand", provider="no-such-provider")
    run = launch(sample_dataset, models=["cand"], limit=2)
    assert run.status == Run.Status.DONE and run.progress_failed == 2 * 2  # each cell's answer and its ASS
    errors = set(Generation.objects.filter(run=run).values_list("error", flat=True))
    assert errors == {"unexpected error: ValueError: endpoint cand: unknown provider 'no-such-provider'"}


def test_imported_answers_cannot_be_asked(sample_dataset: Dataset, endpoint_factory: EndpointFactory) -> None:
    endpoint_factory("old-answers", provider=ModelEndpoint.Provider.IMPORTED)
    with pytest.raises(SpecError, match="imported with a dataset and cannot be asked"):
        run_launch(dataset=sample_dataset, spec=ONE | {"models": ["old-answers"]}, enqueue=False)


def test_run_stop_and_run_resume_commands_refuse_what_they_cannot_do(
    sample_dataset: Dataset, endpoint_factory: EndpointFactory
) -> None:
    endpoint_factory("cand")
    run = run_launch(dataset=sample_dataset, spec={"models": ["cand"], "limit": 1}, enqueue=False)
    out = StringIO()
    call_command("run_stop", str(run.pk), "--reason", "a test", stdout=out)
    assert "cancelled: a test" in out.getvalue()
    with pytest.raises(CommandError, match="is not queued or running"):
        call_command("run_stop", str(run.pk))
    with pytest.raises(CommandError, match="no run 999999"):
        call_command("run_resume", "999999")
    Run.objects.filter(pk=run.pk).update(status=Run.Status.DONE)
    with pytest.raises(CommandError, match="give --retry-failed"):
        call_command("run_resume", str(run.pk))
