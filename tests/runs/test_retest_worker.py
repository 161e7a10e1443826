"""A retest on a real Celery worker: its units go through the broker as ``cdke.retest_score`` tasks, which the
deployment routes to the llm queue."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from evalplatform.corpus.models import Dataset
from evalplatform.runs.launch import run_launch
from evalplatform.runs.models import Run
from scoring.models import RetestBatch, RetestScore
from scoring.services.launches import retest_launch
from tests.conftest import REPO
from tests.runs.judge_server import JudgeServer
from tests.workers import fresh_queue, purge_queue, start_worker, tasks_not_eager

QUEUE = fresh_queue("test-retest")


def test_the_retest_task_is_routed_to_the_llm_queue() -> None:
    code = (
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'evalplatform.settings'); django.setup();"
        "from django.conf import settings; print(settings.CELERY_TASK_ROUTES['cdke.retest_score']['queue'])"
    )
    env = os.environ | {"EVALPLATFORM_QUEUES_BY_KIND": "1", "DEBUG": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "llm"


@pytest.fixture
def worker() -> Iterator[None]:
    process = start_worker(QUEUE)
    yield
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
    purge_queue(QUEUE)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_retest_runs_on_a_worker(
    sample_dataset: Dataset, endpoint_factory: Any, judge_server: JudgeServer, worker: None
) -> None:
    endpoint_factory("cand")
    endpoint_factory("judge-a", timeout_s=30.0)
    first = run_launch(dataset=sample_dataset, spec={"models": ["cand"], "evaluators": ["judge-a"], "limit": 3})
    first.refresh_from_db()
    assert first.status == Run.Status.DONE  # answered inline (the tests' tasks are eager)
    asked = judge_server.count()["lav"]
    with tasks_not_eager(QUEUE):
        batch = retest_launch(run=first, sample_size=3, seed=0, actor=None)
    deadline = time.monotonic() + 120
    while RetestBatch.objects.get(pk=batch.pk).finished_at is None:
        assert time.monotonic() < deadline, "the worker did not finish the retest"
        time.sleep(0.3)
    assert RetestScore.objects.filter(batch=batch, status="ok").count() == 9
    assert judge_server.count()["lav"] - asked == 3
