"""Starting a real Celery worker process on the configured broker and the test database."""

import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection
from kombu import Queue

from evalplatform.celery import app
from tests.conftest import REPO


def test_database_url() -> str:
    """DATABASE_URL of the database this test runs on (the test database, file-backed for SQLite)."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def fresh_queue(prefix: str) -> str:
    """A queue name no earlier test run used. A worker killed with SIGKILL leaves its unacknowledged
    messages in the broker, which hands them out again once the visibility timeout has passed (an hour on
    Redis); on a shared queue name they would reach the next run's worker and point at rows of a database
    that no longer exists."""
    return f"{prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def purge_queue(queue: str) -> None:
    """Drop what is still waiting on ``queue`` once its test is over."""
    with app.connection_for_write() as connection:
        Queue(queue, channel=connection.default_channel).purge()


def start_worker(queue: str) -> subprocess.Popen[bytes]:
    env = os.environ | {
        "DATABASE_URL": test_database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_RESULT_BACKEND": settings.CELERY_RESULT_BACKEND,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "evalplatform",
            "worker",
            "--pool=solo",
            "--loglevel=" + os.environ.get("TEST_WORKER_LOGLEVEL", "WARNING"),
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-Q",
            queue,
        ],
        cwd=REPO,
        env=env,
    )


@contextmanager
def running_worker(queue: str) -> Iterator[subprocess.Popen[bytes]]:
    """A worker on ``queue`` for the block: stopped (warm shutdown, then killed after 30 s) and its queue purged."""
    process = start_worker(queue)
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        purge_queue(queue)


@contextmanager
def tasks_not_eager(queue: str | None = None) -> Iterator[None]:
    """Send tasks to the broker (to ``queue`` when given) instead of running them in the test process."""
    previous = (app.conf.task_always_eager, app.conf.task_default_queue)
    app.conf.task_always_eager = False
    if queue:
        app.conf.task_default_queue = queue
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_default_queue = previous
