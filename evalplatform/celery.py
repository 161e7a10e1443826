"""The Celery application: configuration comes from Django settings (``CELERY_*``)."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_init
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalplatform.settings")

app = Celery("evalplatform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def _keep_usable_connections(sender: Any = None, **kwargs: Any) -> None:
    """Between tasks, as Django does between requests: a database connection older than DATABASE_CONN_MAX_AGE, or
    one that saw an error, is closed; the others serve the thread's next task. Not for a task run inline: it runs
    inside its caller's transaction."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    close_old_connections()


@worker_init.connect
def _one_torch_thread_per_process(**kwargs: Any) -> None:
    """Worker processes run side by side: each encodes with one torch thread unless told otherwise."""
    os.environ.setdefault("EVALPLATFORM_TORCH_THREADS", "1")


# -- measuring (benchmarks/bench_run_throughput.py): a worker counts its SQL queries when asked to ----------------

_QUERY_LOG = os.environ.get("EVALPLATFORM_QUERY_LOG")
if _QUERY_LOG:
    import threading

    _queries = {"n": 0}
    _queries_lock = threading.Lock()

    def _count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        with _queries_lock:
            _queries["n"] += 1
        return execute(sql, params, many, context)

    @task_prerun.connect
    def _count_queries_of_this_thread(**kwargs: Any) -> None:
        from django.db import connection  # this thread's connection

        if _count not in connection.execute_wrappers:
            connection.execute_wrappers.append(_count)

    @task_postrun.connect
    def _write_query_count(**kwargs: Any) -> None:
        with _queries_lock, open(f"{_QUERY_LOG}.{os.getpid()}", "w") as out:
            out.write(str(_queries["n"]))
