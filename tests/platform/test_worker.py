"""A real Celery worker process, on the configured broker (Redis in CI, the SQLite broker by default),
runs a task whose effect the test then reads from the configured database (PostgreSQL in CI)."""

import subprocess
import time
from collections.abc import Iterator

import pytest

from evalplatform.celery import app
from evalplatform.corpus.models import Dataset
from tests.conftest import SAMPLE_DKD
from tests.workers import fresh_queue, running_worker, tasks_not_eager

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


QUEUE = fresh_queue("test-worker")


@pytest.fixture
def worker() -> Iterator[subprocess.Popen[bytes]]:
    with running_worker(QUEUE) as process:
        yield process


@pytest.fixture
def not_eager() -> Iterator[None]:
    with tasks_not_eager():
        yield


def test_worker_process_imports_a_dataset_into_the_database(worker: subprocess.Popen[bytes], not_eager: None) -> None:
    result = app.send_task("corpus.import_dataset_file", args=[str(SAMPLE_DKD), "dkd", "via-worker"], queue=QUEUE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not Dataset.objects.filter(name="via-worker").exists():
        assert worker.poll() is None, "the worker exited"
        time.sleep(0.5)
    dataset = Dataset.objects.get(name="via-worker")
    assert dataset.questions.count() == 16
    assert result.get(timeout=30) == dataset.pk
