"""Finding 7: failed scoring was lost. One failed judge call marked all five metrics failed, scoring was never
retried, and a finished run could not be resumed. Now each metric is scored on its own, transient failures are
retried at task level, and a researcher retries only the failed cells and scores of any run (API, page, command)."""

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_resume
from evalplatform.runs.models import Generation, ModelEndpoint, Run
from scoring.models import GenerationScore
from tests.runs.judge_server import JudgeServer

pytestmark = pytest.mark.django_db
EndpointFactory = Callable[..., ModelEndpoint]


def test_one_failing_judge_call_fails_its_metric_alone_and_a_retry_asks_only_for_it(
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge", max_attempts=1)
    judge_server.inject("completeness", 400)  # a permanent error on one call
    run = launch(sample_dataset, models=["cand"], evaluators=["judge"], limit=1)
    assert run.status == Run.Status.DONE and run.progress_failed == 1
    statuses = dict(GenerationScore.objects.filter(generation__run=run, scorer="judge").values_list("metric", "status"))
    assert statuses == {"fc": "ok", "ac": "ok", "acc": "ok", "cm": "failed", "lav": "ok"}
    before = judge_server.count()
    with django_capture_on_commit_callbacks(execute=True):
        run_resume(run=run, retry_failed=True)  # a finished run: only its failed metric is asked again
    run.refresh_from_db()
    after = judge_server.count()
    assert after["completeness"] == before["completeness"] + 1
    assert sum(after.values()) == sum(before.values()) + 1  # LAV came back from the cache
    assert run.status == Run.Status.DONE and run.progress_failed == 0 and run.progress_done == run.progress_total
    assert GenerationScore.objects.filter(generation__run=run, status="ok").count() == 6  # ass + five, each once


def test_a_finished_run_can_be_retried_from_the_api(
    owner_client: Client,
    launch: Callable[..., Run],
    sample_dataset: Dataset,
    endpoint_factory: EndpointFactory,
    judge_server: JudgeServer,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    endpoint_factory("cand", max_attempts=1)
    judge_server.inject("answer", 400)
    run = launch(sample_dataset, models=["cand"], limit=1)
    assert run.status == Run.Status.DONE and run.progress_failed == 2  # the answer and its ASS
    client = owner_client
    refused = client.post(f"/api/runs/{run.pk}/resume/", {}, content_type="application/json")
    assert refused.status_code == 400 and "retry_failed" in refused.json()["status"]
    with django_capture_on_commit_callbacks(execute=True):
        ok = client.post(f"/api/runs/{run.pk}/resume/", {"retry_failed": True}, content_type="application/json")
    assert ok.status_code == 200
    assert Generation.objects.get(run=run).status == "done"
