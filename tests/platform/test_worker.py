"""A real Celery worker process, on the configured broker (Redis in CI, the SQLite broker by default),
runs a task whose effect the test then reads from the configured database (PostgreSQL in CI)."""

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection

from evalplatform.celery import app
from evalplatform.corpus.models import Dataset
from tests.conftest import REPO, SAMPLE_DKD

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


def _database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def worker() -> Iterator[subprocess.Popen[bytes]]:
    env = os.environ | {
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_RESULT_BACKEND": settings.CELERY_RESULT_BACKEND,
        "CELERY_TASK_ALWAYS_EAGER": "0",
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "evalplatform",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            "test-worker",
        ],
        cwd=REPO,
        env=env,
    )
    yield process
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture
def not_eager() -> Iterator[None]:
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = previous


def test_worker_process_imports_a_dataset_into_the_database(worker: subprocess.Popen[bytes], not_eager: None) -> None:
    result = app.send_task(
        "corpus.import_dataset_file", args=[str(SAMPLE_DKD), "dkd", "via-worker"], queue="test-worker"
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not Dataset.objects.filter(name="via-worker").exists():
        assert worker.poll() is None, "the worker exited"
        time.sleep(0.5)
    dataset = Dataset.objects.get(name="via-worker")
    assert dataset.questions.count() == 16
    assert result.get(timeout=30) == dataset.pk
