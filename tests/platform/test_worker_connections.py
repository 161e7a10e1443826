"""A real worker keeps its database connection from one task to the next (a new PostgreSQL connection costs the
server a process and about 2,000 catalog rows read), and still recovers when the server drops it."""

import subprocess
from collections.abc import Iterator

import pytest
from django.db import connection

from evalplatform.celery import app
from tests.workers import fresh_queue, running_worker, tasks_not_eager

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker, pytest.mark.postgres]

QUEUE = fresh_queue("test-connections")


@pytest.fixture
def worker() -> Iterator[subprocess.Popen[bytes]]:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's connections; set DATABASE_URL=postgres://...")
    with running_worker(QUEUE) as process:
        yield process


def worker_backends() -> set[int]:
    """The server processes of the other connections to the test database: the worker's."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return {pid for (pid,) in cursor.fetchall()}


def run_a_task() -> None:
    with tasks_not_eager():
        assert app.send_task("runs.watchdog", queue=QUEUE).get(timeout=120) == {}


def test_a_worker_reuses_its_connection_across_tasks(worker: subprocess.Popen[bytes]) -> None:
    seen = []
    for _ in range(5):
        run_a_task()
        seen.append(worker_backends())
    assert len(seen[0]) == 1 and all(backends == seen[0] for backends in seen), seen


def test_a_worker_whose_connection_the_server_dropped_reconnects_for_its_next_task(
    worker: subprocess.Popen[bytes],
) -> None:
    run_a_task()
    (backend,) = worker_backends()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [backend])
    run_a_task()  # the kept connection is checked before it is used again, and replaced
    assert worker_backends() and backend not in worker_backends()
